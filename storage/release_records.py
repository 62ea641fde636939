"""Releases in the database, and the reads a release is written from."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlmodel import Session, select

from storage.models import (
    Adjudication,
    Chunk,
    CorpusVersion,
    Document,
    Judgment,
    Pool,
    Query,
    QuerySet,
    Release,
    User,
)


def find_release(version: str, *, session: Session) -> Release | None:
    return session.exec(select(Release).where(Release.version == version)).first()


def record_release(
    version: str, pool: Pool, manifest: dict, manifest_sha256: str, *, session: Session
) -> Release:
    """Record a written release; the unique version makes a second one with it fail."""
    release = Release(
        version=version, pool_id=pool.id, manifest=manifest, manifest_sha256=manifest_sha256
    )
    session.add(release)
    session.flush()
    return release


def queries_of(query_set: QuerySet, *, session: Session) -> list[Query]:
    return list(
        session.exec(select(Query).where(Query.query_set_id == query_set.id).order_by(Query.id))
    )


def chunk_parents(corpus_version: CorpusVersion, *, session: Session) -> dict[str, str]:
    """Chunk id -> its document's id."""
    return dict(
        session.exec(
            select(Chunk.chunk_id, Document.doc_id)
            .join(Document, Document.id == Chunk.document_id)
            .where(Chunk.corpus_version_id == corpus_version.id)
        ).all()
    )


def pseudonym(user: User) -> str:
    """A stable stand-in for a person's name, the same in every release."""
    digest = hashlib.sha256(f"qrels-studio:{user.id}:{_iso(user.created_at)}".encode())
    return f"annotator-{digest.hexdigest()[:8]}"


def _iso(moment: datetime) -> str:
    return moment.replace(tzinfo=None).isoformat()


def history(pool: Pool, *, session: Session) -> list[dict]:
    """Every human judgment and every adjudication made in the pool, oldest first, with
    people under pseudonyms."""
    rows = []
    for judgment, user, query_id, chunk_id in session.exec(
        select(Judgment, User, Query.query_id, Chunk.chunk_id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .where(User.kind == "human", Judgment.pool_id == pool.id)
        .order_by(Judgment.id)
    ).all():
        rows.append(
            {
                "type": "judgment",
                "annotator": pseudonym(user),
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grade": judgment.grade,
                "unsure": judgment.unsure,
                "note": judgment.note,
                "revision": judgment.revision,
                "rubric_version": judgment.rubric_version,
                "seconds": judgment.seconds,
                "created_at": _iso(judgment.created_at),
            }
        )
    for decision, lead, query_id, chunk_id in session.exec(
        select(Adjudication, User, Query.query_id, Chunk.chunk_id)
        .join(User, User.id == Adjudication.user_id)
        .join(Query, Query.id == Adjudication.query_id)
        .join(Chunk, Chunk.id == Adjudication.chunk_id)
        .where(Adjudication.pool_id == pool.id)
        .order_by(Adjudication.id)
    ).all():
        rows.append(
            {
                "type": "adjudication",
                "lead": pseudonym(lead),
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grade": decision.grade,
                "rationale": decision.rationale,
                "policy": decision.policy,
                "created_at": _iso(decision.created_at),
            }
        )
    return rows


def list_releases(*, session: Session) -> list[Release]:
    return list(session.exec(select(Release).order_by(Release.id)))
