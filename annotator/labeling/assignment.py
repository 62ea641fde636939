"""Who judges what next. No Streamlit in here: the labeling page and the tests call these.

An annotator works one query at a time, through that query's candidates in an order of
their own (the pool's seeded shuffle, reseeded per annotator, so annotators do not all
start on the same chunk), then moves to the query whose judgment slots are least covered;
the queries of the pool's sample (``qrels sample``: people judge them completely, for
metric estimates) come before any other.
Each call is one short transaction; what keeps two annotators from over-judging a candidate
is the database (see ``storage.slots``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from typing import Any, TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from annotator.labeling.active_pooling import choose_next, stopping_rule
from annotator.rubric import current_version
from pooling.document_places import Place, place_of
from pooling.grades import check_grade, check_unsure_note
from pooling.i18n import Refused
from pooling.pool import shuffle_key
from pooling.pool_config import GoldSettings, is_active
from storage import active_records, gold_records, history, sample_records, slots
from storage.accounts import acting
from storage.candidate_texts import candidate_rows, neighbour_texts
from storage.catalog import query_key_of
from storage.db import lost_a_race, referenced, retried, session_scope
from storage.models import Assignment, Pool, User
from storage.pool_records import get_pool

ATTEMPTS = 20  # candidates tried before giving up a round lost to other annotators
T = TypeVar("T")


@dataclass(frozen=True)
class Item:
    """One (query, chunk) as the annotator sees it: no system, rank, score or other
    annotator's grade. ``revision`` is what a submission must name (see ``submit``)."""

    assignment_id: int
    revision: int
    query_key: int
    query_id: str
    query_text: str
    query_notes: str
    chunk_id: str
    chunk_text: str
    title: str
    document_key: int
    position: int
    judged: bool
    grade: int | None = None
    unsure: bool = False
    note: str = ""
    place: Place = Place()  # the chunk's page(s) and section, where its document keeps them


def _item(assignment: Assignment, session: Session) -> Item:
    query, chunk, document = candidate_rows(assignment.candidate_id, session=session)
    judgment = history.current_judgment(assignment, session=session)
    return Item(
        assignment_id=assignment.id,
        revision=assignment.revision,
        query_key=query.id,
        query_id=query.query_id,
        query_text=query.text,
        query_notes=query.notes,
        chunk_id=chunk.chunk_id,
        chunk_text=chunk.text,
        title=document.title,
        document_key=document.id,
        position=chunk.position,
        judged=assignment.done_at is not None,
        grade=judgment.grade if judgment else None,
        unsure=judgment.unsure if judgment else False,
        note=judgment.note if judgment else "",
        place=place_of(document.meta, chunk.span_start, chunk.span_end),
    )


def _order_key(pool: Pool, user: User, query_key: int, chunk_key: int) -> int:
    return shuffle_key(
        f"{pool.config.get('seed', pool.name)}:{user.id}", str(query_key), str(chunk_key)
    )


def _own_gold(pool: Pool, user: User, session: Session) -> list[gold_records.OwnGold]:
    """The gold items that are part of ``user``'s work (none in a pool without gold)."""
    settings = GoldSettings.of(pool.config)
    if settings is None:
        return []
    return gold_records.own_gold(pool, user, settings.rate, session=session)


def _with_gold(
    here: list[slots.OpenCandidate], gold: list[gold_records.OwnGold], query_key: int | None
) -> list[slots.OpenCandidate]:
    """One query's open candidates (every query's skipped ones for None) with the gold items
    of that query still to come: a gold item is offered as one more candidate of its query,
    in the annotator's own order, so that nothing tells it apart."""
    extra = [
        slots.OpenCandidate(g.candidate_id, g.query_key, g.chunk_key, g.skipped, gold=True)
        for g in gold
        if g.pending and (g.query_key == query_key if query_key is not None else g.skipped)
    ]
    return here + extra


def _choose(pool: Pool, user: User, session: Session) -> list[slots.OpenCandidate]:
    """The candidates to try, best first: the current query's, else the least covered
    query's with something open to this annotator (the sample's queries first), in their
    own order; in an active pool, next a query's newly chosen candidate (a sampled query's
    first), until its stopping rule stops it (a sampled query: until every candidate was
    asked about); skipped ones last. Reads one query's candidates at a time and the
    tallies, never the whole pool."""
    current = slots.last_query_key(pool, user, session=session)
    gold = _own_gold(pool, user, session)
    if current is not None:
        here = _with_gold(
            slots.open_candidates(pool, user, current, session=session), gold, current
        )
        if any(not c.skipped for c in here):
            return _ordered(pool, user, here)
        if is_active(pool.config) and (chosen := _choose_active(pool, user, current, session)):
            return chosen
    skipped = _with_gold(slots.skipped_candidates(pool, user, session=session), gold, None)
    if slots.pool_standing(pool, user, session=session).open > sum(not c.gold for c in skipped):
        budget = stopping_rule(pool).budget * pool.overlap if is_active(pool.config) else None
        for query in chain(
            sample_records.sampled_queries_by_coverage(pool, session=session, exclude=current),
            slots.queries_by_coverage(
                pool, user, session=session, exclude=current, per_query_slots=budget
            ),
        ):
            here = _with_gold(
                slots.open_candidates(pool, user, query, session=session), gold, query
            )
            if unskipped := [c for c in here if not c.skipped]:
                return _ordered(pool, user, unskipped)
    if is_active(pool.config):
        # Nothing chosen is open: a sampled query with a candidate not asked about yet
        # goes first (judged completely, past the budget), then the least covered query
        # that may still choose. Queries that spent their budget are passed over unasked:
        # one question a keypress, however many queries are done.
        budget = stopping_rule(pool).budget
        for query in chain(
            sample_records.sampled_queries_to_choose(pool, session=session, exclude=current),
            slots.queries_by_coverage(
                pool,
                user,
                session=session,
                exclude=current,
                per_query_slots=budget * pool.overlap,
                asked_below=budget,
            ),
        ):
            if chosen := _choose_active(pool, user, query, session):
                return chosen
    return _ordered(pool, user, skipped)


def _choose_active(
    pool: Pool, user: User, query_key: int, session: Session
) -> list[slots.OpenCandidate]:
    """The query's next candidate by active pooling, if the query goes on and this
    annotator may take it."""
    if choose_next(pool, query_key, session=session) is None:
        return []
    return _ordered(pool, user, slots.open_candidates(pool, user, query_key, session=session))


def _ordered(pool: Pool, user: User, candidates: list[slots.OpenCandidate]):
    """Skipped ones last, else in this annotator's own order; a whole query first (the
    skipped ones of the least covered query come first among skipped)."""
    return sorted(
        candidates,
        key=lambda c: (c.skipped, _order_key(pool, user, c.query_key, c.chunk_key)),
    )


Work = Callable[[Pool, User, Session], T]


def in_turn(
    engine: Engine, pool_name: str, user_id: int, work: Work[T], *, login: str | None = None
) -> T | None:
    """``work(pool, user, session)`` in one transaction, on behalf of ``user_id``; a round
    lost to another annotator (``TRY_AGAIN``: a slot taken a moment before, or a
    transaction PostgreSQL chose to undo when two collided) is simply tried again, up to
    ATTEMPTS times, after which it is None. Raises ``Refused`` unless ``user_id`` may act
    (with ``login``, in that live login session: ``storage.accounts.acting``)."""
    for _ in range(ATTEMPTS):
        try:
            with session_scope(engine) as session:
                pool = get_pool(pool_name, session=session)
                found = work(pool, acting(user_id, session=session, login=login), session)
        except DBAPIError as error:
            if not lost_a_race(error):
                raise
            continue
        if found is not TRY_AGAIN:
            return found
    return None


TRY_AGAIN: Any = object()  # every candidate tried was taken by others meanwhile


def next_item(engine: Engine, pool_name: str, user_id: int) -> Item | None:
    """The item ``user_id`` should judge now in pool ``pool_name``: the one they hold, else
    a newly claimed one; None when nothing is left for them."""
    return in_turn(engine, pool_name, user_id, current)


def current(pool: Pool, user: User, session: Session) -> Item | None:
    """``next_item`` inside a transaction: ``TRY_AGAIN`` when every candidate tried was
    taken meanwhile."""
    if is_active(pool.config):
        active_records.lock(pool, session=session)
    slots.release_expired(pool, session=session)
    held = slots.active_assignment(pool, user, session=session)
    if held is not None:
        slots.renew(held, session=session)
        return _item(held, session)
    candidates = _choose(pool, user, session)
    if not candidates:
        return None
    for candidate in candidates[:ATTEMPTS]:
        claimed = slots.claim(
            pool, candidate.candidate_id, user, session=session, unbounded=candidate.gold
        )
        if claimed is not None:
            return _item(claimed, session)
    return TRY_AGAIN


def submit(
    engine: Engine,
    item: Item,
    user_id: int,
    *,
    grade: int | None = None,
    unsure: bool = False,
    note: str = "",
    seconds: float | None = None,
    login: str | None = None,
) -> bool:
    """Record a grade (0–3) or ``unsure`` (which needs a note) on ``item``. False when it
    was not written: the same submission twice, or a hold that timed out and went to
    someone else. Raises ``LocalizedError`` for a grade outside 0–3 or unsure without note,
    ``Refused`` unless ``user_id`` may act (with ``login``, in that live login session: a
    key pressed after a logout in another tab writes nothing)."""
    check_unsure_note(unsure, note)
    if not unsure:
        check_grade(grade)
    rubric_version = current_version()

    def record(session: Session) -> bool:
        judgment = slots.record_judgment(
            item.assignment_id,
            acting(user_id, session=session, login=login),
            session=session,
            expected_revision=item.revision,
            grade=grade,
            unsure=unsure,
            note=note.strip(),
            seconds=seconds,
            rubric_version=rubric_version,
        )
        return judgment is not None

    return retried(engine, record)


def skip(engine: Engine, item: Item, user_id: int, *, login: str | None = None) -> None:
    """Put ``item`` back: its slot is free for others, and it comes back to this annotator
    once nothing else is open to them. Raises ``Refused`` unless ``user_id`` may act (with
    ``login``, in that live login session) and holds the item."""

    def give_up(session: Session) -> None:
        acting(user_id, session=session, login=login)
        assignment = referenced(Assignment, item.assignment_id, session=session)
        if assignment.user_id != user_id:
            raise Refused("not_yours")
        slots.give_up(
            referenced(Pool, assignment.pool_id, session=session), assignment, session=session
        )

    retried(engine, give_up)


def judged_items(engine: Engine, pool_name: str, user_id: int) -> list[Item]:
    """What ``user_id`` judged in the pool, oldest first, each with its current grade."""
    with session_scope(engine) as session:
        pool, user = get_pool(pool_name, session=session), acting(user_id, session=session)
        return [_item(a, session) for a in slots.judged_assignments(pool, user, session=session)]


def judged_count(engine: Engine, pool_name: str, user_id: int) -> int:
    """How many items ``user_id`` has judged in the pool."""
    count = in_turn(engine, pool_name, user_id, lambda p, u, s: slots.judged_count(p, u, session=s))
    return count or 0


def judged_item(engine: Engine, pool_name: str, user_id: int, index: int) -> Item | None:
    """The ``index``-th item (from 0, oldest first) ``user_id`` judged in the pool, with its
    current grade; None past the end."""

    def work(pool: Pool, user: User, session: Session) -> Item | None:
        return judged_at(
            pool, user, index, slots.judged_count(pool, user, session=session), session
        )

    return in_turn(engine, pool_name, user_id, work)


def judged_at(pool: Pool, user: User, index: int, judged: int, session: Session) -> Item | None:
    """``judged_item`` inside a transaction, ``judged`` being how many they judged."""
    back = judged - 1 - index
    found = slots.judged_assignment(pool, user, back, session=session) if back >= 0 else None
    return _item(found, session) if found is not None else None


def reload(engine: Engine, item: Item) -> Item:
    """``item`` as it is now (its grade and revision after changes)."""
    with session_scope(engine) as session:
        return _item(referenced(Assignment, item.assignment_id, session=session), session)


def neighbours(engine: Engine, item: Item) -> tuple[str | None, str | None]:
    """The texts of the chunks before and after this one in its document, for context."""
    with session_scope(engine) as session:
        return neighbour_texts(item.document_key, item.position, session=session)


@dataclass(frozen=True)
class Progress:
    """Done and assigned (done, held, or still open to this annotator) in a query and pool."""

    query_done: int
    query_total: int
    pool_done: int
    pool_total: int


def progress(engine: Engine, pool_name: str, user_id: int, query_id: str | None) -> Progress:
    """``user_id``'s items judged, and judged + held + still open to them, in the query
    ``query_id`` and in the pool."""

    def work(pool: Pool, user: User, session: Session) -> Progress:
        key = (
            None if query_id is None else query_key_of(pool.query_set_id, query_id, session=session)
        )
        return standing(pool, user, key, session)

    return in_turn(engine, pool_name, user_id, work) or Progress(0, 0, 0, 0)


def pool_with_work(engine: Engine, pool_names: list[str], user_id: int) -> str | None:
    """The first of ``pool_names`` in which ``user_id`` holds an item or has one open to
    them (the pool a person who chose none yet lands in); None when there is none."""
    with session_scope(engine) as session:
        user = acting(user_id, session=session)
        for name in pool_names:
            held = slots.pool_standing(get_pool(name, session=session), user, session=session)
            if held.held or held.open > 0:
                return name
    return None


def standing(
    pool: Pool, user: User, query_key: int | None, session: Session, *, holds: bool | None = None
) -> Progress:
    """``progress`` inside a transaction, for the query ``query_key`` (a primary key);
    ``holds``: whether ``user`` holds an item, when the caller knows."""
    here = slots.Standing(0, 0, 0)
    if query_key is not None:
        here = slots.query_standing(pool, user, query_key, session=session)
    whole = slots.pool_standing(pool, user, session=session, holds=holds)
    # Gold items still to come count as open work from the start, as they will be
    # offered: the totals do not grow when one comes up.
    gold = [g for g in _own_gold(pool, user, session) if g.pending]
    in_query = sum(g.query_key == query_key for g in gold)
    in_pool = sum(g.counted for g in gold)
    return Progress(
        query_done=here.done,
        query_total=here.done + here.held + here.open + in_query,
        pool_done=whole.done,
        pool_total=whole.done + whole.held + whole.open + in_pool,
    )
