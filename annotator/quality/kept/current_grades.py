"""One pool's current human grades and the small count tables derived from them, kept by
``annotator.quality.kept.figures``: the rows (a person's newest grade per candidate), per
candidate its grades, per query alpha's coincidence shares, per pair of people and query
their confusion counts. Plain numpy; no database, no Streamlit.
"""

from __future__ import annotations

import bisect
import io
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotator.quality.agreement import PairAgreement
from annotator.quality.kept.progress_rows import AppRows, completions, inserted
from pooling.grades import GRADES
from pooling.resolution import UNSURE_COUNT

SIZE = len(GRADES)
UNSURE = UNSURE_COUNT  # the column of unsure judgments in a candidate's counts
USER_BITS = 32  # a row's key: the candidate's position, then the user id in these bits
USER_MASK = (1 << USER_BITS) - 1


@dataclass(frozen=True)
class Places:
    """``(query id, chunk id)`` -> a candidate's position, as a read-only mapping found by
    bisection in the ids kept in position order (queries in id order, each query's chunks
    in id order): building a dict of half a million keys took a restart 0.5 s at L."""

    query_ids: list[str]
    query_start: np.ndarray  # first position of each query, and the end
    chunk_ids: np.ndarray  # per position

    def get(self, key: tuple[str, str], default: int | None = None) -> int | None:
        query_id, chunk_id = key
        q = bisect.bisect_left(self.query_ids, query_id)
        if q == len(self.query_ids) or self.query_ids[q] != query_id:
            return default
        low, high = int(self.query_start[q]), int(self.query_start[q + 1])
        place = bisect.bisect_left(self.chunk_ids, chunk_id, low, high)
        return place if place < high and self.chunk_ids[place] == chunk_id else default

    def __getitem__(self, key: tuple[str, str]) -> int:
        place = self.get(key)
        if place is None:
            raise KeyError(key)
        return place

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and self.get(key) is not None


@dataclass(frozen=True)
class Systems:
    """Which systems found each of a pool's candidates, as the candidate sources stood at
    id ``mark`` (the newest): the distinct ``sets`` of system names (each sorted), and
    per position the index of its set in ``sets`` (-1: found by none)."""

    mark: int
    sets: list[tuple[str, ...]]
    found_by: np.ndarray

    @classmethod
    def of(cls, mark: int, positions: np.ndarray, named: list[tuple[str, ...]], n: int) -> Systems:
        """The systems of the candidates at ``positions`` (of ``n``), each found by the
        sorted names ``named``."""
        sets = sorted(set(named))
        index = {systems: i for i, systems in enumerate(sets)}
        found_by = np.full(n, -1, np.int64)
        found_by[positions] = [index[systems] for systems in named]
        return cls(mark, sets, found_by)


@dataclass
class Kept:
    """One pool's current human grades and the count tables derived from them. Candidates
    are held by position, in query then chunk id order (the queue's order within a
    severity), so that a query's candidates and their rows are each one range."""

    pool_id: int
    overlap: int
    candidate_ids: np.ndarray  # database id of each position
    chunk_ids: np.ndarray  # chunk id (text) of each position
    candidate_query: np.ndarray  # query index of each position
    query_ids: list[str]  # in id order
    query_start: np.ndarray  # first position of each query, and the end
    slices: list[list[str]]  # per query
    splits: list[str | None]  # per query
    position_of: Places  # (query id, chunk id) -> position
    id_order: np.ndarray  # positions in candidate id order
    row_key: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # sorted
    row_judgment: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    row_grade: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # UNSURE too
    row_first: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # seconds
    # The person has a judged row of the candidate in the pool: a judge of it there (a
    # grade under another rubric version than the pool counted is none, ``storage.tallies``)
    row_counted: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    app: AppRows = field(default_factory=AppRows)  # the Team progress figures' judgments
    completed: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # hour or -1
    notes: dict[int, str] = field(default_factory=dict)  # row key -> note, when one was left
    gold: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # per position
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, SIZE + 1), np.int32))
    coincidence: np.ndarray = field(default_factory=lambda: np.zeros((0, SIZE * SIZE)))
    pairs: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)  # queries x 16
    presence: dict[int, np.ndarray] = field(default_factory=dict)  # user -> rows per query
    pair_version: dict[tuple[int, int], int] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    decisions: dict[tuple[str, str], tuple] = field(default_factory=dict)
    decision_ids: dict[tuple[str, str], int] = field(default_factory=dict)
    judgment_mark: int = 0
    seen: int = 0
    # (after, lag, judgments up to the lag, judgments from it to the mark): last counted
    checked: tuple[int, int, int, int] | None = None
    in_flight: list[int] | None = None  # PostgreSQL's transactions open at that count
    adjudication_mark: int = 0
    applied: int = 0  # since the grades were saved
    saved: float = 0.0
    kept_pairs: dict[tuple, tuple[tuple, list[PairAgreement]]] = field(default_factory=dict)
    # Bumped by every count, and per query the count that last touched it: what the views'
    # own tables (``figures``'s, in ``derived``) bring up to date, query by query.
    version: int = 0
    query_version: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    derived: dict[tuple, Any] = field(default_factory=dict)
    systems: Systems | None = None  # the Pools figures' (None: not read yet)
    lock: threading.RLock = field(default_factory=threading.RLock)
    room: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # ``inserted``'s

    # -- rows ------------------------------------------------------------------------------

    def positions(self, candidate_ids: np.ndarray) -> np.ndarray:
        order = self.id_order
        found = np.searchsorted(self.candidate_ids, candidate_ids, sorter=order)
        return order[np.minimum(found, len(order) - 1)]

    def apply(self, rows: list[tuple]) -> np.ndarray:
        """Apply judgments ``(id, candidate id, user id, grade or None, note, made,
        counted)``, each standing where it is the person's newest on the candidate, the
        earliest one telling when they first judged it (``row_first``, seconds since 1970),
        and any ``counted`` that they are a judge of it in the pool (``row_counted``: a
        judged row there); returns the positions whose grades or judges changed."""
        if not rows:
            return np.zeros(0, np.int64)
        judgment = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        candidate = np.fromiter((r[1] for r in rows), np.int64, len(rows))
        user = np.fromiter((r[2] for r in rows), np.int64, len(rows))
        grade = np.fromiter((UNSURE if r[3] is None else r[3] for r in rows), np.int8, len(rows))
        made = np.fromiter((r[5] for r in rows), np.int64, len(rows))
        counted = np.fromiter((bool(r[6]) for r in rows), bool, len(rows))
        key = (self.positions(candidate) << USER_BITS) | user
        order = np.lexsort((judgment, key))  # by key, newest last
        starts = np.flatnonzero(np.r_[True, key[order][1:] != key[order][:-1]])
        first = np.minimum.reduceat(made[order], starts)
        counted = np.maximum.reduceat(counted[order], starts)
        last = order[np.r_[starts[1:] - 1, len(order) - 1]]
        key, judgment, grade = key[last], judgment[last], grade[last]
        at = np.searchsorted(self.row_key, key)
        found = at < len(self.row_key)
        found[found] = self.row_key[at[found]] == key[found]
        earlier = found.copy()  # a person's first judgment moved: when it completed too
        earlier[found] = first[found] < self.row_first[at[found]]
        self.row_first[at[earlier]] = first[earlier]
        judge = found.copy()  # a judged row of theirs appeared in the pool
        judge[found] = counted[found] & ~self.row_counted[at[found]]
        self.row_counted[at[judge]] = True
        earlier |= judge
        newer = found.copy()
        newer[found] = judgment[found] > self.row_judgment[at[found]]
        self.row_judgment[at[newer]] = judgment[newer]
        self.row_grade[at[newer]] = grade[newer]
        fresh = ~found
        columns = ("row_key", "row_judgment", "row_grade", "row_first", "row_counted")
        rows_now: tuple[np.ndarray, ...] = (key, judgment, grade, first, counted)
        for name, values in zip(columns, rows_now, strict=True):
            column = getattr(self, name)
            setattr(self, name, inserted(column, self.room, name, at[fresh], values[fresh]))
        changed = newer | fresh
        moved = np.unique(key[earlier & ~changed] >> USER_BITS)
        notes = [rows[i][4] or "" for i in last[changed]]
        for k, note in zip(key[changed].tolist(), notes, strict=True):
            if note:
                self.notes[k] = note
            else:
                self.notes.pop(k, None)
        self.applied += int(changed.sum())
        return np.union1d(key[changed] >> USER_BITS, moved)

    def rows_of(self, queries: np.ndarray) -> np.ndarray:
        """The row indexes of the candidates of ``queries`` (sorted query indexes)."""
        starts = self.query_start[queries] << USER_BITS
        ends = self.query_start[queries + 1] << USER_BITS
        low = np.searchsorted(self.row_key, starts)
        high = np.searchsorted(self.row_key, ends)
        return concatenated_ranges(low, high)

    # -- count tables ----------------------------------------------------------------------

    def count(self, queries: np.ndarray | None = None) -> None:
        """Count the tables again for ``queries`` (query indexes; every query when None)."""
        every = queries is None
        n_queries = len(self.query_ids)
        self.version += 1
        if every or len(self.query_version) != n_queries:  # or tables loaded, not counted
            self.query_version = np.full(n_queries, self.version, np.int64)
        else:
            self.query_version[queries] = self.version
        if queries is None:
            queries = np.arange(n_queries)
            rows = np.arange(len(self.row_key))
            self.counts = np.zeros((len(self.candidate_ids), SIZE + 1), np.int32)
            self.coincidence = np.zeros((n_queries, SIZE * SIZE))
            self.pairs, self.presence = {}, {}
            self.completed = np.full(len(self.candidate_ids), -1, np.int64)
        else:
            queries = np.unique(queries)
            rows = self.rows_of(queries)
            places = concatenated_ranges(self.query_start[queries], self.query_start[queries + 1])
            self.counts[places] = 0
            self.coincidence[queries] = 0
            self.completed[places] = -1
            for table in self.presence.values():
                table[queries] = 0
        position = self.row_key[rows] >> USER_BITS
        user = self.row_key[rows] & USER_MASK
        grade = self.row_grade[rows].astype(np.int64)
        judges = self.row_counted[rows]
        done, hour = completions(
            position[judges], user[judges], self.row_first[rows][judges], self.overlap
        )
        self.completed[done] = hour
        # Counted with bincount, which is many times faster than np.unique or np.add.at.
        self.counts += (
            np.bincount(position * (SIZE + 1) + grade, minlength=self.counts.size)
            .reshape(self.counts.shape)
            .astype(np.int32)
        )
        # Gold items' judgments are checks against a settled grade: counted for the queue
        # above, left out of agreement (``agreement.without_gold``).
        agreeing = ~self.gold[position]
        position, user, grade = position[agreeing], user[agreeing], grade[agreeing]
        query = self.candidate_query[position]
        for person in distinct_codes(user):
            mine = user == person
            table = self.presence.setdefault(person, np.zeros(n_queries, np.int32))
            table += np.bincount(query[mine], minlength=n_queries).astype(np.int32)
        self._coincidence(distinct_codes(position, as_list=False))
        self._pairs(queries, position, user, grade, every)

    def _coincidence(self, places: np.ndarray) -> None:
        """Each query's share of alpha's coincidence matrix, from its candidates' counts,
        as ``alpha.alpha_parts`` counts it."""
        counts = self.counts[places, :SIZE].astype(np.int64)
        m = counts.sum(axis=1)
        keep = m >= 2
        counts, m, places = counts[keep], m[keep], places[keep]
        # Half a million candidates have a few distinct rows of counts: each distinct row's
        # units are worked out once (the same arithmetic, so the same values).
        code, base = np.zeros(len(counts), np.int64), int(m.max(initial=0)) + 1
        for grade in range(SIZE):  # a row's counts as one number (base: people + 1)
            code = code * base + counts[:, grade]
        _, first, which = np.unique(code, return_index=True, return_inverse=True)
        values, m = counts[first].astype(float), m[first].astype(float)
        pairs = values[:, :, None] * values[:, None, :]
        pairs[:, np.arange(SIZE), np.arange(SIZE)] -= values
        units = (pairs / (m - 1)[:, None, None]).reshape(len(values), SIZE * SIZE).T.copy()
        query, n_queries = self.candidate_query[places], len(self.query_ids)
        for cell in range(SIZE * SIZE):  # summed in row order, as np.add.at sums
            self.coincidence[:, cell] += np.bincount(
                query, weights=units[cell][which], minlength=n_queries
            )

    def _pairs(self, queries, position, user, grade, every: bool) -> None:
        """Each pair's confusion counts per query, for the rows of ``queries``: every two
        people who graded one candidate, the first by name on the rows."""
        people = sorted(self.names, key=lambda u: self.names[u])
        rank = np.full(max([*people, int(user.max(initial=0))]) + 1, -1)
        rank[people] = np.arange(len(people))
        graded = grade < SIZE
        position, user, grade = position[graded], user[graded], grade[graded]
        before = {}
        if not every:
            for pair, table in self.pairs.items():
                before[pair] = table[queries].copy()
                table[queries] = 0
        parts = []
        for step in range(1, len(position)):
            same = np.flatnonzero(position[:-step] == position[step:])
            if not len(same):
                break
            a, b, ga, gb = user[same], user[same + step], grade[same], grade[same + step]
            flip = rank[a] > rank[b]
            a, b = np.where(flip, b, a), np.where(flip, a, b)
            cell = np.where(flip, gb * SIZE + ga, ga * SIZE + gb)
            parts.append((a, b, self.candidate_query[position[same]], cell))
        if parts:
            a, b, where, cell = (np.concatenate(column) for column in zip(*parts, strict=True))
            code = a * len(rank) + b
            order = np.argsort(code, kind="stable")
            code, where, cell = code[order], where[order], cell[order]
            bounds = np.flatnonzero(np.r_[True, code[1:] != code[:-1], True])
            n_queries = len(self.query_ids)
            for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
                pair = divmod(int(code[start]), len(rank))
                table = self.pairs.setdefault(pair, np.zeros((n_queries, SIZE * SIZE), np.int32))
                cells = where[start:end] * (SIZE * SIZE) + cell[start:end]
                table += (
                    np.bincount(cells, minlength=table.size).reshape(table.shape).astype(np.int32)
                )
        # A pair's figures are drawn again only when its table changed: a query's other
        # pairs keep theirs.
        for pair, table in self.pairs.items():
            was = before.get(pair)
            if was is None or not np.array_equal(was, table[queries]):
                self.pair_version[pair] = self.pair_version.get(pair, 0) + 1

    # -- saved -----------------------------------------------------------------------------

    def payload(self) -> bytes:
        """The grades as numpy arrays (no pickles): candidate ids, not positions, since a
        top-up moves positions."""
        buffer = io.BytesIO()
        notes = list(self.notes.items())
        arrays: dict[str, Any] = dict(
            candidate=self.candidate_ids[self.row_key >> USER_BITS],
            user=self.row_key & USER_MASK,
            judgment=self.row_judgment,
            grade=self.row_grade,
            note_candidate=self.candidate_ids[
                np.array([k for k, _ in notes], np.int64) >> USER_BITS
            ],
            note_user=np.array([k & USER_MASK for k, _ in notes], np.int64),
            note=np.array([n for _, n in notes], dtype=str),
            first=self.row_first,
            counted=self.row_counted,
            **self.app.arrays(),
            # The candidates, in position order: a restart reads them here, not in the
            # database (half a million rows joined to their queries and chunks at L).
            pool_candidate=self.candidate_ids,
            pool_query=self.candidate_query,
            **_texts("pool_query_ids", self.query_ids),
            **_texts("pool_chunk_ids", self.chunk_ids.tolist()),
        )
        arrays.update(self._tables())  # by position too
        if self.systems is not None:
            arrays.update(
                systems_mark=np.array(self.systems.mark, np.int64),
                systems_sizes=np.fromiter(map(len, self.systems.sets), np.int64),
                systems_found_by=self.systems.found_by,
                **_texts("systems_names", [n for names in self.systems.sets for n in names]),
            )
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    def _tables(self) -> dict[str, np.ndarray]:
        """The count tables as arrays, with the gold items they were counted with; the
        pairs' as their cells that are not zero."""
        pairs, people = sorted(self.pairs), sorted(self.presence)
        cells = [np.nonzero(self.pairs[pair]) for pair in pairs]  # (queries, cells)
        none = np.zeros(0, np.int64)
        return dict(
            table_gold=self.gold,
            table_counts=self.counts,
            table_completed=self.completed,
            table_coincidence=self.coincidence,
            table_people=np.array(people, np.int64),
            table_presence=np.array([self.presence[u] for u in people], np.int32).reshape(
                len(people), len(self.query_ids)
            ),
            table_pairs=np.array(pairs, np.int64).reshape(len(pairs), 2),
            table_pair_sizes=np.fromiter((len(q) for q, _ in cells), np.int64, len(cells)),
            table_pair_query=np.concatenate([none, *(q for q, _ in cells)]).astype(np.int32),
            table_pair_cell=np.concatenate([none, *(c for _, c in cells)]).astype(np.int8),
            table_pair_count=np.concatenate(
                [none, *(self.pairs[p][q, c] for p, (q, c) in zip(pairs, cells, strict=True))]
            ).astype(np.int32),
        )

    def load_tables(self, payload: bytes) -> bool:
        """The count tables saved with the grades (call ``load`` first, with the same
        candidates), instead of counting them again; False when the payload holds none,
        or they were counted with people in another order by name (a pair's first)."""
        saved = np.load(io.BytesIO(payload), allow_pickle=False)
        if "table_counts" not in saved.files:
            return False
        pairs = [tuple(pair) for pair in saved["table_pairs"].tolist()]
        names = [(self.names.get(a), self.names.get(b)) for a, b in pairs]
        if any(a is None or b is None or a >= b for a, b in names):
            return False
        self.gold, self.counts = saved["table_gold"], saved["table_counts"]
        self.completed, self.coincidence = saved["table_completed"], saved["table_coincidence"]
        people = saved["table_people"].tolist()
        self.presence = dict(zip(people, saved["table_presence"], strict=True))
        query, cell = saved["table_pair_query"], saved["table_pair_cell"]
        count = saved["table_pair_count"]
        self.pairs, self.pair_version = {}, {}
        for pair, (low, high) in zip(pairs, _bounds(saved["table_pair_sizes"]), strict=True):
            table = np.zeros((len(self.query_ids), SIZE * SIZE), np.int32)
            table[query[low:high], cell[low:high]] = count[low:high]
            self.pairs[pair], self.pair_version[pair] = table, 1
        return True

    def load(self, payload: bytes) -> bool:
        """The grades of a saved ``payload``; False when it names a candidate no longer in
        the pool, or was saved before it held what the Team progress figures need."""
        saved = np.load(io.BytesIO(payload), allow_pickle=False)
        if not {"first", "counted", "app_made"} <= set(saved.files):
            return False
        candidate = saved["candidate"]
        if len(candidate) and not len(self.candidate_ids):
            return False
        places = self.positions(candidate) if len(candidate) else candidate
        if not np.array_equal(self.candidate_ids[places], candidate):
            return False
        key = (places << USER_BITS) | saved["user"]
        order = np.argsort(key)
        self.row_key, self.row_judgment = key[order], saved["judgment"][order]
        self.row_grade, self.row_first = saved["grade"][order], saved["first"][order]
        self.row_counted = saved["counted"][order]
        self.app = AppRows.of(saved)
        note_key = (self.positions(saved["note_candidate"]) << USER_BITS) | saved["note_user"]
        self.notes = dict(zip(note_key.tolist(), saved["note"].tolist(), strict=True))
        return True


@dataclass(frozen=True)
class SavedCandidates:
    """The candidates a payload was saved with, in position order, and which systems
    found them (None when it holds none)."""

    candidate_ids: np.ndarray
    candidate_query: np.ndarray  # query index of each
    query_ids: list[str]
    chunk_ids: np.ndarray  # of each (objects: texts)
    systems: Systems | None


def saved_candidates(payload: bytes) -> SavedCandidates | None:
    """The candidates a ``payload`` was saved with; None when it holds none."""
    saved = np.load(io.BytesIO(payload), allow_pickle=False)
    if "pool_chunk_ids_separator" not in saved.files:
        return None
    chunk_ids = np.empty(len(saved["pool_candidate"]), dtype=object)
    chunk_ids[:] = _of_texts(saved, "pool_chunk_ids")
    systems = None
    if "systems_mark" in saved.files:
        names = _of_texts(saved, "systems_names")
        sets = [tuple(names[a:b]) for a, b in _bounds(saved["systems_sizes"])]
        systems = Systems(int(saved["systems_mark"]), sets, saved["systems_found_by"])
    return SavedCandidates(
        saved["pool_candidate"],
        saved["pool_query"],
        _of_texts(saved, "pool_query_ids"),
        chunk_ids,
        systems,
    )


def _texts(name: str, texts: list[str]) -> dict[str, np.ndarray]:
    """``texts`` as arrays (no pickles, any character): their UTF-8 bytes, joined by a
    character none of them holds, which is saved beside them with their number. Reading
    them back is one decode and one split: no Python object per text but the text (half
    a million slices or tuples kept the garbage collector busy for seconds)."""
    joined = "".join(texts)
    separator = next(chr(c) for c in itertools.count() if chr(c) not in joined)
    return {
        f"{name}_utf8": np.frombuffer(separator.join(texts).encode(), np.uint8),
        f"{name}_separator": np.array([ord(separator), len(texts)], np.int64),
    }


def _of_texts(saved, name: str) -> list[str]:
    separator, count = saved[f"{name}_separator"].tolist()
    return saved[f"{name}_utf8"].tobytes().decode().split(chr(separator)) if count else []


def _bounds(sizes: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` of each of parts of ``sizes`` laid one after another."""
    ends = np.cumsum(sizes).tolist()
    return list(zip([0, *ends][:-1], ends, strict=True))


def distinct_codes(values: np.ndarray, as_list: bool = True):
    """The distinct values of ``values`` (small non-negative integers), in order."""
    found = np.flatnonzero(np.bincount(values)) if len(values) else np.zeros(0, np.int64)
    return found.tolist() if as_list else found


def concatenated_ranges(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The integers of every range [low, high), concatenated."""
    lengths = high - low
    if not lengths.sum():
        return np.zeros(0, np.int64)
    starts = np.repeat(low - np.cumsum(np.r_[0, lengths[:-1]]), lengths)
    return starts + np.arange(lengths.sum())
