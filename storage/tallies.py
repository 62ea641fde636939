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

from sqlalchemy import Select, bindparam, case, delete, func, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlalchemy.sql.dml import ReturningUpdate, Update
from sqlmodel import Session, select

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
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    # Many rows as parameters (executemany in pages), not one VALUES list: a pool of 10,000
    # queries would pass PostgreSQL's limit of 65,535 parameters in one statement.
    session.execute(module.insert(model).on_conflict_do_nothing(), rows)


def apply(pool: Pool, changes: Iterable[SlotChange], *, session: Session) -> None:
    """Bring the tallies up to date with ``changes``, made to assignments (and to
    candidates' ``required``) earlier in this transaction."""
    apply_pools([(pool, list(changes))], session=session)


def apply_pools(
    per_pool: Iterable[tuple[Pool, list]], *, session: Session, done: Iterable = ()
) -> None:
    """``apply`` for the changes of several pools at once (one person's grade, counted in
    every pool holding its pair: ``storage.one_grade``), with ``done``'s (pool id, user id)
    one item judged more each. The rows are updated in one order over all pools
    (candidates, then queries, then annotators, each by pool and id), as one pool's are."""
    per_pool = list(per_pool)
    pools = {pool.id: pool for pool, _ in per_pool}
    changes = sorted(
        ((pool.id, c) for pool, pool_changes in per_pool for c in pool_changes),
        key=lambda pc: pc[1].candidate_id,
    )
    judged = Counter(done)
    if not changes and not judged:
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
    people = sorted(set(waiting) | set(judged))
    _ensure(session, AnnotatorTally, [{"pool_id": p, "user_id": u} for p, u in people])
    for pool_id, user in people:
        values = {}
        if waiting.get((pool_id, user)):
            values["waiting"] = AnnotatorTally.waiting + waiting[pool_id, user]
        if judged[pool_id, user]:
            values["done"] = AnnotatorTally.done + judged[pool_id, user]
        if values:
            _annotator_set(pool_id, user, values, session)


def _counted_for_waiting():
    """An annotator's rows that take a candidate out of what is open to them."""
    return Assignment.slot.is_not(None) | Assignment.found_at.is_not(None)


def found(pool: Pool, user_id: int, *, session: Session) -> None:
    """``user_id`` found a new candidate (open, none of its slots held): it is not open to
    them."""
    _ensure(session, AnnotatorTally, [{"pool_id": pool.id, "user_id": user_id}])
    _annotator_set(pool.id, user_id, {"waiting": AnnotatorTally.waiting + 1}, session)


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


def judged_first_time(pool_id: int, user_id: int, *, session: Session) -> None:
    """An annotator judged an item for the first time (a later change is not counted)."""
    _annotator_set(pool_id, user_id, {"done": AnnotatorTally.done + 1}, session)


def took(pool: Pool, user_id: int, query_key: int, *, session: Session) -> None:
    """Remember the query of the item an annotator took last."""
    _annotator_set(pool.id, user_id, {"last_query_id": query_key}, session)


def _annotator_set(pool_id: int, user_id: int, values: dict, session: Session) -> None:
    statement = update(AnnotatorTally).where(
        AnnotatorTally.pool_id == pool_id, AnnotatorTally.user_id == user_id
    )
    session.execute(statement.values(values), execution_options=NO_SYNC)


# -- reading ----------------------------------------------------------------------------


def annotator(pool: Pool, user_id: int, *, session: Session) -> AnnotatorTally:
    """The annotator's tally in the pool (zeros before their first item)."""
    found = session.exec(
        select(AnnotatorTally).where(
            AnnotatorTally.pool_id == pool.id, AnnotatorTally.user_id == user_id
        )
    ).first()
    return found or AnnotatorTally(pool_id=pool.id, user_id=user_id)


def open_candidates_in_pool(pool: Pool, *, session: Session) -> int:
    """Candidates with a free slot, in the whole pool."""
    total = select(func.coalesce(func.sum(QueryTally.open), 0)).where(QueryTally.pool_id == pool.id)
    return session.exec(total).one()


def queries(pool: Pool, *, session: Session) -> list[QueryTally]:
    """Every query's tally in the pool (lead pages and the choice of a next query)."""
    statement = select(QueryTally).where(QueryTally.pool_id == pool.id)
    return list(session.exec(statement.order_by(QueryTally.query_id)))


# -- human judges per candidate ----------------------------------------------------------
# ``pool_candidate.judges``: the distinct human annotators with a judgment of the
# candidate's (query, chunk), whichever pool or batch it came with; and per query the
# candidates that have the pool's overlap of them while asked about (``complete``), so that
# ``qrels status`` reads how many are complete from the query tallies, not every candidate.
#
# On PostgreSQL (READ COMMITTED) the candidates are first locked in id order, and counted
# by the next statement, whose snapshot then holds the judgments of every transaction that
# held them before: one person's judgments of a pair written at once (two tabs, an import
# beside the app) count once, and a large import takes its locks in the order a keypress
# does, so one waits for the other instead of deadlocking. SQLite's writers take turns.


def _human_judges():
    """The count ``judges`` keeps, from scratch: a correlated subquery on ``pool_candidate``."""
    return (
        select(func.count(func.distinct(Judgment.user_id)))
        .join(User, User.id == Judgment.user_id)
        .where(
            User.kind == "human",
            Judgment.query_id == PoolCandidate.query_id,
            Judgment.chunk_id == PoolCandidate.chunk_id,
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


def _counted(statement: Update, *, at_least: bool = False) -> ReturningUpdate:
    """``statement``, an UPDATE of ``judges``, returning (pool, query key) of each candidate
    it made complete: one that reached the pool's overlap (``at_least``: a count from 0
    that reached it or more) and is asked about."""
    overlap = select(Pool.overlap).where(Pool.id == PoolCandidate.pool_id).scalar_subquery()
    enough = PoolCandidate.judges >= overlap if at_least else PoolCandidate.judges == overlap
    asked = func.coalesce(PoolCandidate.required, 1) != 0
    return statement.returning(
        PoolCandidate.pool_id, PoolCandidate.query_id, enough & asked, PoolCandidate.id
    )


def _completed(
    session: Session, statement: Update, *, at_least: bool = False
) -> list[tuple[int, int]]:
    """Run ``_counted(statement)`` and add what it completed to the query tallies, in their
    lock order; with ``at_least`` (new candidates) their rows are made if missing. Returns
    the (pool, candidate) of every candidate it counted."""
    rows = session.execute(_counted(statement, at_least=at_least), execution_options=NO_SYNC)
    counted = rows.all()
    completed = Counter((pool, query) for pool, query, done, _ in counted if done)
    if not completed:
        return [(pool, candidate) for pool, _, _, candidate in counted]
    keys = sorted(completed)
    if at_least:
        _ensure(session, QueryTally, [{"pool_id": p, "query_id": q} for p, q in keys])
    table = QueryTally.__table__
    session.execute(
        update(table)
        .where(table.c.pool_id == bindparam("p"), table.c.query_id == bindparam("q"))
        .values(complete=table.c.complete + bindparam("n")),
        [{"p": p, "q": q, "n": completed[p, q]} for p, q in keys],
    )
    return [(pool, candidate) for pool, _, _, candidate in counted]


def judged(user: User, judgment: Judgment, *, session: Session) -> list[tuple[int, int]]:
    """``user`` wrote ``judgment`` (flushed): its candidates, in every pool, have one judge
    more, unless ``user`` is a model or judged that (query, chunk) before. One statement
    (two on PostgreSQL), and one more for the query's tally when a candidate is complete.
    Returns the (pool, candidate) it counted ``user`` in: where they are a new judge."""
    if user.kind != "human":
        return []
    pair = (
        PoolCandidate.query_id == judgment.query_id,
        PoolCandidate.chunk_id == judgment.chunk_id,
    )
    if _lock(session, select(PoolCandidate.id).where(*pair)) > 1:
        # The pair is in several pools: their query tallies are locked now, in order, before
        # those of some are updated here and the others' by ``storage.one_grade``.
        pools = select(PoolCandidate.pool_id).where(*pair)
        tallied = select(QueryTally.id).where(
            QueryTally.query_id == judgment.query_id, QueryTally.pool_id.in_(pools)
        )
        ordered = tallied.order_by(QueryTally.pool_id).with_for_update().subquery()
        session.execute(select(func.count()).select_from(ordered))
    earlier = aliased(Judgment)
    before = select(earlier.id).where(
        earlier.user_id == user.id,
        earlier.query_id == judgment.query_id,
        earlier.chunk_id == judgment.chunk_id,
        earlier.id != judgment.id,
    )
    statement = (
        update(PoolCandidate).where(*pair, ~before.exists()).values(judges=PoolCandidate.judges + 1)
    )
    return _completed(session, statement)


def judged_in_batch(user: User, batch_id: int, *, session: Session) -> None:
    """``user``'s batch of judgments was appended (an import, carried grades): each
    (query, chunk) in it they had not judged before has one judge more."""
    if user.kind != "human":
        return
    # Driven from the batch's rows, each looked for as a candidate, and each checked for an
    # earlier judgment of theirs by one indexed look (LIMIT 1). The planner has no statistics
    # for rows this transaction wrote: it took the batch, and a newcomer's judgments, for one
    # row each, and as an anti-join scanned every judgment of the batch for each of them
    # (100,000 imported at L on PostgreSQL: still counting after 17 minutes).
    new, earlier, candidate = aliased(Judgment), aliased(Judgment), aliased(PoolCandidate)
    _lock(
        session,
        select(PoolCandidate.id)
        .join(new, _same_pair(new, PoolCandidate))
        .where(new.batch_id == batch_id),
    )
    earlier_one = (
        select(earlier.id)
        .where(
            earlier.user_id == user.id,
            earlier.query_id == new.query_id,
            earlier.chunk_id == new.chunk_id,
            earlier.batch_id.is_(None) | (earlier.batch_id != batch_id),
        )
        .limit(1)
        .scalar_subquery()
    )
    firsts = (
        select(candidate.id)
        .join(new, _same_pair(new, candidate))
        .where(new.batch_id == batch_id, earlier_one.is_(None))
    )
    statement = (
        update(PoolCandidate)
        .where(PoolCandidate.id.in_(firsts))
        .values(judges=PoolCandidate.judges + 1)
    )
    _completed(session, statement)


def _same_pair(judgment, candidate):
    """A judgment of a candidate's (query, chunk)."""
    return (judgment.query_id == candidate.query_id) & (judgment.chunk_id == candidate.chunk_id)


def judges_counted(pool: Pool, *, session: Session) -> None:
    """New candidates of ``pool`` were inserted (``judges`` 0): count the judges of those
    already judged, from scratch. Candidates counted before are unchanged by a recount."""
    judgments = select(Judgment.id).where(
        Judgment.query_id == PoolCandidate.query_id, Judgment.chunk_id == PoolCandidate.chunk_id
    )
    uncounted = (PoolCandidate.pool_id == pool.id, PoolCandidate.judges == 0, judgments.exists())
    _lock(session, select(PoolCandidate.id).where(*uncounted))
    statement = update(PoolCandidate).where(*uncounted).values(judges=_human_judges())
    _completed(session, statement, at_least=True)


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
    if per_query:
        rows = [{"pool_id": pool.id, "query_id": q, **t} for q, t in per_query.items()]
        session.execute(insert(QueryTally), rows)
    if per_user:
        rows = [{"pool_id": pool.id, "user_id": u, **t} for u, t in per_user.items()]
        session.execute(insert(AnnotatorTally), rows)
