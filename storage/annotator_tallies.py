"""An annotator's tally in a pool (``annotator_tally``: items judged, items waiting, the
query taken last; ``storage.tallies`` says what each counts), read once a transaction.

A keypress asks for it three times (the items judged, the query taken last, the progress
bar), and each read was a round trip. So the tally read or written in a transaction is
kept in its session, by (pool id, user id): every change goes through ``add``, one
statement that returns the row as it now is; a savepoint undone, and the end of the
transaction, forget them all. Every function takes a keyword-only ``session`` (``add``
and ``forget`` take it first) and never commits.
"""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, select

from storage.db import upsert_insert
from storage.models import AnnotatorTally, Pool

_KEPT = "annotator_tallies"  # the session's ``info`` key
_COLUMNS = (
    AnnotatorTally.__table__.c.done,
    AnnotatorTally.__table__.c.waiting,
    AnnotatorTally.__table__.c.last_query_id,
)


def tally(pool: Pool, user_id: int, *, session: Session) -> AnnotatorTally:
    """The annotator's tally in the pool (zeros before their first item): read once a
    transaction, and kept as this transaction changes it."""
    kept = session.info.setdefault(_KEPT, {})
    if (pool.id, user_id) not in kept:
        row = session.execute(
            select(*_COLUMNS).where(
                AnnotatorTally.pool_id == pool.id, AnnotatorTally.user_id == user_id
            )
        ).first()
        kept[pool.id, user_id] = _copy(pool.id, user_id, row)
    return kept[pool.id, user_id]


def add(
    session: Session,
    pool_id: int,
    user_id: int,
    *,
    done: int = 0,
    waiting: int = 0,
    last_query: int | None = None,
) -> None:
    """Add ``done`` and ``waiting`` to an annotator's tally, made when it is missing, and
    set the query they took last when given: one statement."""
    table = AnnotatorTally.__table__
    new = upsert_insert(table, session=session).values(
        pool_id=pool_id, user_id=user_id, done=done, waiting=waiting, last_query_id=last_query
    )
    changes = {"done": table.c.done + done, "waiting": table.c.waiting + waiting}
    if last_query is not None:
        changes["last_query_id"] = last_query
    upsert = new.on_conflict_do_update(index_elements=["pool_id", "user_id"], set_=changes)
    row = session.execute(upsert.returning(*_COLUMNS)).one()
    session.info.setdefault(_KEPT, {})[pool_id, user_id] = _copy(pool_id, user_id, row)


def found(pool: Pool, user_id: int, *, session: Session) -> None:
    """``user_id`` found a new candidate (open, none of its slots held): it is not open to
    them."""
    add(session, pool.id, user_id, waiting=1)


def judged_first_time(pool_id: int, user_id: int, *, session: Session) -> None:
    """An annotator judged an item for the first time (a later change is not counted)."""
    add(session, pool_id, user_id, done=1)


def _copy(pool_id: int, user_id: int, row) -> AnnotatorTally:
    """A tally outside the session: a later read never finds it stale in the session's
    identity map."""
    done, waiting, last_query = row or (0, 0, None)
    return AnnotatorTally(
        pool_id=pool_id, user_id=user_id, done=done, waiting=waiting, last_query_id=last_query
    )


@event.listens_for(OrmSession, "after_soft_rollback")
def forget(session: OrmSession, *_) -> None:
    """Forget the tallies kept: rows written by other means (``tallies.refill``), or undone."""
    session.info.pop(_KEPT, None)


@event.listens_for(OrmSession, "after_transaction_end")
def _forget_at_the_end(session: OrmSession, transaction) -> None:
    if transaction.parent is None:  # not a savepoint's: what it kept stands
        forget(session)
