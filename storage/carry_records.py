"""Judgments carried across a chunking change, as the database keeps them: how each judged
candidate of a release maps onto the chunks of a pool's corpus version (``CarriedMapping``),
and which pools were carried from which release. What to carry is decided in
``pooling.carry_mapping`` and ``annotator.releases.carry``; every function takes a
keyword-only ``session`` and never commits.
"""

from __future__ import annotations

from sqlalchemy import insert
from sqlalchemy.orm import aliased
from sqlmodel import Session, select

from pooling.carry_mapping import MappingRow  # plain data, read by pure rules
from storage.catalog import chunk_keys, query_keys
from storage.models import CarriedMapping, Chunk, CorpusVersion, Document, Pool, Query, QuerySet


def record_mappings(
    pool: Pool, old_version: CorpusVersion, rows: list[MappingRow], *, session: Session
) -> None:
    """Store ``rows`` for ``pool`` (built on the new corpus version from a release on
    ``old_version``); ids are resolved to keys here."""
    if not rows:
        return
    queries = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
    old = chunk_keys(old_version, session=session)
    new = chunk_keys(session.get(CorpusVersion, pool.corpus_version_id), session=session)
    session.execute(
        insert(CarriedMapping),
        [
            {
                "pool_id": pool.id,
                "query_id": queries[row.query_id],
                "old_chunk_id": old[row.old_chunk_id],
                "grade": row.grade,
                "mapping": row.mapping,
                "new_chunk_id": new[row.new_chunk_id] if row.new_chunk_id else None,
                "shared": row.shared,
                "share_old": row.share_old,
                "share_new": row.share_new,
            }
            for row in rows
        ],
    )


def mapping_rows(pool: Pool, *, session: Session) -> list[MappingRow]:
    """Every stored mapping of ``pool``, by query, old chunk and new chunk."""
    old, new = aliased(Chunk), aliased(Chunk)
    rows = session.exec(
        select(
            Query.query_id,
            old.chunk_id,
            Document.doc_id,
            CarriedMapping.grade,
            CarriedMapping.mapping,
            new.chunk_id,
            CarriedMapping.shared,
            CarriedMapping.share_old,
            CarriedMapping.share_new,
        )
        .join(Query, Query.id == CarriedMapping.query_id)
        .join(old, old.id == CarriedMapping.old_chunk_id)
        .join(Document, Document.id == old.document_id)
        .join(new, new.id == CarriedMapping.new_chunk_id, isouter=True)
        .where(CarriedMapping.pool_id == pool.id)
        .order_by(CarriedMapping.id)
    ).all()
    return [MappingRow(*row) for row in rows]


def carried_pools(*, session: Session) -> list[Pool]:
    """The pools built by carrying a release's judgments (their config says from where)."""
    return [p for p in session.exec(select(Pool).order_by(Pool.id)) if "carried" in p.config]
