"""Read what the database holds: find versions by name, map user ids to keys.

Every function takes a keyword-only ``session`` and only reads.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from pooling.i18n import NotFound
from pooling.readers import Where
from storage.models import Chunk, CorpusVersion, Document, Pool, Query, QuerySet
from storage.status import PoolSummary, pool_counts


def _resolve(model, name: str | None, *, session: Session, kind: str, option: str):
    rows = session.exec(select(model).order_by(model.name)).all()
    known = ", ".join(r.name for r in rows) or "-"
    if name is None:
        if not rows:
            raise NotFound("version_none", kind=f"@{kind}")
        if len(rows) > 1:
            raise NotFound("version_ambiguous", kind=f"@{kind}", known=known, option=option)
        return rows[0]
    for row in rows:
        if row.name == name:
            return row
    raise NotFound("version_unknown", kind=f"@{kind}", name=name, known=known)


def resolve_query_set(name: str | None, *, session: Session) -> QuerySet:
    """The query set called ``name``; with None, the only one in the database."""
    return _resolve(QuerySet, name, session=session, kind="kind_query_set", option="--query-set")


def resolve_corpus_version(name: str | None, *, session: Session) -> CorpusVersion:
    """The corpus version called ``name``; with None, the only one in the database."""
    return _resolve(
        CorpusVersion, name, session=session, kind="kind_corpus_version", option="--corpus-version"
    )


def version_names(*, session: Session) -> tuple[list[str], list[str]]:
    """The names of all query sets and of all corpus versions, newest first: what the app
    offers first is what a lead imported last (the oldest took a run imported just after
    a new version, and the pool then found no such run)."""
    newest = [
        [v.name for v in session.exec(select(model).order_by(col(model.id).desc())).all()]
        for model in (QuerySet, CorpusVersion)
    ]
    return newest[0], newest[1]


def query_keys(query_set: QuerySet, *, session: Session) -> dict[str, int]:
    """Query id -> primary key, for the queries of one set."""
    rows = session.exec(
        select(Query.query_id, Query.id).where(Query.query_set_id == query_set.id)
    ).all()
    return dict(rows)


def query_key_of(query_set_id: int, query_id: str, *, session: Session) -> int | None:
    """The primary key of one query of a set, or None."""
    return session.exec(
        select(Query.id).where(Query.query_set_id == query_set_id, Query.query_id == query_id)
    ).first()


def chunk_keys(corpus_version: CorpusVersion, *, session: Session) -> dict[str, int]:
    """Chunk id -> primary key, for the chunks of one corpus version."""
    # Through the connection: plain rows, without the ORM's work on each of 200,000.
    rows = session.connection().execute(
        select(Chunk.chunk_id, Chunk.id).where(Chunk.corpus_version_id == corpus_version.id)
    )
    return dict(rows.all())


def chunk_key(
    keys: dict[str, int],
    value: str,
    where: Where,
    field_name: str,
    corpus_version: CorpusVersion,
    *,
    session: Session,
    judged: bool = False,
) -> int:
    """The key of chunk ``value`` that a line of a run or of judgments names (``keys``:
    ``chunk_keys`` of ``corpus_version``). Raises ``InputError`` at ``where``,
    ``field_name``, when it is not a chunk of the version, saying so when it is one of its
    documents, with what to do instead: a document run is scored from its file with
    ``qrels evaluate --level doc``; documents' grades (``judged``) go on a version of whole
    documents, then ``qrels carry``."""
    key = keys.get(value)
    if key is not None:
        return key
    document = session.exec(
        select(Document.id).where(
            Document.corpus_version_id == corpus_version.id, Document.doc_id == value
        )
    ).first()
    if document is None:
        error = "unknown_chunk"
    else:
        error = "judged_id_is_document" if judged else "run_id_is_document"
    raise where.error(error, field_name, value=value, corpus_version=corpus_version.name)


# -- status: the summary itself is ``storage.status``, which starts without the models ------


def pool_summary(pool: Pool, session: Session, complete: int | None = None) -> PoolSummary:
    """A pool's size and how many candidates have their judgments
    (``storage.status.pool_counts``)."""
    return pool_counts(
        session.connection().connection.driver_connection,  # in the session's transaction
        pool.id,
        pool.name,
        session.get(QuerySet, pool.query_set_id).name,
        session.get(CorpusVersion, pool.corpus_version_id).name,
        pool.overlap,
        complete,
    )
