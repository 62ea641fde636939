"""Counts kept as judgment slots change, so that a keypress on the labeling page reads a few
rows instead of counting the pool or the annotator's history.

- ``pool_candidate.held``: the candidate's slots held or judged;
- ``query_tally`` per pool and query: candidates, asked (an active pool's chosen ones and
  every candidate of a fixed pool), slots needed, slots held, ``open`` candidates (a
  free slot) and ``complete`` ones (asked, with the pool's overlap of human judges);
- ``annotator_tally`` per pool and annotator: ``done`` (items judged), ``waiting`` (items
  they hold, judged or found, whose candidate still has a free slot: open to others, not to
  them) and the query of the item they took last.

A candidate needs ``required`` judgments, else the pool's overlap; it is open while it
holds fewer slots than that. So what is open to an annotator in a pool is
``sum(open) - waiting``, counted without reading a single candidate.

Every change of a slot or of what a candidate needs goes through ``apply`` (or
``candidates_added`` for new candidates) in the transaction that makes it. Rows are updated
in one order (candidates, then queries, then annotators, each by id), so that concurrent
transactions on PostgreSQL wait for each other instead of deadlocking; a candidate is locked
FOR NO KEY UPDATE, which does not wait for the key-share lock that inserting an assignment
takes on it (FOR UPDATE would, and two annotators claiming one candidate deadlocked).
``recount`` computes every tally from scratch, as the migration that introduced them did in
SQL; the tests check that the kept tallies equal it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Select, bindparam, case, delete, func, insert, tuple_, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, select

from storage import annotator_tallies
from storage.db import upsert_insert
from storage.models import (
    AnnotatorTally,
    Assignment,
    Judgment,
    Pool,
    PoolCandidate,
    QueryTally,
    User,
)

NO_SYNC = {"synchronize_session": False}
FIELDS = ("candidates", "asked", "slots", "held", "open", "complete")  # a query's tally


@dataclass(frozen=True)
class SlotChange:
    """What happened to one candidate: who took a slot (``finders`` among them: their found
    row, counted as waiting while the candidate was open, holds it now), who gave one up,
    and what it needs now when that changed (None: unchanged)."""

    candidate_id: int
    takers: tuple[int, ...] = ()
    finders: tuple[int, ...] = ()
    givers: tuple[int, ...] = ()
    required: int | None = None
    set_required: bool = False  # ``required`` is the new value, even when None


def _needed(required: int | None, overlap: int) -> int:
    return overlap if required is None else required


def _ensure(session: Session, model, rows: list[dict]) -> None:
    """Insert the tally rows that are missing (keys as given), leaving existing ones."""
    if not rows:
        return
    # Many rows as parameters (executemany in pages), not one VALUES list: a pool of 10,000
    # queries would pass PostgreSQL's limit of 65,535 parameters in one statement.
    session.execute(upsert_insert(model, session=session).on_conflict_do_nothing(), rows)


def apply(
    pool: Pool,
    changes: Iterable[SlotChange],
    *,
    session: Session,
    took: tuple[int, int] | None = None,
) -> None:
    """Bring the tallies up to date with ``changes``, made to assignments (and to
    candidates' ``required``) earlier in this transaction; ``took`` is (user id, query
    key) when an annotator took an item: the query they took last."""
    last_query = {} if took is None else {(pool.id, took[0]): took[1]}
    apply_pools([(pool, list(changes))], session=session, last_query=last_query)


def apply_pools(
    per_pool: Iterable[tuple[Pool, list]],
    *,
    session: Session,
    done: Iterable = (),
    last_query: dict[tuple[int, int], int] | None = None,
) -> None:
    """``apply`` for the changes of several pools at once (one person's grade, counted in
    every pool holding its pair: ``storage.one_grade``), with ``done``'s (pool id, user id)
    one item judged more each, and ``last_query``'s (pool id, user id) now on that query.
    The rows are updated in one order over all pools (candidates, then queries, then
    annotators, each by pool and id), as one pool's are."""
    last_query = last_query or {}
    per_pool = list(per_pool)
    pools = {pool.id: pool for pool, _ in per_pool}
    changes = sorted(
        ((pool.id, c) for pool, pool_changes in per_pool for c in pool_changes),
        key=lambda pc: pc[1].candidate_id,
    )
    judged = Counter(done)
    if not changes and not judged and not last_query:
        return
    ids, pc = [change.candidate_id for _, change in changes], PoolCandidate
    locked = select(pc.id, pc.query_id, pc.held, pc.required, pc.judges).where(pc.id.in_(ids))
    locked = locked.order_by(pc.id).with_for_update(key_share=True)
    rows = {r.id: r for r in session.exec(locked)} if ids else {}
    per_query: dict[tuple[int, int], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    waiting: dict[tuple[int, int], int] = defaultdict(int)
    flipped: dict[int, int] = {}  # candidate -> change of "open" (+1 opened, -1 filled)
    in_pool: dict[int, int] = {}
    for pool_id, change in changes:
        overlap = pools[pool_id].overlap
        row = rows[change.candidate_id]
        held = row.held + len(change.takers) - len(change.givers)
        required = change.required if change.set_required else row.required
        before, after = _needed(row.required, overlap), _needed(required, overlap)
        was_open, is_open = row.held < before, held < after
        session.execute(
            update(PoolCandidate)
            .where(PoolCandidate.id == row.id)
            .values(held=held, required=required),
            execution_options=NO_SYNC,
        )
        tally = per_query[pool_id, row.query_id]
        tally["held"] += held - row.held
        tally["slots"] += after - before
        tally["asked"] += (after != 0) - (before != 0)
        tally["open"] += is_open - was_open
        if row.judges >= overlap:  # complete while asked about
            tally["complete"] += (after != 0) - (before != 0)
        for user in change.takers:
            waiting[pool_id, user] += is_open
        for user in (*change.givers, *change.finders):
            waiting[pool_id, user] -= was_open
        if is_open != was_open:
            flipped[row.id] = is_open - was_open
            in_pool[row.id] = pool_id
    if flipped:
        # Everyone else who holds, judged or found a candidate that filled up (or opened).
        movers = {c.candidate_id: {*c.takers, *c.givers} for _, c in changes}
        for candidate, user in session.execute(
            select(Assignment.candidate_id, Assignment.user_id).where(
                Assignment.candidate_id.in_(flipped), _counted_for_waiting()
            )
        ):
            if user not in movers[candidate]:
                waiting[in_pool[candidate], user] += flipped[candidate]
    for pool_id, query in sorted(per_query):
        session.execute(
            update(QueryTally)
            .where(QueryTally.pool_id == pool_id, QueryTally.query_id == query)
            .values({k: getattr(QueryTally, k) + v for k, v in per_query[pool_id, query].items()}),
            execution_options=NO_SYNC,
        )
    for pool_id, user in sorted(set(waiting) | set(judged) | set(last_query)):
        annotator_tallies.add(
            session,
            pool_id,
            user,
            done=judged[pool_id, user],
            waiting=waiting.get((pool_id, user), 0),
            last_query=last_query.get((pool_id, user)),
        )


def _counted_for_waiting():
    """An annotator's rows that take a candidate out of what is open to them."""
    return Assignment.slot.is_not(None) | Assignment.found_at.is_not(None)


def candidates_added(pool: Pool, added: Iterable[tuple[int, int | None]], *, session: Session):
    """Count new candidates, given as ``(query key, required)``; none holds a slot yet."""
    per_query: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for query, required in added:
        needed = _needed(required, pool.overlap)
        tally = per_query[query]
        tally["candidates"] += 1
        tally["slots"] += needed
        tally["asked"] += needed != 0
        tally["open"] += needed != 0
    queries = sorted(per_query)
    _ensure(session, QueryTally, [{"pool_id": pool.id, "query_id": q} for q in queries])
    for query in queries:
        session.execute(
            update(QueryTally)
            .where(QueryTally.pool_id == pool.id, QueryTally.query_id == query)
            .values({k: getattr(QueryTally, k) + v for k, v in per_query[query].items()}),
            execution_options=NO_SYNC,
        )


# -- reading ----------------------------------------------------------------------------


def open_candidates_in_pool(pool: Pool, *, session: Session) -> int:
    """Candidates with a free slot, in the whole pool."""
    total = select(func.coalesce(func.sum(QueryTally.open), 0)).where(QueryTally.pool_id == pool.id)
    return session.exec(total).one()


def queries(pool: Pool, *, session: Session) -> list[QueryTally]:
    """Every query's tally in the pool (lead pages and the choice of a next query)."""
    statement = select(QueryTally).where(QueryTally.pool_id == pool.id)
    return list(session.exec(statement.order_by(QueryTally.query_id)))


# -- human judges per candidate ----------------------------------------------------------
# ``pool_candidate.judges``: the distinct people (human annotators) with a judged row of
# the candidate in its pool: judged there, or graded elsewhere and counted there by the one
# grade per person per pair (``storage.one_grade``, under the rubric version in force). So
# a grade that gives no row in a pool (under another rubric version than the one in force
# when the pool's candidates were counted, or imported under another) is no judge there,
# and the app, which asks for what has no row, and ``qrels status`` agree. Per query the
# candidates that have the pool's overlap of them while asked about (``complete``), so that
# ``qrels status`` reads how many are complete from the query tallies, not every candidate.
#
# On PostgreSQL (READ COMMITTED) the candidates of a pair (or of an imported batch) are
# first locked in id order, before any row of theirs is written, and counted afresh by a
# later statement, whose snapshot then holds the rows of every transaction that held them
# before: one person's grades of a pair written at once (two tabs, an import beside the
# app) count once, and a large import takes its locks in the order a keypress does, so one
# waits for the other instead of deadlocking. SQLite's writers take turns.


def _human_judges():
    """The count ``judges`` keeps, from scratch: a correlated subquery on ``pool_candidate``."""
    return (
        select(func.count(func.distinct(Assignment.user_id)))
        .join(User, User.id == Assignment.user_id)
        .where(
            User.kind == "human",
            Assignment.candidate_id == PoolCandidate.id,
            Assignment.done_at.is_not(None),
        )
        .scalar_subquery()
    )


def _lock(session: Session, candidates: Select) -> int:
    """Lock ``candidates`` (a select of ``pool_candidate.id``) in id order (PostgreSQL;
    see above): how many (0 on SQLite, which locks nothing)."""
    if session.get_bind().dialect.name != "postgresql":
        return 0
    ordered = candidates.order_by(PoolCandidate.id)
    locked = ordered.with_for_update(key_share=True, of=PoolCandidate).subquery()
    return session.execute(select(func.count()).select_from(locked)).scalar_one()


def _lock_with_tallies(session: Session, candidates: Select) -> None:
    """``_lock`` ``candidates``, then their query tallies in (pool, query) order. Those are
    locked now because the judges are counted, and complete ones added to the query
    tallies, after the annotators' tallies moved: taken then, a claim or skip holding the
    query's tally while waiting for an annotator's deadlocked with it on PostgreSQL."""
    if not _lock(session, candidates):
        return
    keys = select(PoolCandidate.pool_id, PoolCandidate.query_id).where(
        PoolCandidate.id.in_(candidates)
    )
    tallied = select(QueryTally.id).where(tuple_(QueryTally.pool_id, QueryTally.query_id).in_(keys))
    ordered = tallied.order_by(QueryTally.pool_id, QueryTally.query_id).with_for_update()
    session.execute(select(func.count()).select_from(ordered.subquery()))


def _recounted(session: Session, candidates: Select) -> None:
    """Count the judges of ``candidates`` (a select of ``pool_candidate.id``, locked
    before their rows were written) afresh, and move the query tallies' ``complete`` by
    the candidates that became complete (or stopped being: a count never falls today)."""
    ids = PoolCandidate.id.in_(candidates.scalar_subquery())
    before = dict(session.execute(select(PoolCandidate.id, PoolCandidate.judges).where(ids)).all())
    if not before:
        return
    overlap = select(Pool.overlap).where(Pool.id == PoolCandidate.pool_id).scalar_subquery()
    asked = func.coalesce(PoolCandidate.required, 1) != 0
    rows = session.execute(
        update(PoolCandidate)
        .where(ids)
        .values(judges=_human_judges())
        .returning(
            PoolCandidate.id,
            PoolCandidate.pool_id,
            PoolCandidate.query_id,
            PoolCandidate.judges,
            overlap,
            asked,
        ),
        execution_options=NO_SYNC,
    ).all()
    moved: Counter = Counter()
    for candidate, pool, query, judges, needed, is_asked in rows:
        if is_asked:
            moved[pool, query] += (judges >= needed) - (before.get(candidate, 0) >= needed)
    keys = sorted(k for k, n in moved.items() if n)
    if not keys:
        return
    table = QueryTally.__table__
    session.execute(
        update(table)
        .where(table.c.pool_id == bindparam("p"), table.c.query_id == bindparam("q"))
        .values(complete=table.c.complete + bindparam("n")),
        [{"p": p, "q": q, "n": moved[p, q]} for p, q in keys],
    )


def _of_pair(query_id: int, chunk_id: int) -> Select:
    return select(PoolCandidate.id).where(
        PoolCandidate.query_id == query_id, PoolCandidate.chunk_id == chunk_id
    )


def judging(user: User, judgment: Judgment, *, session: Session) -> None:
    """``user`` is writing ``judgment`` (flushed), their first of their item: lock the
    candidates of its pair in every pool and their query tallies, before their rows are
    written here and by ``storage.one_grade``; ``judged`` counts them after."""
    _lock_with_tallies(session, _of_pair(judgment.query_id, judgment.chunk_id))


def judged(judgment: Judgment, *, session: Session) -> None:
    """The rows of ``judgment``'s pair are written (``judging`` locked them): count the
    judges of its candidates in every pool afresh."""
    _recounted(session, _of_pair(judgment.query_id, judgment.chunk_id))


def _of_batch(batch_id: int) -> Select:
    # Driven from the batch's rows, each looked for as a candidate: the planner has no
    # statistics for rows this transaction wrote and took the batch for one row.
    new = aliased(Judgment)
    return (
        select(PoolCandidate.id)
        .join(new, _same_pair(new, PoolCandidate))
        .where(new.batch_id == batch_id)
    )


def judging_batch(user: User, batch_id: int, *, session: Session) -> None:
    """``user``'s batch of judgments was appended (an import, carried grades): lock the
    candidates of its pairs and their query tallies before ``storage.one_grade`` writes
    their rows."""
    if user.kind == "human":
        _lock_with_tallies(session, _of_batch(batch_id))


def judged_in_batch(user: User, batch_id: int, *, session: Session) -> None:
    """The rows of ``user``'s batch are written: count the judges of its pairs'
    candidates afresh."""
    if user.kind == "human":
        _recounted(session, _of_batch(batch_id).distinct())


def _same_pair(judgment, candidate):
    """A judgment of a candidate's (query, chunk)."""
    return (judgment.query_id == candidate.query_id) & (judgment.chunk_id == candidate.chunk_id)


def judges_counted(pool: Pool, *, session: Session) -> None:
    """New candidates of ``pool`` were inserted (``judges`` 0) and given the rows of
    earlier grades (``one_grade.earlier_grades``): count the judges of those with one.
    Candidates counted before are unchanged by a recount."""
    judged_rows = select(Assignment.id).where(
        Assignment.candidate_id == PoolCandidate.id, Assignment.done_at.is_not(None)
    )
    uncounted = select(PoolCandidate.id).where(
        PoolCandidate.pool_id == pool.id, PoolCandidate.judges == 0, judged_rows.exists()
    )
    _lock(session, uncounted)
    _recounted(session, uncounted)


def judges(pool: Pool, *, session: Session, recount: bool = False) -> dict[int, int]:
    """Candidate id -> its judges as kept, or with ``recount`` counted from scratch."""
    value = _human_judges() if recount else PoolCandidate.judges
    statement = select(PoolCandidate.id, value).where(PoolCandidate.pool_id == pool.id)
    return {candidate: int(count) for candidate, count in session.execute(statement)}


# -- from scratch -------------------------------------------------------------------------


def recount(pool: Pool, *, session: Session) -> tuple[dict, dict, dict]:
    """Every tally of the pool computed from the assignments themselves: candidate id ->
    held, query key -> {candidates, asked, slots, held, open, complete}, user id -> {done,
    waiting} (annotators with both 0 left out)."""
    needed = func.coalesce(PoolCandidate.required, pool.overlap)
    held_now = (
        select(func.count())
        .where(Assignment.candidate_id == PoolCandidate.id, Assignment.slot.is_not(None))
        .scalar_subquery()
    )
    of_pool = select(PoolCandidate.id, held_now).where(PoolCandidate.pool_id == pool.id)
    held = dict(session.execute(of_pool).all())
    per_query: dict[int, dict[str, int]] = {}
    for candidate, query, required, judges in session.execute(
        select(PoolCandidate.id, PoolCandidate.query_id, needed, _human_judges()).where(
            PoolCandidate.pool_id == pool.id
        )
    ):
        tally = per_query.setdefault(query, dict.fromkeys(FIELDS, 0))
        tally["candidates"] += 1
        tally["asked"] += required != 0
        tally["slots"] += required
        tally["held"] += held[candidate]
        tally["open"] += held[candidate] < required
        tally["complete"] += required != 0 and judges >= pool.overlap
    per_user: dict[int, dict[str, int]] = {}
    for user, done, slot, candidate, required in session.execute(
        select(
            Assignment.user_id,
            Assignment.done_at.is_not(None),
            func.coalesce(Assignment.slot, case((Assignment.found_at.is_not(None), -1))),
            Assignment.candidate_id,
            needed,
        )
        .join(PoolCandidate, PoolCandidate.id == Assignment.candidate_id)
        .where(Assignment.pool_id == pool.id)
    ):
        tally = per_user.setdefault(user, dict(done=0, waiting=0))
        tally["done"] += bool(done)
        tally["waiting"] += slot is not None and held[candidate] < required
    return held, per_query, {u: t for u, t in per_user.items() if t["done"] or t["waiting"]}


def kept(pool: Pool, *, session: Session) -> tuple[dict, dict, dict]:
    """The tallies as kept, in the shape ``recount`` returns."""
    held = dict(
        session.execute(
            select(PoolCandidate.id, PoolCandidate.held).where(PoolCandidate.pool_id == pool.id)
        ).all()
    )
    per_query = {
        t.query_id: {f: getattr(t, f) for f in FIELDS} for t in queries(pool, session=session)
    }
    per_user = {
        t.user_id: {"done": t.done, "waiting": t.waiting}
        for t in session.exec(select(AnnotatorTally).where(AnnotatorTally.pool_id == pool.id))
        if t.done or t.waiting
    }
    return held, per_query, per_user


def refill(pool: Pool, *, session: Session) -> None:
    """Replace every tally of the pool by ``recount``'s: for assignments written by other
    means than this module (a benchmark's bulk load, a repair)."""
    held, per_query, per_user = recount(pool, session=session)
    session.execute(
        update(PoolCandidate)
        .where(PoolCandidate.pool_id == pool.id)
        .values(judges=_human_judges()),
        execution_options=NO_SYNC,
    )
    if held:  # an UPDATE by primary key per candidate, sent as one batch
        session.execute(update(PoolCandidate), [{"id": c, "held": n} for c, n in held.items()])
    session.execute(delete(QueryTally).where(QueryTally.pool_id == pool.id))
    session.execute(delete(AnnotatorTally).where(AnnotatorTally.pool_id == pool.id))
    annotator_tallies.forget(session)
    if per_query:
        rows = [{"pool_id": pool.id, "query_id": q, **t} for q, t in per_query.items()]
        session.execute(insert(QueryTally), rows)
    if per_user:
        rows = [{"pool_id": pool.id, "user_id": u, **t} for u, t in per_user.items()]
        session.execute(insert(AnnotatorTally), rows)
