"""What the Team progress figures are counted from, kept up to date with the lead's other
figures (``annotator.quality.kept.figures``): each assignment's current judgment in the
pool's app (``AppRows``), and when each person first judged each candidate (``Kept``'s
``row_first``), from which the hours candidates were completed follow. Plain numpy; no
database, no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from storage.counts import HOUR

UNSURE = -1  # an unsure judgment's grade in ``AppRows.grade`` (it has none)
FIELDS = ("assignment", "revision", "judgment", "user", "query", "made", "grade", "seconds")


def _empty(kind) -> np.ndarray:
    return np.zeros(0, kind)


def inserted(
    column: np.ndarray, room: dict[str, np.ndarray], name: str, at: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """``np.insert(column, at, values)`` (``at`` ascending), moving only the rows from the
    first place on, into room kept past the column's end: ``room[name]``, the array
    ``column`` is the start of (made when it is not, or too small). A view brings a few
    rows among a million, mostly near the end (new items), and ``np.insert`` copied every
    row of every column: 30% of a lead's view at L while annotators worked (issue 41)."""
    if not len(values):
        return column
    n, m = len(column), len(values)
    buffer = room.get(name)
    if buffer is None or column.base is not buffer or n + m > len(buffer):
        buffer = room[name] = np.empty(n + m + max(n // 4, 1024), column.dtype)
        buffer[:n] = column
    first = int(at[0])
    buffer[first : n + m] = np.insert(buffer[first:n], at - first, values)
    return buffer[: n + m]


@dataclass
class AppRows:
    """Per assignment of the pool (sorted by its id) judged in the pool's app, its current
    judgment: the one of its highest revision, and of those the newest, which may have
    been made elsewhere (another pool holding the pair, an import), as
    ``storage.counts.current_counts`` reads it (the person's newest judgment of the pair
    judged at the assignment's revision). ``made`` is when, in seconds since 1970;
    ``seconds`` how long it took (NaN when not known)."""

    assignment: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    revision: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    judgment: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    user: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    query: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    made: np.ndarray = field(default_factory=lambda: _empty(np.int64))
    grade: np.ndarray = field(default_factory=lambda: _empty(np.int8))
    seconds: np.ndarray = field(default_factory=lambda: _empty(np.float64))
    room: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # ``inserted``'s

    def apply(self, rows: list[tuple]) -> int:
        """Apply app judgments ``(id, assignment, revision, user, query key, made, grade or
        None, seconds or None[, elsewhere])`` (``storage.figure_records.app_judgments_since``);
        reading one again changes nothing. A judgment made ``elsewhere`` only changes an
        assignment judged in the pool's app (held, or judged in ``rows``). Returns how many
        assignments changed."""
        if not rows:
            return 0
        n = len(rows)
        here = {r[1] for r in rows if not (len(r) > 8 and r[8])}
        judgment = np.fromiter((r[0] for r in rows), np.int64, n)
        assignment = np.fromiter((r[1] for r in rows), np.int64, n)
        revision = np.fromiter((r[2] for r in rows), np.int64, n)
        order = np.lexsort((judgment, revision, assignment))  # newest last per assignment
        last = order[np.r_[assignment[order][1:] != assignment[order][:-1], True]]
        new: dict[str, np.ndarray] = {
            "assignment": assignment[last],
            "revision": revision[last],
            "judgment": judgment[last],
            "user": np.array([rows[i][3] for i in last], np.int64),
            "query": np.array([rows[i][4] for i in last], np.int64),
            "made": np.array([rows[i][5] for i in last], np.int64),
            "grade": np.array(
                [UNSURE if rows[i][6] is None else rows[i][6] for i in last], np.int8
            ),
            "seconds": np.array(
                [np.nan if rows[i][7] is None else rows[i][7] for i in last], np.float64
            ),
        }
        at = np.searchsorted(self.assignment, new["assignment"])
        found = at < len(self.assignment)
        found[found] = self.assignment[at[found]] == new["assignment"][found]
        newer = found.copy()
        held_revision, held_judgment = self.revision[at[found]], self.judgment[at[found]]
        newer[found] = (new["revision"][found] > held_revision) | (
            (new["revision"][found] == held_revision) & (new["judgment"][found] > held_judgment)
        )
        fresh = ~found & np.isin(new["assignment"], np.fromiter(here, np.int64, len(here)))
        for name in FIELDS:
            column = getattr(self, name)
            column[at[newer]] = new[name][newer]
            setattr(self, name, inserted(column, self.room, name, at[fresh], new[name][fresh]))
        return int(newer.sum() + fresh.sum())

    def current_counts(self, names: dict[int, str]) -> list[tuple]:
        """``storage.counts.current_counts`` by annotator, hour and grade: ``(annotator,
        hour start, grade or None when unsure, items)``."""
        # One integer per row (grade in 3 bits, hour in 24, user above): a sort of integers
        # is many times faster than of rows.
        key = (self.user << 27) | ((self.made // HOUR) << 3) | (self.grade.astype(np.int64) + 1)
        groups, items = np.unique(key, return_counts=True)
        return [
            (
                names[k >> 27],
                (k >> 3 & (1 << 24) - 1) * HOUR,
                None if k & 7 == 0 else (k & 7) - 1,
                n,
            )
            for k, n in zip(groups.tolist(), items.tolist(), strict=True)
        ]

    def median_seconds(self, names: dict[int, str]) -> dict[str, float]:
        """``storage.counts.median_seconds``: per annotator the median seconds their current
        judgments took, those without a time left out."""
        timed = ~np.isnan(self.seconds)
        user, seconds = self.user[timed], self.seconds[timed]
        return {names[u]: float(np.median(seconds[user == u])) for u in np.unique(user).tolist()}

    def arrays(self) -> dict[str, np.ndarray]:
        """The columns to save, named ``app_<column>``."""
        return {f"app_{name}": getattr(self, name) for name in FIELDS}

    @classmethod
    def of(cls, saved) -> AppRows:
        """The rows of saved ``arrays`` (a ``KeyError`` when they are missing)."""
        return cls(**{name: saved[f"app_{name}"] for name in FIELDS})


def completions(
    position: np.ndarray, user: np.ndarray, first: np.ndarray, overlap: int
) -> tuple[np.ndarray, np.ndarray]:
    """The candidate positions that are complete among rows ``(position, user, first)``
    (every row of a position given), and the hour each was: when its ``overlap``-th person
    first judged it, people ordered by when they first did, then by id, as
    ``storage.counts.completions_by_hour`` has it. Times in whole seconds: the
    ``overlap``-th time falls in the same hour whichever of two tied people comes first."""
    order = _in_order(position, first, user)
    position, first = position[order], first[order]
    starts = np.r_[True, position[1:] != position[:-1]] if len(position) else np.zeros(0, bool)
    index = np.arange(len(position))
    chosen = index - np.maximum.accumulate(np.where(starts, index, 0)) == overlap - 1
    return position[chosen], first[chosen] // HOUR * HOUR


def _in_order(position: np.ndarray, first: np.ndarray, user: np.ndarray) -> np.ndarray:
    """The order of rows by position, then first time, then user: one sort of an integer
    made of the three (ten times faster than ``np.lexsort`` at a million), unless that
    would not fit in 64 bits."""
    if not len(position):
        return np.zeros(0, np.int64)
    low = int(first.min())
    span, users = int(first.max()) - low + 1, int(user.max()) + 1
    if (int(position.max()) + 1) * span * users >= 2**63:
        return np.lexsort((user, first, position))
    return np.argsort((position * span + (first - low)) * users + user, kind="stable")


def completions_by_hour(completed: np.ndarray) -> list[tuple[int, int]]:
    """``(hour start, candidates)`` rows, oldest first, of the hours candidates were
    ``completed`` (-1: not complete)."""
    hours, count = np.unique(completed[completed >= 0], return_counts=True)
    return list(zip(hours.tolist(), count.tolist(), strict=True))
