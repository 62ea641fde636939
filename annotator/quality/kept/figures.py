"""The lead's agreement figures and adjudication queue, and what the Team progress and Pools
figures are counted from, kept up to date instead of counted again from every judgment
(issue 27).

Per pool, this process keeps the current human grade of every (candidate, person), and
from it small count tables: per candidate its grades (0-3, unsure), per query the
coincidence of grades (Krippendorff's alpha), and per pair of people and query their
confusion counts; and for the Team progress figures, each assignment's current judgment in
the pool's app and when each person first judged each candidate (``kept.progress_rows``).
A view reads the judgments written since the last one (ids above a
mark, ``storage.figure_records``), applies them, counts the queries they touched again and
derives the figures from the tables: a bootstrap interval resamples the pairs' per-query
tables (one draw of a group's queries for all its pairs), never judgments, and a group's
pair figures are kept until a pair's table changes. So a view
costs what changed since the one before, and a display choice (a kappa, a pair, a policy,
a grouping) is drawn from the same tables.

The grades are saved in the database now and then (``storage.figure_tables``), so the
first view after a restart reads them and the judgments since, instead of them all. The
figures are exactly those of ``pool_quality.pool_agreement`` and ``pool_queue``, which
count from scratch; the tests pin the two equal. No Streamlit in here.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from annotator.quality.adjudication import Queue
from annotator.quality.agreement import (
    PAGE_ROUNDS,
    AgreementReport,
    Figure,
    bootstrap_shares,
    kappa_of,
    krippendorff_alpha,
    pairs_of_shares,
)
from annotator.quality.kept import views
from annotator.quality.kept.current_grades import (
    SIZE,
    UNSURE,
    USER_BITS,
    USER_MASK,
    Kept,
    Places,
    SavedCandidates,
    Systems,
    distinct_codes,
    saved_candidates,
)
from annotator.quality.kept.views import CELLS, GRADED
from annotator.quality.pool_quality import PoolAgreement
from pooling.grades import check_policy
from pooling.grouping import GROUPINGS
from pooling.i18n import check_name
from storage import figure_records as records
from storage import gold_records
from storage.counts import SEPARATOR
from storage.db import session_scope, snapshot_scope
from storage.pool_records import get_pool

SAVE_AFTER = 20_000  # judgments applied before the grades are saved again
SAVE_EVERY = 300  # ... or seconds since they were saved, when anything was applied

# -- keeping up --------------------------------------------------------------------------------

_KEPT: dict[tuple[str, int], Kept] = {}
_KEPT_LOCK = threading.Lock()


def _candidates(pool, session, saved: SavedCandidates | None) -> Kept:
    """A ``Kept`` with the pool's candidates and queries and no grades yet: those ``saved``
    with the checkpoint while they are still the pool's, else read from the database."""
    if saved is not None and (
        len(saved.candidate_ids),
        int(saved.candidate_ids.max(initial=0)),
    ) == records.candidate_mark(pool, session=session):
        candidate_ids, candidate_query = saved.candidate_ids, saved.candidate_query
        query_ids, chunk_ids = saved.query_ids, saved.chunk_ids
    else:
        rows = sorted(records.pool_candidates(pool, session=session), key=lambda r: (r[2], r[3]))
        query_ids = sorted({r[2] for r in rows})
        index = {q: i for i, q in enumerate(query_ids)}
        candidate_query = np.array([index[r[2]] for r in rows], np.int64)
        candidate_ids = np.array([r[0] for r in rows], np.int64)
        chunk_ids = np.empty(len(rows), dtype=object)
        chunk_ids[:] = [r[3] for r in rows]
    described = {q: (s, split) for q, s, split in records.pool_queries(pool, session=session)}
    query_start = np.searchsorted(candidate_query, np.arange(len(query_ids) + 1))
    return Kept(
        pool_id=pool.id,
        overlap=pool.overlap,
        candidate_ids=candidate_ids,
        chunk_ids=chunk_ids,
        candidate_query=candidate_query,
        query_ids=query_ids,
        query_start=query_start,
        slices=[described[q][0] for q in query_ids],
        splits=[described[q][1] for q in query_ids],
        position_of=Places(query_ids, query_start, chunk_ids),
        id_order=np.argsort(candidate_ids),
    )


def _gold(kept: Kept, pool, session) -> np.ndarray:
    """Read the pool's gold items; returns the queries whose candidates became or stopped
    being gold (their agreement tables to count again)."""
    gold = np.zeros(len(kept.candidate_ids), bool)
    for item in gold_records.items(pool, session=session):
        place = kept.position_of.get((item.query_id, item.chunk_id))
        if place is not None:
            gold[place] = True
    flipped = np.flatnonzero(gold != kept.gold) if len(kept.gold) == len(gold) else None
    kept.gold = gold
    if flipped is None:
        return np.arange(len(kept.query_ids))
    return np.unique(kept.candidate_query[flipped])


def _decisions(kept: Kept, rows: list[tuple]) -> None:
    for decision_id, query_id, chunk_id, *decision in rows:
        key = (query_id, chunk_id)
        if decision_id > kept.decision_ids.get(key, 0):
            kept.decisions[key], kept.decision_ids[key] = tuple(decision), decision_id
        kept.adjudication_mark = max(kept.adjudication_mark, decision_id)


def _fresh(pool, session) -> Kept:
    """The pool's grades, from its checkpoint and the judgments since, or from scratch."""
    saved = records.checkpoint(pool, session=session)
    held = None if saved is None else saved_candidates(saved.payload)
    kept = _candidates(pool, session, held)
    kept.names = records.people(session=session)
    if (
        saved is not None
        and records.judgments_up_to(saved.judgment_mark - records.LAG, session=session)
        == saved.judgments_seen
        and kept.load(saved.payload)
    ):
        kept.judgment_mark, kept.seen = saved.judgment_mark, saved.judgments_seen
        kept.saved, kept.applied = time.monotonic(), 0
        if (
            held is not None
            and held.candidate_ids is kept.candidate_ids
            and kept.load_tables(saved.payload)
        ):  # the saved positions are the pool's: only what changed since is counted
            kept.systems = held.systems
            moved = _gold(kept, pool, session)
            if len(moved):
                kept.count(moved)
        else:
            _gold(kept, pool, session)
            kept.count()
        _catch_up(kept, pool, session)
    else:
        _gold(kept, pool, session)
        newest = records.newest_judgment(session=session)
        kept.apply(records.judgments_since(pool, 0, session=session))
        kept.app.apply(records.app_judgments_since(pool, 0, session=session))
        kept.judgment_mark = newest
        kept.seen = records.judgments_up_to(newest - records.LAG, session=session)
        _below_the_lag(kept, session)
        kept.count()
        current_systems(kept, pool, session)  # counted once with the rest, then saved
        kept.applied = max(kept.applied, SAVE_AFTER)  # counted from scratch: saved at once
    _decisions(kept, records.decisions_since(pool, 0, session=session))
    return kept


def _catch_up(kept: Kept, pool, session) -> None:
    """Apply the judgments since the mark (and ``LAG`` before it) and count the queries
    they touched again. ``kept.seen`` must hold at the mark (checked in this snapshot).
    The lag is read again only when a judgment appeared in it since the last count (as
    many there as then: judgments are never changed or deleted); else only the ids above
    the mark are new, and when there are none nothing is read."""
    newest = records.newest_judgment(session=session)
    top = kept.judgment_mark - records.LAG
    lag_unchanged = (
        kept.checked is not None
        and kept.checked[1] == top
        and records.judgments_up_to(kept.judgment_mark, after=top, session=session)
        == kept.checked[3]
    )
    if lag_unchanged and newest == kept.judgment_mark:
        return
    # Reading the lag's 5,000 judgments again at every view cost 65 ms at L (issue 41).
    after = kept.judgment_mark if lag_unchanged else top
    changed = kept.apply(records.judgments_since(pool, after, session=session))
    kept.applied += kept.app.apply(records.app_judgments_since(pool, after, session=session))
    mark = max(newest, kept.judgment_mark)
    kept.seen += records.judgments_up_to(mark - records.LAG, after=top, session=session)
    kept.judgment_mark = mark
    _below_the_lag(kept, session)
    if len(changed):
        kept.count(np.unique(kept.candidate_query[changed]))


def _below_the_lag(kept: Kept, session) -> None:
    """Count the judgments below the mark's lag (from ``records.checked_from``), and of
    those from it to the mark: what the next view checks again (``_unchanged_below``,
    ``_catch_up``)."""
    top = kept.judgment_mark - records.LAG
    low = records.checked_from(top, session=session)
    # From the first id (always on PostgreSQL) that count is ``kept.seen``, just counted
    # or checked in this snapshot: counting a million judgments again took 0.2 s a view.
    below = kept.seen if low <= 0 else records.judgments_up_to(top, after=low, session=session)
    lag = records.judgments_up_to(kept.judgment_mark, after=top, session=session)
    kept.checked = (low, top, below, lag)
    kept.in_flight = records.in_flight(session=session)


def _unchanged_below(kept: Kept, session) -> bool:
    """No judgment appeared below the mark's lag since the last count (one that committed
    late, or a database restored from a copy): counted again from ``checked_from`` (on
    SQLite the ``CHECKED`` ids below it, not a million at L); over all of them when the
    last count was not at this mark. A restart checks them all against the checkpoint."""
    top = kept.judgment_mark - records.LAG
    if records.newest_judgment(session=session) < kept.judgment_mark:
        return False  # ids went back: another database
    if kept.checked is not None and kept.checked[1] == top:
        low, _, found, _ = kept.checked
        # On PostgreSQL a judgment can appear below the lag only from a transaction open
        # at the last count: while none of those committed, nothing did (counting a
        # million ids was most of the database's time for a lead's view at L).
        unchanged = (
            kept.in_flight is not None
            and not records.any_committed(kept.in_flight, session=session)
        ) or records.judgments_up_to(top, after=low, session=session) == found
    else:
        unchanged = records.judgments_up_to(top, session=session) == kept.seen
    if unchanged:
        kept.in_flight = records.in_flight(session=session)
    return unchanged


def _updated(kept: Kept, pool, session) -> Kept:
    """``kept`` brought up to date; counted afresh after a top-up, or when the history
    moved."""
    if records.candidate_count(pool, session=session) != len(
        kept.candidate_ids
    ) or not _unchanged_below(kept, session):
        return _fresh(pool, session)
    kept.names = records.people(session=session)
    moved = _gold(kept, pool, session)
    if len(moved):
        kept.count(moved)
    _catch_up(kept, pool, session)
    after = kept.adjudication_mark - records.LAG
    _decisions(kept, records.decisions_since(pool, after, session=session))
    return kept


def current_systems(kept: Kept, pool, session) -> Systems:
    """Which systems found each of the pool's candidates (the Pools figures): those kept,
    until a candidate source is added; then read again, and saved with the grades."""
    newest = records.newest_source(session=session)
    with kept.lock:
        if kept.systems is None or kept.systems.mark != newest:
            rows = records.candidate_systems(pool, session=session)
            named = [tuple(sorted(systems.split(SEPARATOR))) for _, systems in rows]
            ids = np.array([candidate for candidate, _ in rows], np.int64)
            at = kept.positions(ids) if len(ids) else ids
            kept.systems = Systems.of(newest, at, named, len(kept.candidate_ids))
            kept.applied = max(kept.applied, 1)  # saved at the next save
        return kept.systems


def kept_grades(engine, pool_name: str) -> Kept:
    """Pool ``pool_name``'s grades and count tables, brought up to date: read in a snapshot
    (never the write lock), so annotators' keys go on meanwhile. Raises ``NotFound`` for
    an unknown pool."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        key = (engine.url.render_as_string(hide_password=True), pool.id)
        with _KEPT_LOCK:
            held = _KEPT.get(key)
            kept = _KEPT[key] = _fresh(pool, session) if held is None else held
        with kept.lock:
            if held is not None:  # else read afresh just now (after a restart): up to date
                kept = _KEPT[key] = _updated(kept, pool, session)
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
    judged = (kept.counts.sum(axis=1) > 0) & ~kept.gold
    items = int((judged & queries[kept.candidate_query]).sum())
    shares = kept.coincidence[queries]
    alpha = bootstrap_shares(krippendorff_alpha, shares[shares.any(axis=1)], rounds)
    named = list(itertools.combinations(people, 2))
    keys = [(ids[first], ids[second]) for first, second in named]
    # The pairs' figures share their draws (``pairs_of_shares``): kept until any pair's
    # table changes.
    versions = tuple(kept.pair_version.get(pair, 0) for pair in keys)
    held = kept.kept_pairs.get((group, rounds))
    if held is None or held[0] != (keys, versions):
        places, shares = [], []
        for pair in keys:
            table = kept.pairs.get(pair)
            mine = np.zeros((0, SIZE * SIZE), np.int32) if table is None else table[queries]
            place = np.flatnonzero(mine.any(axis=1))
            places.append(place)
            shares.append(mine[place].astype(float))
        figures = pairs_of_shares(named, places, shares, rounds)
        held = kept.kept_pairs[(group, rounds)] = (keys, versions), figures
    return AgreementReport(group=group, annotators=people, items=items, alpha=alpha, pairs=held[1])


def _versus_final(kept: Kept, policy: str) -> pd.DataFrame:
    """Each person's quadratic kappa against the final grades, before and after
    adjudication, as ``adjudication.versus_final`` gives it: from per-query counts
    brought up to date for what changed since the last view."""
    totals = views.versus(kept, policy)
    people = sorted((p for p, t in totals.items() if t[GRADED]), key=lambda p: kept.names[p])
    rows = [
        {
            "annotator": kept.names[person],
            "before": kappa_of(totals[person][:CELLS].reshape(SIZE, SIZE), "quadratic"),
            "after": kappa_of(totals[person][CELLS:GRADED].reshape(SIZE, SIZE), "quadratic"),
        }
        for person in people
    ]
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
    ``Queue.annotators``. Statuses and query ids are categorical: built from codes, not
    half a million strings."""
    kept = kept_grades(engine, pool_name)
    with kept.lock:
        found = views.statuses(kept, policy)
        status = views.settled(kept, found)
        judged = np.flatnonzero(status >= 0)
        # Most severe first, then in position (query, chunk id) order: a stable sort.
        judged = judged[np.argsort(-found.severity[judged], kind="stable")]
        user = kept.row_key & USER_MASK
        graders = distinct_codes(user[kept.row_grade < SIZE])
        annotators = sorted({kept.names[u] for u in graders})
        query = kept.candidate_query[judged]
        columns = _columns(kept)
        table = pd.DataFrame(
            {
                "query_id": pd.Categorical.from_codes(query, dtype=columns["query_id"]),
                "chunk_id": columns["chunk_id"].take(judged),
                "status": pd.Categorical.from_codes(status[judged], dtype=columns["status"]),
                "severity": found.severity[judged].astype(np.int64),
                "auto_grade": _or_none(found.auto[judged]),
                "slices": columns["slices"][query],
                "people": views.people_masks(kept, annotators)[judged],
            }
        )
        present = np.flatnonzero(np.bincount(query, minlength=len(kept.query_ids)))
        tags = sorted({t for q in present.tolist() for t in kept.slices[q]})
        return Queue(
            table,
            dict(kept.decisions),
            annotators,
            tags,
            [kept.query_ids[q] for q in present.tolist()],
            details=_details(kept),
        )


def _columns(kept: Kept) -> dict:
    """What the queue's columns are taken from, made once per kept grades: the chunk ids
    as a string array, the query ids and statuses as categories, each query's slices (an
    object array, one list each). Converting half a million ids at every view took most
    of one."""
    found = kept.derived.get(("columns",))
    if found is None:
        slices = np.empty(len(kept.slices), dtype=object)
        for q, tags in enumerate(kept.slices):
            slices[q] = tags
        found = kept.derived[("columns",)] = {
            "chunk_id": pd.array(kept.chunk_ids, dtype="str"),
            "query_id": pd.CategoricalDtype(kept.query_ids),
            "status": pd.CategoricalDtype(views.STATUSES),
            "slices": slices,
        }
    return found


def _or_none(grades: np.ndarray) -> np.ndarray:
    """``grades`` as Python ints, None where negative (no agreed grade)."""
    found = grades.astype(object)
    found[grades < 0] = None
    return found


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
                    name = kept.names.get(row_key & USER_MASK, "")
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
