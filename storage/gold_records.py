"""Gold items in the database: (query, chunk) pairs of a pool whose grade a lead settled,
mixed into annotators' work (``annotator.quality.gold``).

A gold item is a candidate of its pool that needs no judgments of its own (``required``
0): it is never offered as ordinary work, and its final grade in a release is the gold
grade, whatever annotators give it. Each annotator may be handed it once, as a gold check,
on a slot of its own beyond any other (``storage.slots.claim(..., unbounded=True)``); the
check counts toward nobody's overlap. Every function takes a keyword-only ``session`` and
never commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, func, update
from sqlmodel import Session, select

from pooling.i18n import t
from pooling.pool import Candidate, Source
from storage import tallies
from storage.catalog import chunk_keys, query_keys
from storage.history import latest_judgments
from storage.models import (
    NOT_ASKED,
    AnnotatorTally,
    Assignment,
    Chunk,
    CorpusVersion,
    GoldItem,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    User,
)
from storage.pool_records import GOLD_PREFIX, ensure_candidates
from storage.tallies import SlotChange


@dataclass(frozen=True)
class GoldAdded:
    """What adding gold did: items added, pairs that were gold already, and how many of
    the added ones were not candidates of the pool before."""

    added: int
    already: int
    new_candidates: int

    def message(self, pool: str, lang: str | None = None) -> str:
        return t(
            "gold_added", lang, pool=pool, added=self.added, new=self.new_candidates,
            already=self.already,
        )  # fmt: skip


def add(
    pool: Pool,
    grades: dict[tuple[str, str], tuple[int, str]],
    *,
    source: str,
    user_id: int | None,
    session: Session,
) -> GoldAdded:
    """Make the pairs of ``grades`` ((query id, chunk id) -> (grade, rationale)) gold items
    of ``pool``, from ``source`` (``"adjudication"``, ``"release:<version>"``), by
    ``user_id`` (None: the command line). A pair gold already is left as it is."""
    queries = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
    chunks = chunk_keys(session.get(CorpusVersion, pool.corpus_version_id), session=session)
    present = {
        (q, c)
        for q, c in session.exec(
            select(GoldItem.query_id, GoldItem.chunk_id).where(GoldItem.pool_id == pool.id)
        )
    }
    wanted = {
        pair: value
        for pair, value in grades.items()
        if (queries[pair[0]], chunks[pair[1]]) not in present
    }
    provenance = [Source(f"{GOLD_PREFIX}{source}", None, None)]
    ids, new = ensure_candidates(
        pool,
        [Candidate(q, c, list(provenance)) for q, c in sorted(wanted)],
        session=session,
        required=NOT_ASKED,
    )
    asked = [ids[key] for key in ids if key not in new]  # candidates that were ordinary work
    tallies.apply(
        pool,
        [SlotChange(c, required=NOT_ASKED, set_required=True) for c in sorted(asked)],
        session=session,
    )
    for (query_id, chunk_id), (grade, rationale) in sorted(wanted.items()):
        session.add(
            GoldItem(
                pool_id=pool.id,
                query_id=queries[query_id],
                chunk_id=chunks[chunk_id],
                grade=grade,
                rationale=rationale,
                source=source,
                user_id=user_id,
            )
        )
    session.flush()
    return GoldAdded(len(wanted), len(grades) - len(wanted), len(new))


def _is_gold():
    return exists().where(
        GoldItem.pool_id == PoolCandidate.pool_id,
        GoldItem.query_id == PoolCandidate.query_id,
        GoldItem.chunk_id == PoolCandidate.chunk_id,
    )


def not_gold():
    """A condition on ``PoolCandidate``: it is not a gold item (active pooling never
    chooses one, and a release does not count one as never asked)."""
    return ~_is_gold()


def is_gold(pool_id: int, query_key: int, chunk_key: int, *, session: Session) -> bool:
    return (
        session.exec(
            select(GoldItem.id).where(
                GoldItem.pool_id == pool_id,
                GoldItem.query_id == query_key,
                GoldItem.chunk_id == chunk_key,
            )
        ).first()
        is not None
    )


def judged_first_time(pool_id: int, user_id: int, *, session: Session) -> None:
    """An annotator judged a gold item (a later change is not counted)."""
    session.execute(
        update(AnnotatorTally)
        .where(AnnotatorTally.pool_id == pool_id, AnnotatorTally.user_id == user_id)
        .values(gold_seen=AnnotatorTally.gold_seen + 1),
        execution_options={"synchronize_session": False},
    )


def next_gold(pool: Pool, user: User, prefer_query: int | None, *, session: Session) -> int | None:
    """The candidate id of a gold item ``user`` was never handed, one of ``prefer_query``'s
    if there is one (so that they stay in their query), else the first in an order of their
    own; None when they have seen every one. Reads the pool's gold items, not its
    candidates."""
    mine = exists().where(
        Assignment.candidate_id == PoolCandidate.id, Assignment.user_id == user.id
    )
    salt = (user.id * 7919) % 65521
    statement = (
        select(PoolCandidate.id)
        .select_from(GoldItem)
        .join(
            PoolCandidate,
            (PoolCandidate.pool_id == GoldItem.pool_id)
            & (PoolCandidate.query_id == GoldItem.query_id)
            & (PoolCandidate.chunk_id == GoldItem.chunk_id),
        )
        .where(GoldItem.pool_id == pool.id, ~mine)
        .order_by(
            (GoldItem.query_id == (prefer_query or -1)).desc(),
            ((GoldItem.id % 65521) * 32749 + salt) % 65521,
        )
    )
    return session.exec(statement.limit(1)).first()


@dataclass(frozen=True)
class Gold:
    """A gold item as a lead or a release reads it."""

    query_id: str
    chunk_id: str
    grade: int
    rationale: str
    source: str
    created_at: datetime


def items(pool: Pool, *, session: Session) -> list[Gold]:
    """The pool's gold items, by query and chunk id."""
    rows = session.exec(
        select(
            Query.query_id,
            Chunk.chunk_id,
            GoldItem.grade,
            GoldItem.rationale,
            GoldItem.source,
            GoldItem.created_at,
        )
        .join(Query, Query.id == GoldItem.query_id)
        .join(Chunk, Chunk.id == GoldItem.chunk_id)
        .where(GoldItem.pool_id == pool.id)
        .order_by(Query.query_id, Chunk.chunk_id)
    )
    return [Gold(*row) for row in rows]


def count(pool: Pool, *, session: Session) -> int:
    """How many gold items the pool has."""
    statement = select(func.count()).select_from(GoldItem).where(GoldItem.pool_id == pool.id)
    return session.exec(statement).one()


def _on_gold(pool: Pool):
    """Judgments of the pool's gold items, joined to the gold item."""
    return (
        GoldItem,
        (GoldItem.query_id == Judgment.query_id)
        & (GoldItem.chunk_id == Judgment.chunk_id)
        & (GoldItem.pool_id == pool.id),
    )


def checks(pool: Pool, *, session: Session) -> list[tuple]:
    """Each human's current judgment of each gold item, among those made after it became
    gold (an earlier one was not a check: nobody knew): ``(annotator, query id, chunk id,
    grade, gold grade)``; unsure judgments have grade None."""
    latest = latest_judgments(
        User.kind == "human", Judgment.created_at >= GoldItem.created_at, join=_on_gold(pool)
    )
    rows = session.exec(
        select(User.name, Query.query_id, Chunk.chunk_id, Judgment.grade, GoldItem.grade)
        .join(latest, latest.c.id == Judgment.id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .join(*_on_gold(pool))
        .order_by(User.name, Query.query_id, Chunk.chunk_id)
    )
    return [tuple(row) for row in rows]
