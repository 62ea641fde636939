"""The lead's agreement figures and adjudication queue, kept up to date instead of counted
again from every judgment (issue 27).

Per pool, this process keeps the current human grade of every (candidate, person), and
from it small count tables: per candidate its grades (0-3, unsure), per query the
coincidence of grades (Krippendorff's alpha), and per pair of people and query their
confusion counts. A view reads the judgments written since the last one (ids above a
mark, ``storage.figure_records``), applies them, counts the queries they touched again and
derives the figures from the tables: a bootstrap interval resamples a pair's per-query
table, never judgments, and a pair's figures are kept until its table changes. So a view
costs what changed since the one before, and a display choice (a kappa, a pair, a policy,
a grouping) is drawn from the same tables.

The grades are saved in the database now and then (``storage.figure_tables``), so the
first view after a restart reads them and the judgments since, instead of them all. The
figures are exactly those of ``pool_quality.pool_agreement`` and ``pool_queue``, which
count from scratch; the tests pin the two equal. No Streamlit in here.
"""

from __future__ import annotations

import io
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from annotator.quality.adjudication import Queue
from annotator.quality.agreement import (
    PAGE_ROUNDS,
    AgreementReport,
    Figure,
    PairAgreement,
    bootstrap_shares,
    confusion,
    kappa_of,
    krippendorff_alpha,
    pair_of_shares,
)
from annotator.quality.pool_quality import PoolAgreement
from pooling.grades import GRADES, POLICIES, check_policy
from pooling.grouping import GROUPINGS
from pooling.i18n import check_name
from storage import figure_records as records
from storage.db import session_scope, snapshot_scope
from storage.pool_records import get_pool

SIZE = len(GRADES)
UNSURE = SIZE  # the column of unsure judgments in a candidate's counts
USER_BITS = 32  # a row's key: the candidate's position, then the user id in these bits
SAVE_AFTER = 20_000  # judgments applied before the grades are saved again
SAVE_EVERY = 300  # ... or seconds since they were saved, when anything was applied


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
    position_of: dict[tuple[str, str], int]  # (query id, chunk id) -> position
    id_order: np.ndarray  # positions in candidate id order
    row_key: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # sorted
    row_judgment: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    row_grade: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # UNSURE too
    notes: dict[int, str] = field(default_factory=dict)  # row key -> note, when one was left
    counts: np.ndarray | None = None  # positions x (grades, unsure)
    coincidence: np.ndarray | None = None  # queries x 16
    pairs: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)  # queries x 16
    presence: dict[int, np.ndarray] = field(default_factory=dict)  # user -> rows per query
    pair_version: dict[tuple[int, int], int] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    decisions: dict[tuple[str, str], tuple] = field(default_factory=dict)
    decision_ids: dict[tuple[str, str], int] = field(default_factory=dict)
    judgment_mark: int = 0
    seen: int = 0
    adjudication_mark: int = 0
    applied: int = 0  # since the grades were saved
    saved: float = 0.0
    kept_pairs: dict[tuple, tuple[int, PairAgreement]] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    # -- rows ------------------------------------------------------------------------------

    def positions(self, candidate_ids: np.ndarray) -> np.ndarray:
        order = self.id_order
        found = np.searchsorted(self.candidate_ids, candidate_ids, sorter=order)
        return order[np.minimum(found, len(order) - 1)]

    def apply(self, rows: list[tuple]) -> np.ndarray:
        """Apply judgments ``(id, candidate id, user id, grade or None, note)``, each
        standing where it is the person's newest on the candidate; returns the positions
        whose grades changed."""
        if not rows:
            return np.zeros(0, np.int64)
        judgment = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        candidate = np.fromiter((r[1] for r in rows), np.int64, len(rows))
        user = np.fromiter((r[2] for r in rows), np.int64, len(rows))
        grade = np.fromiter(
            (UNSURE if r[3] is None else r[3] for r in rows), np.int8, len(rows)
        )
        key = (self.positions(candidate) << USER_BITS) | user
        order = np.lexsort((judgment, key))  # by key, newest last
        last = order[np.r_[key[order][1:] != key[order][:-1], True]]
        key, judgment, grade = key[last], judgment[last], grade[last]
        at = np.searchsorted(self.row_key, key)
        found = at < len(self.row_key)
        found[found] = self.row_key[at[found]] == key[found]
        newer = found.copy()
        newer[found] = judgment[found] > self.row_judgment[at[found]]
        self.row_judgment[at[newer]] = judgment[newer]
        self.row_grade[at[newer]] = grade[newer]
        fresh = ~found
        self.row_key = np.insert(self.row_key, at[fresh], key[fresh])
        self.row_judgment = np.insert(self.row_judgment, at[fresh], judgment[fresh])
        self.row_grade = np.insert(self.row_grade, at[fresh], grade[fresh])
        changed = newer | fresh
        notes = [rows[i][4] or "" for i in last[changed]]
        for k, note in zip(key[changed].tolist(), notes, strict=True):
            if note:
                self.notes[k] = note
            else:
                self.notes.pop(k, None)
        self.applied += int(changed.sum())
        return np.unique(key[changed] >> USER_BITS)

    def rows_of(self, queries: np.ndarray) -> np.ndarray:
        """The row indexes of the candidates of ``queries`` (sorted query indexes)."""
        starts = self.query_start[queries] << USER_BITS
        ends = self.query_start[queries + 1] << USER_BITS
        low = np.searchsorted(self.row_key, starts)
        high = np.searchsorted(self.row_key, ends)
        return _ranges(low, high)

    # -- count tables ----------------------------------------------------------------------

    def count(self, queries: np.ndarray | None = None) -> None:
        """Count the tables again for ``queries`` (query indexes; every query when None)."""
        every = queries is None
        n_queries = len(self.query_ids)
        if every:
            queries = np.arange(n_queries)
            rows = np.arange(len(self.row_key))
            self.counts = np.zeros((len(self.candidate_ids), SIZE + 1), np.int32)
            self.coincidence = np.zeros((n_queries, SIZE * SIZE))
            self.pairs, self.presence = {}, {}
        else:
            queries = np.unique(queries)
            rows = self.rows_of(queries)
            places = _ranges(self.query_start[queries], self.query_start[queries + 1])
            self.counts[places] = 0
            self.coincidence[queries] = 0
            for table in self.presence.values():
                table[queries] = 0
        position = self.row_key[rows] >> USER_BITS
        user = self.row_key[rows] & ((1 << USER_BITS) - 1)
        grade = self.row_grade[rows].astype(np.int64)
        cells, n = np.unique(position * (SIZE + 1) + grade, return_counts=True)
        self.counts.reshape(-1)[cells] += n.astype(np.int32)
        query = self.candidate_query[position]
        for person in np.unique(user).tolist():
            mine = user == person
            table = self.presence.setdefault(person, np.zeros(n_queries, np.int32))
            table += np.bincount(query[mine], minlength=n_queries).astype(np.int32)
        self._coincidence(np.unique(position))
        self._pairs(queries, position, user, grade, every)

    def _coincidence(self, places: np.ndarray) -> None:
        """Each query's share of alpha's coincidence matrix, from its candidates' counts,
        as ``agreement._alpha_parts`` counts it."""
        values = self.counts[places, :SIZE].astype(float)
        m = values.sum(axis=1)
        keep = m >= 2
        values, m, places = values[keep], m[keep], places[keep]
        pairs = values[:, :, None] * values[:, None, :]
        pairs[:, np.arange(SIZE), np.arange(SIZE)] -= values
        units = (pairs / (m - 1)[:, None, None]).reshape(len(values), SIZE * SIZE)
        np.add.at(self.coincidence, self.candidate_query[places], units)

    def _pairs(self, queries, position, user, grade, every: bool) -> None:
        """Each pair's confusion counts per query, for the rows of ``queries``: every two
        people who graded one candidate, the first by name on the rows."""
        people = sorted(self.names, key=self.names.get)
        rank = np.full(max([*people, int(user.max(initial=0))]) + 1, -1)
        rank[people] = np.arange(len(people))
        graded = grade < SIZE
        position, user, grade = position[graded], user[graded], grade[graded]
        before = {}
        if not every:
            for pair, table in self.pairs.items():
                before[pair] = table[queries].any(axis=1)
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
        found: set[tuple[int, int]] = set()
        if parts:
            a, b, where, cell = (np.concatenate(column) for column in zip(*parts, strict=True))
            code = a * len(rank) + b
            n_queries = len(self.query_ids)
            for one in np.unique(code).tolist():
                pair = (one // len(rank), one % len(rank))
                mine = code == one
                table = self.pairs.setdefault(pair, np.zeros((n_queries, SIZE * SIZE), np.int32))
                np.add.at(table, (where[mine], cell[mine]), 1)
                found.add(pair)
        for pair in set(found) | {p for p, was in before.items() if was.any()}:
            self.pair_version[pair] = self.pair_version.get(pair, 0) + 1

    # -- saved -----------------------------------------------------------------------------

    def payload(self) -> bytes:
        """The grades as numpy arrays (no pickles): candidate ids, not positions, since a
        top-up moves positions."""
        buffer = io.BytesIO()
        notes = list(self.notes.items())
        np.savez(
            buffer,
            candidate=self.candidate_ids[self.row_key >> USER_BITS],
            user=self.row_key & ((1 << USER_BITS) - 1),
            judgment=self.row_judgment,
            grade=self.row_grade,
            note_candidate=self.candidate_ids[np.array([k for k, _ in notes], np.int64) >> 32],
            note_user=np.array([k & ((1 << USER_BITS) - 1) for k, _ in notes], np.int64),
            note=np.array([n for _, n in notes], dtype=str),
        )
        return buffer.getvalue()

    def load(self, payload: bytes) -> bool:
        """The grades of a saved ``payload``; False when it names a candidate no longer in
        the pool."""
        saved = np.load(io.BytesIO(payload), allow_pickle=False)
        known = set(self.candidate_ids.tolist())
        if not set(saved["candidate"].tolist()) <= known:
            return False
        key = (self.positions(saved["candidate"]) << USER_BITS) | saved["user"]
        order = np.argsort(key)
        self.row_key, self.row_judgment = key[order], saved["judgment"][order]
        self.row_grade = saved["grade"][order]
        note_key = (self.positions(saved["note_candidate"]) << USER_BITS) | saved["note_user"]
        self.notes = dict(zip(note_key.tolist(), saved["note"].tolist(), strict=True))
        return True


def _ranges(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The integers of every range [low, high), concatenated."""
    lengths = high - low
    if not lengths.sum():
        return np.zeros(0, np.int64)
    starts = np.repeat(low - np.cumsum(np.r_[0, lengths[:-1]]), lengths)
    return starts + np.arange(lengths.sum())


# -- keeping up --------------------------------------------------------------------------------

_KEPT: dict[tuple[str, int], Kept] = {}
_KEPT_LOCK = threading.Lock()


def _candidates(pool, session) -> Kept:
    """A ``Kept`` with the pool's candidates and queries and no grades yet."""
    rows = sorted(records.pool_candidates(pool, session=session), key=lambda r: (r[2], r[3]))
    query_ids = sorted({r[2] for r in rows})
    index = {q: i for i, q in enumerate(query_ids)}
    described = {q: (s, split) for q, s, split in records.pool_queries(pool, session=session)}
    candidate_query = np.array([index[r[2]] for r in rows], np.int64)
    candidate_ids = np.array([r[0] for r in rows], np.int64)
    return Kept(
        pool_id=pool.id,
        overlap=pool.overlap,
        candidate_ids=candidate_ids,
        chunk_ids=np.array([r[3] for r in rows], dtype=object),
        candidate_query=candidate_query,
        query_ids=query_ids,
        query_start=np.searchsorted(candidate_query, np.arange(len(query_ids) + 1)),
        slices=[described[q][0] for q in query_ids],
        splits=[described[q][1] for q in query_ids],
        position_of={(r[2], r[3]): i for i, r in enumerate(rows)},
        id_order=np.argsort(candidate_ids),
    )


def _decisions(kept: Kept, rows: list[tuple]) -> None:
    for decision_id, query_id, chunk_id, *decision in rows:
        key = (query_id, chunk_id)
        if decision_id > kept.decision_ids.get(key, 0):
            kept.decisions[key], kept.decision_ids[key] = tuple(decision), decision_id
        kept.adjudication_mark = max(kept.adjudication_mark, decision_id)


def _fresh(pool, session) -> Kept:
    """The pool's grades, from its checkpoint and the judgments since, or from scratch."""
    kept = _candidates(pool, session)
    kept.names = records.people(session=session)
    saved = records.checkpoint(pool, session=session)
    if (
        saved is not None
        and records.judgments_up_to(saved.judgment_mark - records.LAG, session=session)
        == saved.judgments_seen
        and kept.load(saved.payload)
    ):
        kept.judgment_mark, kept.seen = saved.judgment_mark, saved.judgments_seen
        kept.saved, kept.applied = time.monotonic(), 0
        kept.count()
        _catch_up(kept, pool, session)
    else:
        newest = records.newest_judgment(session=session)
        kept.apply(records.judgments_since(pool, 0, session=session))
        kept.judgment_mark = newest
        kept.seen = records.judgments_up_to(newest - records.LAG, session=session)
        kept.count()
        kept.applied = max(kept.applied, SAVE_AFTER)  # counted from scratch: saved at once
    _decisions(kept, records.decisions_since(pool, 0, session=session))
    return kept


def _catch_up(kept: Kept, pool, session) -> None:
    """Apply the judgments since the mark (and ``LAG`` before it) and count the queries
    they touched again."""
    newest = records.newest_judgment(session=session)
    changed = kept.apply(records.judgments_since(pool, kept.judgment_mark - records.LAG, session=session))
    kept.judgment_mark = max(newest, kept.judgment_mark)
    kept.seen = records.judgments_up_to(kept.judgment_mark - records.LAG, session=session)
    if len(changed):
        kept.count(np.unique(kept.candidate_query[changed]))


def _unchanged_below(kept: Kept, session) -> bool:
    """No judgment appeared below the mark's lag since the last count (one that committed
    late, or a database restored from a copy)."""
    seen = records.judgments_up_to(kept.judgment_mark - records.LAG, session=session)
    return seen == kept.seen


def kept_grades(engine, pool_name: str) -> Kept:
    """Pool ``pool_name``'s grades and count tables, brought up to date: read in a snapshot
    (never the write lock), so annotators' keys go on meanwhile. Raises ``NotFound`` for
    an unknown pool."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        key = (engine.url.render_as_string(hide_password=True), pool.id)
        with _KEPT_LOCK:
            kept = _KEPT.get(key)
            if kept is None:
                kept = _KEPT[key] = _fresh(pool, session)
        with kept.lock:
            kept.names = records.people(session=session)
            if records.candidate_count(pool, session=session) != len(
                kept.candidate_ids
            ) or not _unchanged_below(kept, session):
                kept = _KEPT[key] = _fresh(pool, session)  # a top-up, or the history moved
            else:
                _catch_up(kept, pool, session)
                _decisions(
                    kept,
                    records.decisions_since(
                        pool, kept.adjudication_mark - records.LAG, session=session
                    ),
                )
            due = kept.applied >= SAVE_AFTER or (
                kept.applied and time.monotonic() - kept.saved > SAVE_EVERY
            )
    if due:
        _save(engine, pool_name, kept)
    return kept


def _save(engine, pool_name: str, kept: Kept) -> None:
    with kept.lock:
        payload, marks = kept.payload(), (kept.judgment_mark, kept.seen, kept.adjudication_mark)
        kept.applied, kept.saved = 0, time.monotonic()
    with session_scope(engine) as session:
        records.save_checkpoint(
            get_pool(pool_name, session=session),
            session=session,
            judgment_mark=marks[0],
            seen=marks[1],
            adjudication_mark=marks[2],
            payload=payload,
        )


def forget() -> None:
    """Drop every pool's kept grades from this process (as a restart would)."""
    with _KEPT_LOCK:
        _KEPT.clear()


# -- figures -----------------------------------------------------------------------------------


def _statuses(kept: Kept, policy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The judged positions and their status, severity and agreed grade (-1 for none), as
    ``pooling.resolution.statuses`` decides them, from the candidates' counts."""
    check_policy(policy)
    judged = np.flatnonzero(kept.counts.sum(axis=1))
    counts = kept.counts[judged]
    grades = counts[:, :SIZE]
    graded = grades.sum(axis=1)
    unsure = counts[:, UNSURE] > 0
    given = grades > 0
    low = np.argmax(given, axis=1)
    high = SIZE - 1 - np.argmax(given[:, ::-1], axis=1)
    median = np.argmax(np.cumsum(grades, axis=1) > ((graded - 1) // 2)[:, None], axis=1)
    split = POLICIES[policy](low, high) & (graded > 0)
    status = np.select(
        [unsure, counts.sum(axis=1) < kept.overlap, split],
        ["unsure", "incomplete", "disagree"],
        "agreed",
    ).astype(object)
    severity = np.where(unsure, 4, np.where(graded > 0, high - low, 0))
    auto = np.where(status == "agreed", median, -1)
    return judged, status, severity, auto


def _decided(kept: Kept, judged: np.ndarray) -> np.ndarray:
    """Which of the ``judged`` positions a lead decided."""
    places = [kept.position_of[k] for k in kept.decisions if k in kept.position_of]
    return np.isin(judged, np.array(places, np.int64))


def _groups(kept: Kept, by: str | None) -> dict[str, np.ndarray]:
    """The queries (a mask) of each group, among those with a judgment, as
    ``pooling.grouping.groups`` makes them."""
    judged = np.zeros(len(kept.query_ids), bool)
    for table in kept.presence.values():
        judged |= table > 0
    if by is None:
        return {"all": judged}
    check_name(by, GROUPINGS, "what_grouping")
    found: dict[str, np.ndarray] = {}
    for q in np.flatnonzero(judged).tolist():
        names = [kept.splits[q]] if by == "split" else kept.slices[q]
        for name in names:
            if name is not None:
                found.setdefault(name, np.zeros(len(kept.query_ids), bool))[q] = True
    return {f"{by}:{name}": found[name] for name in sorted(found)}


def _report(kept: Kept, group: str, queries: np.ndarray, rounds: int) -> AgreementReport:
    people = sorted(
        (kept.names[u] for u, table in kept.presence.items() if table[queries].any()),
    )
    ids = {name: u for u, name in kept.names.items()}
    judged = kept.counts.sum(axis=1) > 0
    items = int((judged & queries[kept.candidate_query]).sum())
    shares = kept.coincidence[queries]
    alpha = bootstrap_shares(krippendorff_alpha, shares[shares.any(axis=1)], rounds)
    pairs = []
    for first, second in itertools.combinations(people, 2):
        pair = (ids[first], ids[second])
        version = kept.pair_version.get(pair, 0)
        held = kept.kept_pairs.get((group, pair, rounds))
        if held is None or held[0] != version:
            table = kept.pairs.get(pair)
            shares = (
                np.zeros((0, SIZE * SIZE)) if table is None else table[queries].astype(float)
            )
            figure = pair_of_shares((first, second), shares[shares.any(axis=1)], rounds)
            held = kept.kept_pairs[(group, pair, rounds)] = version, figure
        pairs.append(held[1])
    return AgreementReport(group=group, annotators=people, items=items, alpha=alpha, pairs=pairs)


def _versus_final(kept: Kept, policy: str) -> pd.DataFrame:
    """Each person's quadratic kappa against the final grades, before and after
    adjudication, as ``adjudication.versus_final`` gives it."""
    judged, status, _, auto = _statuses(kept, policy)
    decided = _decided(kept, judged)
    before = np.full(len(kept.candidate_ids), -1)
    before[judged] = np.where(decided, -1, auto)
    after = before.copy()
    for key, decision in kept.decisions.items():
        place = kept.position_of.get(key)
        if place is not None and kept.counts[place].sum():
            after[place] = int(decision[0])
    position = kept.row_key >> USER_BITS
    user = kept.row_key & ((1 << USER_BITS) - 1)
    graded = kept.row_grade < SIZE
    rows = []
    for person in sorted((u for u in np.unique(user[graded]).tolist()), key=kept.names.get):
        mine = graded & (user == person)
        row: dict[str, object] = {"annotator": kept.names[person]}
        for label, finals in (("before", before), ("after", after)):
            final = finals[position[mine]]
            had = final >= 0
            grades = kept.row_grade[mine][had].astype(int)
            row[label] = kappa_of(np.asarray(confusion(grades, final[had])), "quadratic")
        rows.append(row)
    return pd.DataFrame(rows, columns=["annotator", "before", "after"])


def pool_agreement(
    engine, pool_name: str, policy: str, by: str | None = None, rounds: int = PAGE_ROUNDS
) -> PoolAgreement:
    """``pool_quality.pool_agreement`` from the kept tables: the same figures, costing what
    changed since the last view."""
    kept = kept_grades(engine, pool_name)
    with kept.lock:
        check_policy(policy)
        reports = [_report(kept, g, q, rounds) for g, q in _groups(kept, by).items()]
        return PoolAgreement(reports, _versus_final(kept, policy))


def pool_queue(engine, pool_name: str, policy: str) -> Queue:
    """``pool_quality.pool_queue`` from the kept tables. Its table has no columns of who
    said what (half a million dicts at L): ``adjudication.with_details`` adds them to the
    rows shown; the annotator filter reads ``people``, a bit per name of
    ``Queue.annotators``."""
    kept = kept_grades(engine, pool_name)
    with kept.lock:
        judged, status, severity, auto = _statuses(kept, policy)
        status[_decided(kept, judged)] = "adjudicated"
        order = np.lexsort((judged, -severity))
        judged, status, severity, auto = judged[order], status[order], severity[order], auto[order]
        position = kept.row_key >> USER_BITS
        user = kept.row_key & ((1 << USER_BITS) - 1)
        graded = kept.row_grade < SIZE
        annotators = sorted({kept.names[u] for u in np.unique(user[graded]).tolist()})
        bit = {name: i for i, name in enumerate(annotators)}
        masks = np.zeros(len(kept.candidate_ids), dtype=object if len(bit) > 62 else np.int64)
        for person in np.unique(user).tolist():
            name = kept.names.get(person)
            mine = np.unique(position[user == person])
            if name in bit:
                masks[mine] = masks[mine] | (1 << bit[name])
        query = kept.candidate_query[judged]
        table = pd.DataFrame(
            {
                "query_id": np.array(kept.query_ids, dtype=object)[query],
                "chunk_id": kept.chunk_ids[judged],
                "status": status,
                "severity": severity,
                "auto_grade": np.where(auto >= 0, auto, None).astype(object),
                "slices": pd.Series([kept.slices[q] for q in query.tolist()], dtype=object),
                "people": masks[judged],
            }
        )
        tags = sorted({t for q in np.unique(query).tolist() for t in kept.slices[q]})
        return Queue(
            table,
            dict(kept.decisions),
            annotators,
            tags,
            [kept.query_ids[q] for q in np.unique(query).tolist()],
            details=_details(kept),
        )


def _details(kept: Kept) -> Callable[[list[tuple[str, str]]], list[tuple[dict, dict, list]]]:
    def details(keys: list[tuple[str, str]]) -> list[tuple[dict, dict, list]]:
        """Who gave which grade, their notes and who was unsure, per candidate ``key``."""
        found = []
        with kept.lock:
            for key in keys:
                place = kept.position_of[key]
                low = np.searchsorted(kept.row_key, place << USER_BITS)
                high = np.searchsorted(kept.row_key, (place + 1) << USER_BITS)
                grades, notes, unsure = {}, {}, []
                for at in range(low, high):
                    row_key = int(kept.row_key[at])
                    name = kept.names.get(row_key & ((1 << USER_BITS) - 1), "")
                    grade = int(kept.row_grade[at])
                    if grade == UNSURE:
                        unsure.append(name)
                    else:
                        grades[name] = grade
                    if kept.notes.get(row_key):
                        notes[name] = kept.notes[row_key]
                found.append(
                    (dict(sorted(grades.items())), dict(sorted(notes.items())), sorted(unsure))
                )
        return found

    return details


__all__ = ["Figure", "forget", "kept_grades", "pool_agreement", "pool_queue"]
