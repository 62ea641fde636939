"""One grade per person per (query, chunk), whichever pool asks.

Two pools over the same query set and corpus version hold the same (query, chunk) pairs as
candidates of each. A person's current grade of a pair is one thing (``storage.history``:
their newest judgment of it, wherever it was made), so a pool never asks them for it again:
when a person grades a pair for the first time, every other pool holding it gets a row of
theirs for its candidate, judged (``done_at``) on one of its judgment slots (the lowest
free one, or one beyond the candidate's own when they are all taken). That row is what the
pool's app, tallies and progress already read: the pair is not offered to them, it fills
one of the candidate's slots (it counts toward the pool's overlap like a judgment made
there), and it is among the items they judged in the pool. The row's revision starts at 1,
as a judged item's does, and has no judgment of its own: what it shows is the person's
current grade of the pair; a change made from either pool is a new judgment of that one
grade, which every release holding the pair then reflects.

A new candidate of a pair people already graded gets the same rows when it is added.

A grade is one thing under one rubric only: the rows come from grades under the rubric
version in force (the judgment's own, for a grade just made in the app; ``rubric`` given by
the caller otherwise, since the version in force is the app's configuration, not the
database's). A pool built after the rubric changed asks people again for pairs they graded
under the old one, and their new grade then gives them their row in the pools built since;
an imported batch under another version fills no pool. A person's first grade of a pair
under a version (not only their first ever) is the one that gives the rows.
Every function takes a keyword-only ``session`` and never commits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from itertools import count
from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, select

from storage import annotator_tallies, tallies
from storage.models import (
    Assignment,
    Judgment,
    Pool,
    PoolCandidate,
    User,
    utcnow,
)
from storage.tallies import NO_SYNC, SlotChange

# Rows of a new pool counted candidate by candidate (``tallies.apply_pools``) up to this
# many; past it its tallies are counted from scratch (``tallies.refill``), in a few
# statements.
ONE_BY_ONE = 500
PAGE = 10_000  # candidates named in one statement


def first_grade(
    user: User,
    pool_id: int,
    judgment: Judgment,
    *,
    session: Session,
    now: datetime,
) -> None:
    """``user`` judged their item in pool ``pool_id`` for the first time, writing
    ``judgment`` (under the rubric in force; ``tallies.judging`` locked its pair). When
    it is their first grade of the pair under that rubric version, the other pools holding
    the pair count it theirs (``graded_elsewhere``); otherwise only this pool's tally moves.
    """
    others: Sequence[tuple[int, int]] = []
    if user.kind == "human":
        # Graded before under this rubric version: the other pools have their row already
        # (or asked them again after a rubric change). One statement.
        earlier = aliased(Judgment)
        same_rubric_before = select(earlier.id).where(
            earlier.user_id == user.id,
            earlier.query_id == judgment.query_id,
            earlier.chunk_id == judgment.chunk_id,
            earlier.rubric_version == judgment.rubric_version,
            earlier.id != judgment.id,
        )
        others = session.exec(
            select(PoolCandidate.pool_id, PoolCandidate.id).where(
                PoolCandidate.query_id == judgment.query_id,
                PoolCandidate.chunk_id == judgment.chunk_id,
                PoolCandidate.pool_id != pool_id,
                ~same_rubric_before.exists(),
            )
        ).all()
    if others:
        graded_elsewhere(user, pool_id, others, session=session, now=now)
    else:
        annotator_tallies.judged_first_time(pool_id, user.id, session=session)


def graded_elsewhere(
    user: User,
    pool_id: int,
    counted: Iterable[tuple[int, int]],
    *,
    session: Session,
    now: datetime,
) -> None:
    """``user`` graded a pair for the first time in pool ``pool_id`` (their item there is
    judged: one more done, counted here); ``counted`` are the (pool, candidate) of the pair
    of other pools to count it. Each candidate of another pool
    gets their row, judged, on a slot; the tallies of every pool are then updated in one
    order (``tallies.apply_pools``)."""
    changes: dict[int, list[SlotChange]] = defaultdict(list)
    done = [(pool_id, user.id)]
    for other_pool, candidate in sorted(counted, key=lambda row: row[1]):  # the lock order
        if other_pool == pool_id:
            continue
        judged, took_slot, found = _judged_here(
            other_pool, candidate, user.id, session=session, now=now
        )
        if took_slot:
            finders = (user.id,) if found else ()
            changes[other_pool].append(SlotChange(candidate, takers=(user.id,), finders=finders))
        if judged:
            done.append((other_pool, user.id))
    pools = [(session.get(Pool, p), c) for p, c in sorted(changes.items())]
    tallies.apply_pools([(p, c) for p, c in pools if p is not None], session=session, done=done)


def _judged_here(
    pool_id: int, candidate: int, user_id: int, *, session: Session, now: datetime
) -> tuple[bool, bool, bool]:
    """Make ``user_id``'s row for ``candidate`` judged, holding a slot: whether it was made
    judged now, whether it took a slot to be, and whether that row was theirs as the
    candidate's finder (never offered to them: their grade made elsewhere fills a slot of
    it all the same, as anyone's does)."""
    mine = session.exec(
        select(Assignment).where(
            Assignment.candidate_id == candidate, Assignment.user_id == user_id
        )
    ).first()
    if mine is not None and mine.done_at is not None:
        return False, False, False  # judged here already
    if mine is not None and mine.slot is not None:
        # Held open (another tab): judged now; the revision moves, so that a grade sent
        # from the tab is refused as a stale one instead of being counted twice.
        session.execute(
            update(Assignment)
            .where(Assignment.id == mine.id)
            .values(done_at=now, revision=Assignment.revision + 1),
            execution_options=NO_SYNC,
        )
        return True, False, False
    used = _used_slots([candidate], session=session)[candidate]
    slot = next(slot for slot in count() if slot not in used)
    if mine is None:
        row = _judged_row(pool_id, candidate, user_id, slot, now)
        session.execute(insert(Assignment), [row])
        return True, True, False
    # Skipped, a hold that lapsed, or found by them (the finder's mark stays).
    session.execute(
        update(Assignment)
        .where(Assignment.id == mine.id)
        .values(slot=slot, done_at=now, skipped_at=None, revision=Assignment.revision + 1),
        execution_options=NO_SYNC,
    )
    return True, True, mine.found_at is not None


def _judged_row(pool_id: int, candidate: int, user_id: int, slot: int, now: datetime) -> dict:
    """A person's row for a candidate whose pair they graded: judged, on ``slot``, at
    revision 1 as a judged item is, with no judgment of its own."""
    return {
        "pool_id": pool_id,
        "candidate_id": candidate,
        "user_id": user_id,
        "slot": slot,
        "revision": 1,
        "taken_at": now,
        "expires_at": now,
        "done_at": now,
    }


def earlier_grades(
    pool: Pool,
    keys: set[tuple[int, int]],
    *,
    session: Session,
    now: datetime,
    fresh: bool,
    rubric: str | None,
) -> int:
    """Rows for the people who graded the pairs ``keys`` (query key, chunk key) of
    ``pool``'s new candidates before (in another pool or an import) under rubric version
    ``rubric`` (None: any version, for callers with no rubric in force), and their tallies:
    counted from scratch in a ``fresh`` pool (made in this transaction: nobody else writes
    to it) when there are many. Returns how many rows were made. Run after the candidates'
    judges are counted (``tallies.judges_counted``: people with a judged row)."""
    changes, done = _rows_for_grades(pool, keys, session=session, now=now, rubric=rubric)
    if fresh and len(done) > ONE_BY_ONE:
        tallies.refill(pool, session=session)
    elif done:
        tallies.apply_pools([(pool, changes)], session=session, done=done)
    return len(done)


def _rows_for_grades(
    pool: Pool,
    keys: set[tuple[int, int]] | None,
    *,
    session: Session,
    now: datetime,
    rubric: str | None,
    batch_id: int | None = None,
) -> tuple[list[SlotChange], list[tuple[int, int]]]:
    """Rows, judged on a slot, for the people who graded the pairs of ``pool``'s candidates
    (those of ``keys`` when given: new candidates, no slot of which is taken; or the pairs
    of the imported ``batch_id``) under rubric version ``rubric`` (None: any) where they
    have none. Returns the slots' changes and the (pool id, user id) of each row, for the
    tallies."""
    imported: tuple[Any, ...] = () if batch_id is None else (Judgment.batch_id == batch_id,)
    if rubric is not None:
        imported += (Judgment.rubric_version == rubric,)
    rows = session.exec(
        select(
            PoolCandidate.id,
            PoolCandidate.query_id,
            PoolCandidate.chunk_id,
            Judgment.user_id,
            Assignment.id,
            Assignment.slot,
            Assignment.found_at.is_not(None),
        )
        .join(
            Judgment,
            (Judgment.query_id == PoolCandidate.query_id)
            & (Judgment.chunk_id == PoolCandidate.chunk_id),
        )
        .join(User, User.id == Judgment.user_id)
        .join(
            Assignment,
            (Assignment.candidate_id == PoolCandidate.id)
            & (Assignment.user_id == Judgment.user_id),
            isouter=True,
        )
        .where(
            PoolCandidate.pool_id == pool.id,
            User.kind == "human",
            # No row of theirs, or one not judged: held open (a tab), skipped, lapsed, or
            # the finder's (never offered to them), as ``_judged_here`` takes them.
            Assignment.done_at.is_(None),
            *imported,
        )
        .distinct()
    ).all()
    people: dict[int, dict[int, tuple | None]] = defaultdict(dict)
    done: list[tuple[int, int]] = []
    for candidate, query, chunk, user, row, slot, found in rows:
        if keys is not None and (query, chunk) not in keys:
            continue
        if row is not None and slot is not None:
            # Held open (another tab): judged now, on the slot it holds; the revision
            # moves, so that a grade sent from the tab is refused as a stale one.
            session.execute(
                update(Assignment)
                .where(Assignment.id == row)
                .values(done_at=now, revision=Assignment.revision + 1),
                execution_options=NO_SYNC,
            )
            done.append((pool.id, user))
        else:
            people[candidate][user] = None if row is None else (row, found)
    if not people:
        return [], done
    used = _used_slots(list(people), session=session) if keys is None else {}
    made, changes = [], []
    for candidate in sorted(people):
        free = (slot for slot in count() if slot not in used.get(candidate, ()))
        users = sorted(people[candidate])
        for user, slot in zip(users, free, strict=False):
            if (mine := people[candidate][user]) is None:
                made.append(_judged_row(pool.id, candidate, user, slot, now))
            else:  # the finder's mark stays; their grade fills a slot as anyone's does
                session.execute(
                    update(Assignment)
                    .where(Assignment.id == mine[0])
                    .values(
                        slot=slot, done_at=now, skipped_at=None, revision=Assignment.revision + 1
                    ),
                    execution_options=NO_SYNC,
                )
            done.append((pool.id, user))
        finders = tuple(u for u in users if (people[candidate][u] or (0, False))[1])
        changes.append(SlotChange(candidate, takers=tuple(users), finders=finders))
    if made:
        session.execute(insert(Assignment), made)
    return changes, done


def _used_slots(candidates: list[int], *, session: Session) -> dict[int, set[int]]:
    """The slots taken of each of ``candidates``, read a page of them at a time."""
    used: dict[int, set[int]] = defaultdict(set)
    for start in range(0, len(candidates), PAGE):
        page = candidates[start : start + PAGE]
        for candidate, slot in session.exec(
            select(Assignment.candidate_id, Assignment.slot).where(
                Assignment.candidate_id.in_(page), Assignment.slot.is_not(None)
            )
        ):
            used[candidate].add(slot)
    return used


def imported(
    batch_id: int,
    query_set_id: int,
    corpus_version_id: int,
    *,
    session: Session,
    rubric: str | None,
) -> None:
    """A batch of judgments was imported: in every pool over its query set and corpus
    version, its person gets their row for each pair of it they had none for, when the
    batch is under rubric version ``rubric`` (the one in force; None: any); the tallies
    of all of them in one order (``tallies.apply_pools``: an import beside keypresses)."""
    pools = session.exec(
        select(Pool)
        .where(Pool.query_set_id == query_set_id, Pool.corpus_version_id == corpus_version_id)
        .order_by(Pool.id)
    ).all()
    changes, done = [], []
    now = utcnow()
    for pool in pools:
        slots, made = _rows_for_grades(
            pool, None, session=session, now=now, rubric=rubric, batch_id=batch_id
        )
        changes.append((pool, slots))
        done += made
    tallies.apply_pools(changes, session=session, done=done)
