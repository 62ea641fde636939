"""Judgment slots in the database: claim one, give it up, record a grade on it, and what is
open to an annotator.

The guarantees rest on the database, not on the caller: a candidate's slots are unique
``(candidate_id, slot)``, an annotator holds at most one row per candidate
``(candidate_id, user_id)``, and a grade is written only by a conditional update of the
assignment's revision, so a repeated submission (a double click) writes nothing. Every change
of a slot updates the tallies (``storage.tallies``) in the same transaction, and what a
keypress reads is either one query's candidates or those tallies: nothing here reads the
whole pool or an annotator's whole history. Every function takes a keyword-only
``session`` and never commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import count

from sqlalchemy import case, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pooling.i18n import LocalizedError, NotFound
from pooling.readers import refuse_control
from storage import annotator_tallies, one_grade, tallies
from storage.db import paged
from storage.models import (
    Assignment,
    Chunk,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QueryTally,
    User,
    utcnow,
)
from storage.tallies import NO_SYNC, SlotChange

# Bulk updates here (``NO_SYNC``) are conditional writes whose outcome is read from the row
# count; the session's copies are refreshed explicitly where needed.
HOLD = timedelta(minutes=20)
PRIME = 65521


def _open_hold():
    return Assignment.slot.is_not(None), Assignment.done_at.is_(None)


def release_expired(pool: Pool, *, session: Session, now: datetime | None = None) -> int:
    """Give up the slots of holds that were neither judged nor renewed in time."""
    expired = session.execute(
        update(Assignment)
        .where(
            Assignment.pool_id == pool.id, *_open_hold(), Assignment.expires_at < (now or utcnow())
        )
        .values(slot=None)
        .returning(Assignment.candidate_id, Assignment.user_id),
        execution_options=NO_SYNC,
    ).all()
    givers: dict[int, list[int]] = {}
    for candidate, user in expired:
        givers.setdefault(candidate, []).append(user)
    tallies.apply(
        pool, [SlotChange(c, givers=tuple(users)) for c, users in givers.items()], session=session
    )
    return len(expired)


def active_assignment(
    pool: Pool, user: User, *, session: Session, now: datetime | None = None
) -> Assignment | None:
    """The item ``user`` holds in ``pool`` and has not judged yet, if any."""
    return session.exec(
        select(Assignment)
        .where(
            Assignment.pool_id == pool.id,
            Assignment.user_id == user.id,
            *_open_hold(),
            Assignment.expires_at >= (now or utcnow()),
        )
        .order_by(Assignment.taken_at.desc())
    ).first()


def _needed():
    return func.coalesce(PoolCandidate.required, Pool.overlap)


@dataclass(frozen=True)
class Coverage:
    """Per query of a pool: judgment slots needed, held or judged, and how many candidates
    are asked about (all of them, but in an active pool only those chosen or added)."""

    query_key: int
    required: int
    held: int
    asked: int


def coverage(pool: Pool, *, session: Session) -> list[Coverage]:
    """Every query's coverage, from the tallies."""
    return [
        Coverage(t.query_id, t.slots, t.held, t.asked)
        for t in tallies.queries(pool, session=session)
    ]


@dataclass(frozen=True)
class OpenCandidate:
    """A candidate ``user`` may take: it has a free slot and they have not judged it."""

    candidate_id: int
    query_key: int
    chunk_key: int
    skipped: bool  # they skipped it before: offered after the others
    gold: bool = False  # a gold item: claimed on a slot beyond its own (``claim``)


def _mine(user: User):
    """``user``'s own row for each candidate, joined beside it."""
    return (
        Assignment,
        (Assignment.candidate_id == PoolCandidate.id) & (Assignment.user_id == user.id),
    )


def open_candidates(
    pool: Pool, user: User, query_key: int, *, session: Session
) -> list[OpenCandidate]:
    """The candidates of one query that ``user`` may take."""
    rows = session.exec(
        select(PoolCandidate.id, PoolCandidate.chunk_id, Assignment.skipped_at)
        .join(Pool, Pool.id == PoolCandidate.pool_id)
        .join(*_mine(user), isouter=True)
        .where(
            PoolCandidate.pool_id == pool.id,
            PoolCandidate.query_id == query_key,
            PoolCandidate.held < _needed(),
            Assignment.done_at.is_(None),
            Assignment.slot.is_(None),
            Assignment.found_at.is_(None),  # never what their own search added
        )
    )
    return [OpenCandidate(c, query_key, k, skipped is not None) for c, k, skipped in rows]


def skipped_candidates(pool: Pool, user: User, *, session: Session) -> list[OpenCandidate]:
    """What ``user`` skipped and may take again (a free slot, not judged)."""
    rows = session.exec(
        select(PoolCandidate.id, PoolCandidate.query_id, PoolCandidate.chunk_id)
        .join(Assignment, Assignment.candidate_id == PoolCandidate.id)
        .join(Pool, Pool.id == PoolCandidate.pool_id)
        .where(
            Assignment.pool_id == pool.id,
            Assignment.user_id == user.id,
            Assignment.skipped_at.is_not(None),
            Assignment.slot.is_(None),
            Assignment.done_at.is_(None),
            PoolCandidate.held < _needed(),
        )
    )
    return [OpenCandidate(c, q, k, True) for c, q, k in rows]


def queries_by_coverage(
    pool: Pool,
    user: User,
    *,
    session: Session,
    exclude: int | None,
    per_query_slots: int | None,
    asked_below: int | None = None,
    batch: int = 64,
) -> Iterator[int]:
    """Queries with a candidate open (or, with ``asked_below``, fewer candidates asked
    about than that: an active pool's queries that may still choose), least covered first
    (the share of slots held, of ``per_query_slots`` when given, as an active pool's budget),
    ties in an order of ``user``'s own so that annotators do not all start on one query.
    Read ``batch`` at a time: the caller usually needs the first."""
    slots = QueryTally.slots if per_query_slots is None else per_query_slots
    going = QueryTally.open > 0 if asked_below is None else QueryTally.asked < asked_below
    # A permutation of query keys that differs per annotator: a cheap hash computable in SQL,
    # kept within 32-bit integers (PostgreSQL's integer arithmetic overflows beyond).
    salt = (user.id * 7919) % PRIME
    shuffled = ((QueryTally.query_id % PRIME) * 32749 + salt) % PRIME
    statement = (
        select(QueryTally.query_id)
        .where(QueryTally.pool_id == pool.id, going, slots > 0)
        .order_by(QueryTally.held * 1.0 / slots, shuffled, QueryTally.query_id)
    )
    if exclude is not None:
        statement = statement.where(QueryTally.query_id != exclude)
    yield from paged(statement, session=session, batch=batch)


def last_query_key(pool: Pool, user: User, *, session: Session) -> int | None:
    """The query of the item ``user`` took most recently in ``pool``."""
    return annotator_tallies.tally(pool, user.id, session=session).last_query_id


@dataclass(frozen=True)
class Standing:
    """An annotator's items in one query or in the pool: judged, held now, open to them."""

    done: int
    held: int
    open: int


def _count(condition):
    return func.sum(case((condition, 1), else_=0))


def query_standing(pool: Pool, user: User, query_key: int, *, session: Session) -> Standing:
    """What ``user`` judged, holds and may still take in one query."""
    # No row of theirs, or one neither held, judged nor found by them (what their search
    # added to the pool is never offered to them).
    untaken = (
        Assignment.slot.is_(None) & Assignment.done_at.is_(None) & Assignment.found_at.is_(None)
    )
    done, held, available = session.exec(
        select(
            _count(Assignment.done_at.is_not(None)),
            _count(Assignment.slot.is_not(None) & Assignment.done_at.is_(None)),
            _count(untaken & (PoolCandidate.held < _needed())),
        )
        .select_from(PoolCandidate)
        .join(Pool, Pool.id == PoolCandidate.pool_id)
        .join(*_mine(user), isouter=True)
        .where(PoolCandidate.pool_id == pool.id, PoolCandidate.query_id == query_key)
    ).one()
    return Standing(done or 0, held or 0, available or 0)


def pool_standing(
    pool: Pool, user: User, *, session: Session, holds: bool | None = None
) -> Standing:
    """What ``user`` judged, holds and may still take in the pool, from the tallies: what is
    open to them is every open candidate but those they hold or judged. ``holds`` says
    whether they hold an item, when the caller knows."""
    tally = annotator_tallies.tally(pool, user.id, session=session)
    if holds is None:
        holds = active_assignment(pool, user, session=session) is not None
    held = 1 if holds else 0
    opened = tallies.open_candidates_in_pool(pool, session=session)
    return Standing(tally.done, held, opened - tally.waiting)


def claim(
    pool: Pool,
    candidate_id: int,
    user: User,
    *,
    session: Session,
    now: datetime | None = None,
    hold: timedelta = HOLD,
    unbounded: bool = False,
) -> Assignment | None:
    """Hold a free slot of the candidate for ``user``, or None when all its slots are taken
    (possibly by another annotator a moment ago) or ``user`` already judged it. A gold check
    (``unbounded``) takes a slot beyond the candidate's own: any number may judge it."""
    now = now or utcnow()
    # A claim that fails lets go of the candidate's lock (rolled back to its savepoint):
    # the caller tries other candidates in the annotator's own order, not in id order, and
    # two annotators each holding one full candidate while waiting for the other's
    # deadlocked on PostgreSQL, taking a keypress queued behind them down with them.
    attempt = session.begin_nested()
    try:
        held = _take(
            pool, candidate_id, user, session=session, now=now, hold=hold, unbounded=unbounded
        )
    except IntegrityError:  # another annotator took that slot first: the caller moves on
        held = None
    if held is None:
        attempt.rollback()
        return None
    attempt.commit()
    return held


def _take(
    pool: Pool,
    candidate_id: int,
    user: User,
    *,
    session: Session,
    now: datetime,
    hold: timedelta,
    unbounded: bool,
) -> Assignment | None:
    """``claim``'s work inside its savepoint: the assignment holding a free slot, or None."""
    # The candidate is locked before an assignment of it is inserted: the tallies' lock
    # order, which a grade counted in another pool (``storage.one_grade``) inserts in too.
    candidate = session.exec(
        select(PoolCandidate)
        .where(PoolCandidate.id == candidate_id)
        .with_for_update(key_share=True)
        .execution_options(populate_existing=True)
    ).one()
    required = pool.overlap if candidate.required is None else candidate.required
    # The candidate's rows, one per person who held, judged, skipped or found it: its slots
    # in use and this annotator's own row, in one statement.
    rows = session.exec(
        select(Assignment.id, Assignment.user_id, Assignment.slot).where(
            Assignment.candidate_id == candidate_id
        )
    ).all()
    used = {slot for _, _, slot in rows if slot is not None}
    slots = count() if unbounded else range(required)
    free = next((slot for slot in slots if slot not in used), None)
    if free is None:
        return None
    own = next((key for key, owner, _ in rows if owner == user.id), None)
    existing = None if own is None else session.get(Assignment, own, populate_existing=True)
    if existing is None:
        existing = Assignment(
            pool_id=pool.id,
            candidate_id=candidate_id,
            user_id=user.id,
            slot=free,
            taken_at=now,
            expires_at=now + hold,
        )
        session.add(existing)
        session.flush()
    else:
        if existing.done_at is not None or existing.slot is not None or existing.found_at:
            return None  # judged, held, or found by them
        taken = session.execute(
            update(Assignment)
            .where(
                Assignment.id == existing.id,
                Assignment.slot.is_(None),
                Assignment.found_at.is_(None),
            )
            .values(slot=free, taken_at=now, expires_at=now + hold, skipped_at=None),
            execution_options=NO_SYNC,
        )
        if taken.rowcount != 1:
            return None
        session.refresh(existing)
    took = (user.id, candidate.query_id)
    tallies.apply(pool, [SlotChange(candidate_id, takers=(user.id,))], session=session, took=took)
    return existing


def renew(assignment: Assignment, *, session: Session, hold: timedelta = HOLD) -> None:
    """Keep holding an item the annotator is still looking at."""
    session.execute(
        update(Assignment)
        .where(Assignment.id == assignment.id, Assignment.slot.is_not(None))
        .values(expires_at=utcnow() + hold),
        execution_options=NO_SYNC,
    )


def give_up(pool: Pool, assignment: Assignment, *, session: Session) -> bool:
    """Skip an item not judged yet: its slot is free for others, and it comes back to this
    annotator after everything else. False when it was judged meanwhile."""
    mine = (Assignment.id == assignment.id, Assignment.done_at.is_(None))
    freed = session.execute(
        update(Assignment)
        .where(*mine, Assignment.slot.is_not(None))
        .values(slot=None, skipped_at=utcnow())
        .returning(Assignment.candidate_id),
        execution_options=NO_SYNC,
    ).all()
    if freed:
        change = SlotChange(freed[0][0], givers=(assignment.user_id,))
        tallies.apply(pool, [change], session=session)
        return True
    # Its hold had lapsed already: only remember that it was skipped.
    skipped = session.execute(
        update(Assignment).where(*mine).values(skipped_at=utcnow()), execution_options=NO_SYNC
    )
    return skipped.rowcount == 1


def record_judgment(
    assignment_id: int,
    user: User,
    *,
    session: Session,
    expected_revision: int,
    grade: int | None,
    unsure: bool,
    note: str,
    seconds: float | None,
    rubric_version: str,
) -> Judgment | None:
    """Write a grade on an assignment the user still holds (or judged before: a change).
    None when the assignment moved on: a repeated submission of the same revision, or a
    hold that expired and went to someone else."""
    refuse_control(note, "what_note")
    now = utcnow()
    moved = session.execute(
        update(Assignment)
        .where(
            Assignment.id == assignment_id,
            Assignment.user_id == user.id,
            Assignment.revision == expected_revision,
            Assignment.slot.is_not(None),
        )
        .values(revision=expected_revision + 1, done_at=func.coalesce(Assignment.done_at, now))
        .returning(Assignment.pool_id, Assignment.candidate_id),
        execution_options=NO_SYNC,
    ).first()
    if moved is None:
        return None
    pool_id, candidate_id = moved
    candidate = session.get(PoolCandidate, candidate_id)
    judgment = Judgment(
        user_id=user.id,
        query_id=candidate.query_id,
        chunk_id=candidate.chunk_id,
        grade=None if unsure else grade,
        unsure=unsure,
        note=note,
        rubric_version=rubric_version,
        seconds=seconds,
        pool_id=pool_id,
        assignment_id=assignment_id,
        revision=expected_revision + 1,
        reason=candidate.reason,  # the row is read above anyway: no statement more
        created_at=now,
    )
    session.add(judgment)
    session.flush()
    if expected_revision == 0:  # a change of their grade is not a new judge
        # The candidate before the annotator's tally: the tallies' lock order (a claim of
        # the same candidate by another annotator deadlocked the other way round).
        tallies.judging(user, judgment, session=session)
        # One grade per person per pair (under one rubric): the other pools count it theirs.
        one_grade.first_grade(user, pool_id, judgment, session=session, now=now)
        if user.kind == "human":  # its candidates' judges: people with a judged row
            tallies.judged(judgment, session=session)
    return judgment


def _judged(pool: Pool, user: User):
    return (
        Assignment.pool_id == pool.id,
        Assignment.user_id == user.id,
        Assignment.done_at.is_not(None),
    )


def judged_assignments(pool: Pool, user: User, *, session: Session) -> list[Assignment]:
    """What ``user`` has judged in ``pool``, in the order they first judged it."""
    statement = select(Assignment).where(*_judged(pool, user))
    return list(session.exec(statement.order_by(Assignment.done_at, Assignment.id)).all())


def judged_count(pool: Pool, user: User, *, session: Session) -> int:
    """How many items ``user`` has judged in ``pool`` (kept in the tallies)."""
    return annotator_tallies.tally(pool, user.id, session=session).done


def judged_assignment(pool: Pool, user: User, back: int, *, session: Session) -> Assignment | None:
    """The item ``user`` judged ``back`` items before their latest (0: the latest), in the
    order they first judged them; read alone, so stepping back a little costs the same
    whatever the annotator's history."""
    statement = select(Assignment).where(*_judged(pool, user))
    newest_first = statement.order_by(Assignment.done_at.desc(), Assignment.id.desc())
    return session.exec(newest_first.offset(back).limit(1)).first()


def require_judgments(
    pool: Pool, query_id: str, chunk_id: str, count: int, *, session: Session
) -> PoolCandidate:
    """A lead asks for ``count`` independent judgments of one candidate instead of the
    pool's overlap (more, to settle a hard case). Raises ``NotFound`` for a candidate not
    in the pool, ``LocalizedError`` for a count below 1."""
    if count < 1:
        raise LocalizedError("judgments_at_least_one", count=count)
    candidate = session.exec(
        select(PoolCandidate)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(
            PoolCandidate.pool_id == pool.id,
            Query.query_id == query_id,
            Chunk.chunk_id == chunk_id,
        )
    ).first()
    if candidate is None:
        raise NotFound("not_a_candidate", query=query_id, chunk=chunk_id, pool=pool.name)
    change = SlotChange(candidate.id, required=count, set_required=True)
    tallies.apply(pool, [change], session=session)
    session.refresh(candidate)
    return candidate
