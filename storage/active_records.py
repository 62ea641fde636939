"""Active pools in the database: a query's candidates with what is known of them, and
choosing one.

An active pool stores every candidate it may reach with ``required = 0``: nobody is asked
about it until active pooling chooses it, which sets ``required`` to the pool's overlap;
from then on it is claimed and judged like any fixed pool's candidate. The order in which
candidates were chosen is the order of their first assignment. Every function takes a
keyword-only ``session`` and never commits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, text, update
from sqlmodel import Session, select

from pooling.retrievers import indexed_text
from storage import tallies
from storage.gold_records import not_gold
from storage.history import latest_judgments
from storage.models import (
    NOT_ASKED,
    Assignment,
    CandidateSource,
    Chunk,
    Document,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    User,
)
from storage.tallies import SlotChange

LOCK_SPACE = 0x5172  # first key of this module's PostgreSQL advisory locks


@dataclass
class QueryCandidate:
    """One candidate of a query in an active pool, as active pooling needs it."""

    candidate_id: int
    chunk_id: str
    chunk_key: int
    fused_rank: int | None  # None for candidates added later (top-ups, annotators' finds)
    chosen: bool
    first_assignment: int | None  # smaller = asked about earlier
    grades: list[int] = field(default_factory=list)  # each human's latest grade


def query_candidates(pool: Pool, query_key: int, *, session: Session) -> list[QueryCandidate]:
    """The query's candidates, best fused rank first (unranked ones last, by id), without
    their texts (``candidate_texts``): telling whether a query goes on needs none."""
    fusion = pool.config.get("fusion") or "rrf"
    here = (PoolCandidate.pool_id == pool.id, PoolCandidate.query_id == query_key)
    first = (
        select(Assignment.candidate_id, func.min(Assignment.id).label("first"))
        .join(PoolCandidate, PoolCandidate.id == Assignment.candidate_id)
        .where(*here, Assignment.found_at.is_(None))  # a finder's row asks nobody
        .group_by(Assignment.candidate_id)
        .subquery()
    )
    rows = session.exec(
        select(
            PoolCandidate.id,
            Chunk.id,
            Chunk.chunk_id,
            CandidateSource.rank,
            PoolCandidate.required,
            first.c.first,
        )
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .join(
            CandidateSource,
            (CandidateSource.candidate_id == PoolCandidate.id) & (CandidateSource.system == fusion),
            isouter=True,
        )
        .join(first, first.c.candidate_id == PoolCandidate.id, isouter=True)
        .where(*here, not_gold())  # a gold item is never chosen: its grade is settled
    ).all()
    grades = _latest_grades(query_key, session=session)
    candidates = [
        QueryCandidate(
            candidate_id=candidate_id,
            chunk_id=chunk_id,
            chunk_key=chunk_key,
            fused_rank=rank,
            chosen=required != NOT_ASKED,
            first_assignment=first_id,
            grades=grades.get(chunk_key, []),
        )
        for candidate_id, chunk_key, chunk_id, rank, required, first_id in rows
    ]
    unranked = float("inf")
    return sorted(
        candidates,
        key=lambda c: (unranked if c.fused_rank is None else c.fused_rank, c.candidate_id),
    )


def candidate_texts(pool: Pool, query_key: int, *, session: Session) -> dict[int, tuple[int, str]]:
    """Candidate id -> (chunk key, title and text as retrievers index them), for the
    query's candidates."""
    rows = session.exec(
        select(PoolCandidate.id, Chunk.id, Document.title, Chunk.text)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .join(Document, Document.id == Chunk.document_id)
        .where(PoolCandidate.pool_id == pool.id, PoolCandidate.query_id == query_key)
    ).all()
    return {
        candidate_id: (chunk_key, indexed_text(title, text))
        for candidate_id, chunk_key, title, text in rows
    }


def _latest_grades(query_key: int, *, session: Session) -> dict[int, list[int]]:
    """Chunk key -> each human's latest grade for the query (unsure ones left out)."""
    latest = latest_judgments(Judgment.query_id == query_key, User.kind == "human")
    grades: dict[int, list[int]] = {}
    for chunk_key, grade in session.exec(
        select(Judgment.chunk_id, Judgment.grade).join(latest, latest.c.id == Judgment.id)
    ).all():
        if grade is not None:
            grades.setdefault(chunk_key, []).append(grade)
    return grades


def lock(pool: Pool, *, session: Session) -> None:
    """Serialise choosing within a pool until the transaction ends, so that two annotators
    never overrun a query's budget together. Take it before anything else in the
    transaction. On PostgreSQL an advisory lock, not a row lock on the pool: inserting a
    judgment takes a key-share lock on the pool row, which would deadlock against it.
    SQLite's write transactions are serial already."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            text("SELECT pg_advisory_xact_lock(:space, :pool)"),
            {"space": LOCK_SPACE, "pool": pool.id},
        )


def choose(pool: Pool, candidate_id: int, *, session: Session, reason: str | None = None) -> bool:
    """Ask for the pool's overlap of judgments on a candidate not chosen yet, recording why
    (``storage.models.ASKED_WHY``; its judgments copy it). False when it had been chosen
    already."""
    required = session.exec(
        select(PoolCandidate.required)
        .where(PoolCandidate.id == candidate_id)
        .with_for_update(key_share=True)
    ).one()
    if required != NOT_ASKED:
        return False
    change = SlotChange(candidate_id, required=pool.overlap, set_required=True)
    tallies.apply(pool, [change], session=session)
    if reason is not None:
        session.execute(
            update(PoolCandidate).where(PoolCandidate.id == candidate_id).values(reason=reason)
        )
    return True


def not_chosen(pool: Pool, *, session: Session) -> set[tuple[str, str]]:
    """(query id, chunk id) of the candidates active pooling never chose: nobody was asked
    about them, so a release counts them apart from unresolved ones."""
    rows = session.exec(
        select(Query.query_id, Chunk.chunk_id)
        .select_from(PoolCandidate)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(PoolCandidate.pool_id == pool.id, PoolCandidate.required == NOT_ASKED, not_gold())
    ).all()
    return set(rows)
