"""A lead's final grades in the database: append-only, the latest one counts."""

from __future__ import annotations

from sqlmodel import Session, select

from storage.catalog import chunk_keys, query_keys
from storage.models import Adjudication, Chunk, CorpusVersion, Pool, Query, QuerySet, User


def adjudicate(
    pool: Pool,
    query_id: str,
    chunk_id: str,
    grade: int,
    rationale: str,
    lead: User,
    policy: str,
    *,
    session: Session,
) -> Adjudication:
    """Record the final grade of a candidate; an earlier decision stays in the history.
    Raises ``ValueError`` for a grade outside 0–3, a missing rationale, or a non-lead."""
    if grade not in (0, 1, 2, 3):
        raise ValueError(f"grade must be 0, 1, 2 or 3, got {grade!r}")
    if not rationale.strip():
        raise ValueError("an adjudication needs a short rationale")
    if lead.role != "lead":
        raise ValueError(f"only leads adjudicate; {lead.name} is an {lead.role}")
    queries = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
    chunks = chunk_keys(session.get(CorpusVersion, pool.corpus_version_id), session=session)
    decision = Adjudication(
        pool_id=pool.id,
        query_id=queries[query_id],
        chunk_id=chunks[chunk_id],
        user_id=lead.id,
        grade=grade,
        rationale=rationale.strip(),
        policy=policy,
    )
    session.add(decision)
    session.flush()
    return decision


def latest_adjudications(pool: Pool, *, session: Session) -> dict[tuple[str, str], tuple]:
    """(query id, chunk id) -> (grade, rationale, lead name, created time) of the latest
    decision per candidate."""
    rows = session.exec(
        select(
            Query.query_id,
            Chunk.chunk_id,
            Adjudication.grade,
            Adjudication.rationale,
            User.name,
            Adjudication.created_at,
        )
        .join(Query, Query.id == Adjudication.query_id)
        .join(Chunk, Chunk.id == Adjudication.chunk_id)
        .join(User, User.id == Adjudication.user_id, isouter=True)
        .where(Adjudication.pool_id == pool.id)
        .order_by(Adjudication.id)
    ).all()
    return {(q, c): (grade, why, who, when) for q, c, grade, why, who, when in rows}
