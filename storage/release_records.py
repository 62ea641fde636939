"""Releases in the database, and the snapshot a release is written from.

A release is written from one ``ReleaseSnapshot``, read in a single transaction, so that
its files agree with each other whatever annotators do meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from storage.active_records import not_chosen
from storage.history import candidate_judgments, latest_adjudications, pool_history
from storage.models import (
    Chunk,
    CorpusVersion,
    Document,
    Pool,
    Query,
    QuerySet,
    Release,
)
from storage.pool_records import pool_candidates


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


def list_releases(*, session: Session) -> list[Release]:
    return list(session.exec(select(Release).order_by(Release.id)))


@dataclass
class ReleaseSnapshot:
    """Everything a release of a pool is made from, as it stood at one moment."""

    pool_name: str
    pool_config: dict
    overlap: int
    query_set: QuerySet
    corpus_version: CorpusVersion
    queries: list[Query]
    judgments: list[tuple]  # ``storage.history.candidate_judgments`` rows
    decisions: dict[tuple[str, str], tuple]  # ``storage.history.latest_adjudications``
    candidates: list[tuple[str, str]]
    not_chosen: set[tuple[str, str]]  # an active pool's candidates nobody was asked about
    parents: dict[str, str]  # chunk id -> document id
    history: list[dict]  # ``storage.history.pool_history``


def read_snapshot(pool: Pool, *, session: Session) -> ReleaseSnapshot:
    """All that a release of ``pool`` is written from; call it in one transaction."""
    query_set = session.get(QuerySet, pool.query_set_id)
    corpus_version = session.get(CorpusVersion, pool.corpus_version_id)
    return ReleaseSnapshot(
        pool_name=pool.name,
        pool_config=pool.config,
        overlap=pool.overlap,
        query_set=query_set,
        corpus_version=corpus_version,
        queries=queries_of(query_set, session=session),
        judgments=candidate_judgments(pool, session=session),
        decisions=latest_adjudications(pool, session=session),
        candidates=[(c.query_id, c.chunk_id) for c in pool_candidates(pool, session=session)],
        not_chosen=not_chosen(pool, session=session),
        parents=chunk_parents(corpus_version, session=session),
        history=pool_history(pool, session=session),
    )
