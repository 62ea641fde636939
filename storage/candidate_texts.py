"""What a person is shown of one candidate: its query, its passage and document, and the
passages just before and after it. Every function takes a keyword-only ``session``."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from storage.models import Chunk, Document, Pool, PoolCandidate, Query


@dataclass
class CandidateView:
    """What a lead sees of a candidate: the query and the passage with its neighbours."""

    query_text: str
    query_notes: str
    title: str
    text: str
    before: str | None
    after: str | None


def candidate_view(pool: Pool, query_id: str, chunk_id: str, *, session: Session) -> CandidateView:
    # The query and chunk by their ids (unique in the pool's set and version), not by maps
    # of every key: those read 200,000 chunk ids at L to show one candidate.
    query = session.exec(
        select(Query).where(Query.query_set_id == pool.query_set_id, Query.query_id == query_id)
    ).one()
    chunk = session.exec(
        select(Chunk).where(
            Chunk.corpus_version_id == pool.corpus_version_id, Chunk.chunk_id == chunk_id
        )
    ).one()
    document = session.get(Document, chunk.document_id)
    before, after = neighbour_texts(chunk.document_id, chunk.position, session=session)
    return CandidateView(query.text, query.notes, document.title, chunk.text, before, after)


def candidate_rows(candidate_key: int, *, session: Session) -> tuple[Query, Chunk, Document]:
    """The query, chunk and document of one candidate (by primary key), in one statement."""
    query, chunk, document = session.exec(
        select(Query, Chunk, Document)
        .select_from(PoolCandidate)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .join(Document, Document.id == Chunk.document_id)
        .where(PoolCandidate.id == candidate_key)
    ).one()
    return query, chunk, document


def neighbour_texts(
    document_key: int, position: int, *, session: Session
) -> tuple[str | None, str | None]:
    """The texts of the chunks just before and after ``position`` in a document."""
    around = dict(
        session.exec(
            select(Chunk.position, Chunk.text).where(
                Chunk.document_id == document_key,
                Chunk.position.in_([position - 1, position + 1]),
            )
        ).all()
    )
    return around.get(position - 1), around.get(position + 1)
