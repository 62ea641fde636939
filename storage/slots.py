"""Judgment slots in the database: claim one, give it up, record a grade on it.

The guarantees rest on the database, not on the caller: a candidate's slots are unique
``(candidate_id, slot)``, an annotator holds at most one row per candidate
``(candidate_id, user_id)``, and a grade is written only by a conditional update of the
assignment's revision, so a repeated submission (a double click) writes nothing. Every
function takes a keyword-only ``session`` and never commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pooling.i18n import LocalizedError, NotFound
from storage.active_records import NOT_CHOSEN
from storage.models import Assignment, Chunk, Judgment, Pool, PoolCandidate, Query, User, utcnow

HOLD = timedelta(minutes=20)
# Bulk updates here are conditional writes whose outcome is read from the row count; the
# session's copies are refreshed explicitly where needed.
NO_SYNC = {"synchronize_session": False}


def release_expired(pool: Pool, *, session: Session, now: datetime | None = None) -> int:
    """Give up the slots of holds that were neither judged nor renewed in time."""
    result = session.execute(
        update(Assignment)
        .where(
            Assignment.pool_id == pool.id,
            Assignment.done_at.is_(None),
            Assignment.slot.is_not(None),
            Assignment.expires_at < (now or utcnow()),
        )
        .values(slot=None),
        execution_options=NO_SYNC,
    )
    return result.rowcount


def active_assignment(
    pool: Pool, user: User, *, session: Session, now: datetime | None = None
) -> Assignment | None:
    """The item ``user`` holds in ``pool`` and has not judged yet, if any."""
    return session.exec(
        select(Assignment)
        .where(
            Assignment.pool_id == pool.id,
            Assignment.user_id == user.id,
            Assignment.slot.is_not(None),
            Assignment.done_at.is_(None),
            Assignment.expires_at >= (now or utcnow()),
        )
        .order_by(Assignment.taken_at.desc())
    ).first()


def _required():
    return func.coalesce(PoolCandidate.required, Pool.overlap)


def _held():
    """Slots held or judged, per candidate."""
    return (
        select(Assignment.candidate_id, func.count().label("held"))
        .where(Assignment.slot.is_not(None))
        .group_by(Assignment.candidate_id)
        .subquery()
    )


@dataclass(frozen=True)
class Coverage:
    """Per query of a pool: judgment slots needed, held or judged, and how many candidates
    are asked about (all of them, but in an active pool only those chosen or added)."""

    query_key: int
    required: int
    held: int
    asked: int


def coverage(pool: Pool, *, session: Session) -> list[Coverage]:
    held = _held()
    rows = session.exec(
        select(
            PoolCandidate.query_id,
            func.sum(_required()),
            func.sum(func.coalesce(held.c.held, 0)),
            func.sum(case((_required() != NOT_CHOSEN, 1), else_=0)),
        )
        .join(Pool, Pool.id == PoolCandidate.pool_id)
        .join(held, held.c.candidate_id == PoolCandidate.id, isouter=True)
        .where(PoolCandidate.pool_id == pool.id)
        .group_by(PoolCandidate.query_id)
    ).all()
    return [Coverage(q, int(required), int(h), int(asked)) for q, required, h, asked in rows]


@dataclass(frozen=True)
class OpenCandidate:
    """A candidate ``user`` may take: it has a free slot and they have not judged it."""

    candidate_id: int
    query_key: int
    chunk_key: int
    skipped: bool  # they skipped it before: offered after the others


def open_candidates(
    pool: Pool, user: User, *, session: Session, query_key: int | None = None
) -> list[OpenCandidate]:
    held = _held()
    mine = (
        select(Assignment.candidate_id, Assignment.skipped_at, Assignment.slot, Assignment.done_at)
        .where(Assignment.pool_id == pool.id, Assignment.user_id == user.id)
        .subquery()
    )
    statement = (
        select(
            PoolCandidate.id,
            PoolCandidate.query_id,
            PoolCandidate.chunk_id,
            mine.c.skipped_at,
        )
        .join(Pool, Pool.id == PoolCandidate.pool_id)
        .join(held, held.c.candidate_id == PoolCandidate.id, isouter=True)
        .join(mine, mine.c.candidate_id == PoolCandidate.id, isouter=True)
        .where(
            PoolCandidate.pool_id == pool.id,
            func.coalesce(held.c.held, 0) < _required(),
            mine.c.done_at.is_(None),
            mine.c.slot.is_(None),
        )
    )
    if query_key is not None:
        statement = statement.where(PoolCandidate.query_id == query_key)
    return [
        OpenCandidate(c, q, k, skipped is not None) for c, q, k, skipped in session.exec(statement)
    ]


def last_query_key(pool: Pool, user: User, *, session: Session) -> int | None:
    """The query of the item ``user`` took most recently in ``pool``."""
    return session.exec(
        select(PoolCandidate.query_id)
        .join(Assignment, Assignment.candidate_id == PoolCandidate.id)
        .where(Assignment.pool_id == pool.id, Assignment.user_id == user.id)
        .order_by(Assignment.taken_at.desc(), Assignment.id.desc())
    ).first()


def holdings(pool: Pool, user: User, *, session: Session) -> list[tuple[int, bool, bool]]:
    """``(query key, judged, held)`` for every item ``user`` took in ``pool``."""
    rows = session.exec(
        select(PoolCandidate.query_id, Assignment.done_at, Assignment.slot)
        .join(Assignment, Assignment.candidate_id == PoolCandidate.id)
        .where(Assignment.pool_id == pool.id, Assignment.user_id == user.id)
    ).all()
    return [(q, done is not None, done is None and slot is not None) for q, done, slot in rows]


def claim(
    pool: Pool,
    candidate_id: int,
    user: User,
    *,
    session: Session,
    now: datetime | None = None,
    hold: timedelta = HOLD,
) -> Assignment | None:
    """Hold a free slot of the candidate for ``user``, or None when all its slots are taken
    (possibly by another annotator a moment ago) or ``user`` already judged it."""
    now = now or utcnow()
    candidate = session.get(PoolCandidate, candidate_id)
    required = pool.overlap if candidate.required is None else candidate.required
    used = set(
        session.exec(
            select(Assignment.slot).where(
                Assignment.candidate_id == candidate_id, Assignment.slot.is_not(None)
            )
        ).all()
    )
    free = next((slot for slot in range(required) if slot not in used), None)
    if free is None:
        return None
    existing = session.exec(
        select(Assignment).where(
            Assignment.candidate_id == candidate_id, Assignment.user_id == user.id
        )
    ).first()
    try:
        with session.begin_nested():
            if existing is None:
                assignment = Assignment(
                    pool_id=pool.id,
                    candidate_id=candidate_id,
                    user_id=user.id,
                    slot=free,
                    taken_at=now,
                    expires_at=now + hold,
                )
                session.add(assignment)
                session.flush()
                return assignment
            if existing.done_at is not None or existing.slot is not None:
                return None
            taken = session.execute(
                update(Assignment)
                .where(Assignment.id == existing.id, Assignment.slot.is_(None))
                .values(slot=free, taken_at=now, expires_at=now + hold, skipped_at=None),
                execution_options=NO_SYNC,
            )
            if taken.rowcount != 1:
                return None
    except IntegrityError:  # another annotator took that slot first: the caller moves on
        return None
    session.refresh(existing)
    return existing


def renew(assignment: Assignment, *, session: Session, hold: timedelta = HOLD) -> None:
    """Keep holding an item the annotator is still looking at."""
    session.execute(
        update(Assignment)
        .where(Assignment.id == assignment.id, Assignment.slot.is_not(None))
        .values(expires_at=utcnow() + hold),
        execution_options=NO_SYNC,
    )


def give_up(assignment: Assignment, *, session: Session, skipped: bool = True) -> bool:
    """Free the slot of an item not judged yet (skip); it can be taken again later."""
    result = session.execute(
        update(Assignment)
        .where(Assignment.id == assignment.id, Assignment.done_at.is_(None))
        .values(slot=None, skipped_at=utcnow() if skipped else None),
        execution_options=NO_SYNC,
    )
    return result.rowcount == 1


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
    now = utcnow()
    moved = session.execute(
        update(Assignment)
        .where(
            Assignment.id == assignment_id,
            Assignment.user_id == user.id,
            Assignment.revision == expected_revision,
            Assignment.slot.is_not(None),
        )
        .values(revision=expected_revision + 1, done_at=func.coalesce(Assignment.done_at, now)),
        execution_options=NO_SYNC,
    )
    if moved.rowcount != 1:
        return None
    assignment = session.get(Assignment, assignment_id)
    candidate = session.get(PoolCandidate, assignment.candidate_id)
    judgment = Judgment(
        user_id=user.id,
        query_id=candidate.query_id,
        chunk_id=candidate.chunk_id,
        grade=None if unsure else grade,
        unsure=unsure,
        note=note,
        rubric_version=rubric_version,
        seconds=seconds,
        pool_id=assignment.pool_id,
        assignment_id=assignment_id,
        revision=expected_revision + 1,
        created_at=now,
    )
    session.add(judgment)
    session.flush()
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
    """How many items ``user`` has judged in ``pool``."""
    return session.exec(select(func.count()).where(*_judged(pool, user))).one()


def judged_assignment(pool: Pool, user: User, back: int, *, session: Session) -> Assignment | None:
    """The item ``user`` judged ``back`` items before their latest (0: the latest), in the
    order they first judged them; read alone, so stepping back costs the same whatever the
    annotator's history."""
    statement = select(Assignment).where(*_judged(pool, user))
    newest_first = statement.order_by(Assignment.done_at.desc(), Assignment.id.desc())
    return session.exec(newest_first.offset(back).limit(1)).first()


def require_judgments(
    pool: Pool, query_id: str, chunk_id: str, count: int, *, session: Session
) -> PoolCandidate:
    """A lead asks for ``count`` independent judgments of one candidate instead of the
    pool's overlap (more, to settle a hard case). Raises ``LookupError`` for a candidate not
    in the pool, ``ValueError`` for a count below 1."""
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
    candidate.required = count
    session.add(candidate)
    return candidate
