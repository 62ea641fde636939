"""The Adjudication and Agreement views' own tables, derived from one pool's kept grades
(``kept.current_grades.Kept``) and brought up to date query by query: under a policy, each
candidate's status, severity, agreed grade and a lead's decision; and per query each
person's confusion counts against the final grades, before and after adjudication.

A view recounts only the queries counted since the one before (``Kept.query_version``)
and those whose decisions changed: at a million judgments, a few dozen queries, not the
pool. The tables live in ``Kept.derived``, under the kept grades' lock, and go with them
when the grades are read afresh. Plain numpy; no database, no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from annotator.quality.kept.current_grades import (
    SIZE,
    USER_BITS,
    USER_MASK,
    Kept,
    concatenated_ranges,
    distinct_codes,
)
from pooling.grades import check_policy
from pooling.resolution import JUDGED_STATUSES, kept_statuses

# A candidate's status, by code: ``pooling.resolution.statuses``' four, then the two a
# queue gives settled candidates. -1: nobody judged it.
STATUSES = (*JUDGED_STATUSES, "gold", "adjudicated")
GOLD, ADJUDICATED = STATUSES.index("gold"), STATUSES.index("adjudicated")
CELLS = SIZE * SIZE
GRADED = 2 * CELLS  # a person's table: confusion before, after, then their graded rows


@dataclass
class Statuses:
    """Every position's status under one policy (before gold and decisions settle it),
    severity, agreed grade (-1 for none) and latest decision's grade (-1 for none)."""

    version: int
    decisions: dict[tuple[str, str], tuple]
    status: np.ndarray
    severity: np.ndarray
    auto: np.ndarray
    decided: np.ndarray
    # Queries whose finals moved by a decision since each reader last looked, by reader.
    moved: dict[str, set[int]] = field(default_factory=dict)


@dataclass
class Versus:
    """Per person (user id), per query: confusion counts of their grades against the final
    grades before adjudication (16 cells), after (16), and their graded rows (1); gold
    items left out, as ``adjudication.versus_final`` leaves them."""

    version: int
    tables: dict[int, np.ndarray] = field(default_factory=dict)
    totals: dict[int, np.ndarray] = field(default_factory=dict)  # each table's sum


def _count_statuses(kept: Kept, policy: str, places: np.ndarray) -> tuple:
    """Status, severity and agreed grade of the positions ``places``, as
    ``pooling.resolution.statuses`` decides them, from the candidates' kept counts
    (``pooling.resolution.kept_statuses``, the rule's kept form)."""
    return kept_statuses(kept.counts[places], kept.overlap, policy)


def statuses(kept: Kept, policy: str) -> Statuses:
    """The positions' ``Statuses`` under ``policy``, brought up to date: the queries counted
    since, and the decisions made since."""
    check_policy(policy)
    found = kept.derived.get(("statuses", policy))
    if found is None:
        every = np.arange(len(kept.candidate_ids))
        status, severity, auto = _count_statuses(kept, policy, every)
        decided = np.full(len(every), -1, np.int8)
        found = Statuses(kept.version, {}, status, severity, auto, decided)
        kept.derived[("statuses", policy)] = found
    elif found.version != kept.version:
        queries = np.flatnonzero(kept.query_version > found.version)
        places = concatenated_ranges(kept.query_start[queries], kept.query_start[queries + 1])
        found.status[places], found.severity[places], found.auto[places] = _count_statuses(
            kept, policy, places
        )
        found.version = kept.version
    changed = [k for k, d in kept.decisions.items() if found.decisions.get(k) != d]
    found.decisions.update((key, kept.decisions[key]) for key in changed)
    changed = [key for key in changed if key in kept.position_of]
    if changed:
        decided = np.array([kept.position_of[key] for key in changed], np.int64)
        found.decided[decided] = [int(kept.decisions[key][0]) for key in changed]
        moved = set(kept.candidate_query[decided].tolist())
        for reader in found.moved.values():
            reader |= moved
    return found


def settled(kept: Kept, found: Statuses) -> np.ndarray:
    """Each position's status in the queue: gold items, then decided ones, are settled."""
    status = found.status.copy()
    judged = status >= 0
    status[kept.gold & judged] = GOLD
    status[(found.decided >= 0) & judged] = ADJUDICATED
    return status


def people_masks(kept: Kept, annotators: list[str]) -> np.ndarray:
    """Per position, a bit per name of ``annotators`` (in their order) who judged it
    (graded or unsure); an object array of Python ints beyond 62 names."""
    position = kept.row_key >> USER_BITS
    user = kept.row_key & USER_MASK
    rank = {name: i for i, name in enumerate(annotators)}
    wide = len(annotators) > 62
    bits = np.zeros(int(user.max(initial=0)) + 1, dtype=object if wide else np.int64)
    for person, name in kept.names.items():
        if name in rank and person < len(bits):
            bits[person] = 1 << rank[name]
    masks = np.zeros(len(kept.candidate_ids), dtype=object if wide else np.int64)
    if not len(position):
        return masks
    # The rows are in position order: each candidate's bits OR-ed in one pass.
    starts = np.flatnonzero(np.r_[True, position[1:] != position[:-1]])
    masks[position[starts]] = np.bitwise_or.reduceat(bits[user], starts)
    return masks


def _finals(kept: Kept, found: Statuses, places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The final grades of the (judged) ``places`` before adjudication (the agreed ones,
    unless decided or gold) and after (a decision instead, where there is one); -1 for
    none."""
    decided = found.decided[places]
    before = np.where((decided >= 0) | kept.gold[places], -1, found.auto[places])
    return before, np.where(decided >= 0, decided, before)


def versus(kept: Kept, policy: str) -> dict[int, np.ndarray]:
    """Per person (user id), their ``Versus`` counts summed over the pool, brought up to
    date first: the queries counted or decided since."""
    found = statuses(kept, policy)
    mine = kept.derived.get(("versus", policy))
    if mine is None:
        mine = kept.derived[("versus", policy)] = Versus(-1)
        queries = np.arange(len(kept.query_ids))
    else:
        moved = np.array(sorted(found.moved["versus"]), np.int64)
        queries = np.union1d(np.flatnonzero(kept.query_version > mine.version), moved)
    found.moved["versus"] = set()
    mine.version = kept.version
    if len(queries):
        _count_versus(kept, found, mine, queries)
    return mine.totals


def _count_versus(kept: Kept, found: Statuses, mine: Versus, queries: np.ndarray) -> None:
    n_queries = len(kept.query_ids)
    for who, table in mine.tables.items():
        mine.totals[who] -= table[queries].sum(axis=0)
        table[queries] = 0
    rows = kept.rows_of(queries)
    position = kept.row_key[rows] >> USER_BITS
    user = kept.row_key[rows] & USER_MASK
    grade = kept.row_grade[rows].astype(np.int64)
    graded = (grade < SIZE) & ~kept.gold[position]  # gold checks left out
    position, user, grade = position[graded], user[graded], grade[graded]
    before, after = _finals(kept, found, position)
    query = kept.candidate_query[position]
    width = GRADED + 1
    # Every row's cells (its graded row, and its confusion before and after where there is
    # a final grade), all people at once: (person, query, cell) in one flat index.
    # People by a lookup of their ids (small integers), not a sort of a million rows.
    people = distinct_codes(user, as_list=False)
    rank = np.zeros(int(people.max(initial=0)) + 1, np.int64)
    rank[people] = np.arange(len(people))
    person = rank[user]
    cells = [(person, query, np.full(len(query), GRADED))]
    for offset, final in ((0, before), (CELLS, after)):
        had = final >= 0
        cells.append((person[had], query[had], offset + grade[had] * SIZE + final[had]))
    person, query, cell = (np.concatenate(column) for column in zip(*cells, strict=True))

    def table_of(who: int) -> np.ndarray:
        if who not in mine.tables:
            mine.tables[who] = np.zeros((n_queries, width), np.int64)
            mine.totals[who] = np.zeros(width, np.int64)
        return mine.tables[who]

    shape = (len(people), n_queries, width)
    if len(cell) * 8 < np.prod(shape):  # a few queries: added in place
        for i, who in enumerate(people.tolist()):
            at = person == i
            np.add.at(table_of(who).reshape(-1), query[at] * width + cell[at], 1)
            mine.totals[who] += np.bincount(cell[at], minlength=width)
        return
    flat = (person * n_queries + query) * width + cell
    added = np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape)
    for i, who in enumerate(people.tolist()):
        table_of(who)[:] += added[i]
        mine.totals[who] += added[i].sum(axis=0)
