"""Releases in the database, and the snapshot a release is written from.

A release is written from what one read-only transaction sees
(``storage.db.snapshot_scope``), so that its files agree with each other whatever
annotators do meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Row
from sqlmodel import Session, select

from pooling.document_places import Place, place_of
from pooling.i18n import LocalizedError, t
from pooling.release_folder import (
    MANIFEST,
    read_manifest,
    sha256_of,
    valid_version,
    verify_release,
)
from storage import gold_records
from storage.active_records import not_chosen
from storage.db import driver_rows
from storage.gold_records import Gold
from storage.history import latest_adjudications
from storage.models import (
    Chunk,
    CorpusVersion,
    Document,
    Pool,
    Query,
    QuerySet,
    Release,
)


def find_release(version: str, *, session: Session) -> Release | None:
    return session.exec(select(Release).where(Release.version == version)).first()


def recorded_problems(folder: Path | str, *, session: Session) -> list[str]:
    """Why ``folder`` is not a release this database recorded: a manifest that does not
    name a release version (``pooling.release_folder.RELEASE_VERSION``), no release of its
    version here, or a manifest whose sha256 is not the one stored when that release was
    created (a folder whose files were changed and whose manifest was made to agree with
    them passes ``verify_release`` but not this). Empty when it is that release."""
    folder = Path(folder)
    try:
        version = read_manifest(folder)["release"]
        digest = sha256_of(folder / MANIFEST)
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [t("verify_manifest_unreadable", detail=error)]
    if not valid_version(version):
        # Never looked up nor repeated whole: it may be long, or hold control characters.
        return [t("verify_not_a_version", version=ascii(str(version)[:40]))]
    record = find_release(version, session=session)
    if record is None:
        return [t("verify_not_recorded", version=version)]
    if record.manifest_sha256 != digest:
        return [t("verify_not_as_recorded", version=version)]
    return []


def recorded_release(folder: Path | str, *, session: Session) -> dict:
    """The manifest of the release in ``folder`` when it is intact (``verify_release``) and
    is the very release this database recorded (``recorded_problems``): the one check every
    use of a release folder goes through before building on it (``qrels carry``, gold from
    a release, the Evaluate page). Raises ``LocalizedError`` naming the problems otherwise."""
    folder = Path(folder)
    problems = verify_release(folder)
    problems += [p for p in recorded_problems(folder, session=session) if p not in problems]
    if problems:
        raise LocalizedError("release_not_recorded", folder=folder, problems="; ".join(problems))
    return read_manifest(folder)


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


def queries_of(query_set: QuerySet, *, session: Session) -> list[Row]:
    """The set's queries in order, as rows of what a release says of them: ``query_id``,
    ``text``, ``slices``, ``split``, ``answerable`` and ``notes`` (plain rows: ten thousand
    queries made into objects took a second)."""
    columns = Query.query_id, Query.text, Query.slices, Query.split, Query.answerable, Query.notes
    return list(
        session.connection().execute(
            select(*columns).where(Query.query_set_id == query_set.id).order_by(Query.id)
        )
    )


def chunk_names(
    corpus_version: CorpusVersion, *, session: Session
) -> tuple[dict[int, str], dict[str, str]]:
    """Chunk key -> chunk id, and chunk id -> its document's id, from one read of the
    chunks (plain tuples: no SQLAlchemy work on each of 200,000)."""
    rows = driver_rows(
        session,
        select(Chunk.id, Chunk.chunk_id, Document.doc_id)
        .join(Document, Document.id == Chunk.document_id)
        .where(Chunk.corpus_version_id == corpus_version.id),
    )
    keys, chunk_ids, doc_ids = zip(*rows, strict=True) if rows else ((), (), ())
    return dict(zip(keys, chunk_ids, strict=True)), dict(zip(chunk_ids, doc_ids, strict=True))


def chunk_places(corpus_version: CorpusVersion, *, session: Session) -> dict[str, Place]:
    """Chunk id -> its place (page(s), section) for the chunks of the documents that keep
    places (``pooling.document_places``): none for a corpus of JSONL lines."""
    # Through SQLAlchemy, which reads JSON alike on both backends (the driver's cursor
    # gives SQLite's as text); a corpus has far fewer documents than chunks.
    documents = session.exec(
        select(Document.id, Document.meta).where(Document.corpus_version_id == corpus_version.id)
    ).all()
    kept = {key: meta for key, meta in documents if "pages" in meta or "sections" in meta}
    if not kept:
        return {}
    rows = driver_rows(
        session,
        select(Chunk.chunk_id, Chunk.document_id, Chunk.span_start, Chunk.span_end).where(
            Chunk.corpus_version_id == corpus_version.id, Chunk.document_id.in_(list(kept))
        ),
    )
    return {chunk: place_of(kept[doc], start, end) for chunk, doc, start, end in rows}


def list_releases(*, session: Session) -> list[Release]:
    return list(session.exec(select(Release).order_by(Release.id)))


@dataclass
class ReleaseSnapshot:
    """What a release of a pool is made from that fits in memory; the judgments themselves
    are streamed with ``storage.release_lines.release_history`` in the same snapshot
    (``storage.db.snapshot_scope``), named with ``query_ids`` and ``chunk_ids``."""

    pool: Pool
    query_set: QuerySet
    corpus_version: CorpusVersion
    queries: list[Row]  # ``queries_of``
    decisions: dict[tuple[str, str], tuple]  # ``storage.history.latest_adjudications``
    not_chosen: set[tuple[str, str]]  # an active pool's candidates nobody was asked about
    gold: list[Gold]  # the pool's gold items: their grades stand
    query_ids: dict[int, str] = field(default_factory=dict)  # query key -> query id
    chunk_ids: dict[int, str] = field(default_factory=dict)  # chunk key -> chunk id
    parents: dict[str, str] = field(default_factory=dict)  # chunk id -> document id
    places: dict[str, Place] = field(default_factory=dict)  # ``chunk_places``


def read_snapshot(pool: Pool, *, session: Session) -> ReleaseSnapshot:
    """The parts of a release of ``pool`` that fit in memory."""
    query_set = session.get(QuerySet, pool.query_set_id)
    corpus_version = session.get(CorpusVersion, pool.corpus_version_id)
    # Read with the driver's cursor: plain tuples, without SQLAlchemy's work on each of
    # hundreds of thousands; the names read once here serve the judgments' lines and the
    # candidates nobody judged (``storage.release_lines.ReleaseHistory.unjudged``). The
    # chunks' documents come in the same read as their ids.
    query_ids: dict[int, str] = dict(
        driver_rows(
            session, select(Query.id, Query.query_id).where(Query.query_set_id == query_set.id)
        )
    )
    chunk_ids, parents = chunk_names(corpus_version, session=session)
    return ReleaseSnapshot(
        pool=pool,
        query_set=query_set,
        corpus_version=corpus_version,
        queries=queries_of(query_set, session=session),
        decisions=latest_adjudications(pool, session=session),
        not_chosen=not_chosen(pool, session=session),
        gold=gold_records.items(pool, session=session),
        query_ids=query_ids,
        chunk_ids=chunk_ids,
        parents=parents,
        places=chunk_places(corpus_version, session=session),
    )
