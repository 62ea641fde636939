"""Imports: corpus versions, query sets, runs and judgments, each as one transaction.

Each function reads and checks the whole file first (``pooling.readers``), then checks it
against what the database holds, and only then writes; it never commits, so the caller's
``session_scope`` makes the import all or nothing. A version that already exists with the
same content is a no-op (``ImportResult.created`` is False); with other content it is
refused, because a version never changes meaning.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert
from sqlmodel import Session, select

from pooling.chunking import chunk_text, chunking_config, describe
from pooling.i18n import LocalizedError
from pooling.qrels import CHUNK_FIELD, QUERY_FIELD, judgment_lines
from pooling.readers import (
    Fingerprint,
    FirstSeen,
    InputError,
    Where,
    fingerprint,
    read_corpus,
    read_queries,
    read_run,
)
from storage.catalog import chunk_keys, query_keys, resolve_corpus_version, resolve_query_set
from storage.models import (
    USER_KINDS,
    Chunk,
    CorpusVersion,
    Document,
    Judgment,
    JudgmentBatch,
    Query,
    QuerySet,
    RunEntry,
    System,
    User,
    utcnow,
)

logger = logging.getLogger(__name__)


@dataclass
class ImportResult:
    """What an import did: ``created`` is False when identical content was already there."""

    name: str
    created: bool
    counts: dict[str, int | str] = field(default_factory=dict)
    created_user: str | None = None  # an annotator account the import had to create


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _refuse_changed(path: Path | str, kind: str, name: str) -> InputError:
    return InputError(str(path), "version_changed", kind=f"@{kind}", name=name)


# -- corpus -----------------------------------------------------------------------------


@dataclass
class _Corpus:
    documents: dict[str, dict]  # doc id -> title, meta
    chunks: list[tuple[str, str, int, str]]  # chunk id, doc id, position, text


def _build_corpus(path: Path | str, size: int | None, overlap: int, allow_empty: bool) -> _Corpus:
    """Documents and chunks from the file's records; whole documents are split when a
    chunk ``size`` is given, chunks that name their parent are kept as they are."""
    documents: dict[str, dict] = {}
    chunks: list[tuple[str, str, int, str]] = []
    # A document id is either one whole-document line or the parent of chunk lines.
    doc_ids, chunk_ids = FirstSeen(), FirstSeen()
    next_position: dict[str, int] = {}
    for record in read_corpus(path, allow_empty):
        where = Where(str(path), record.line)
        if record.parent_id is None:
            doc_id = record.id
            doc_ids.check(doc_id, where, "_id", value=doc_id)
            documents[doc_id] = {"title": record.title, "meta": record.metadata}
            if size is None:
                pieces = [(record.id, record.text)]
            else:
                texts = [span.text for span in chunk_text(record.text, size, overlap)]
                pieces = [(f"{doc_id}#{i}", text) for i, text in enumerate(texts or [""])]
            for position, (chunk_id, text) in enumerate(pieces):
                chunk_ids.check(chunk_id, where, "_id", value=chunk_id)
                chunks.append((chunk_id, doc_id, position, text))
        else:
            doc_id = record.parent_id
            if doc_id not in next_position:
                doc_ids.check(doc_id, where, "parent_id", value=doc_id)
                documents[doc_id] = {"title": record.title, "meta": {}}
                next_position[doc_id] = 0
            chunk_ids.check(record.id, where, "_id", value=record.id)
            chunks.append((record.id, doc_id, next_position[doc_id], record.text))
            next_position[doc_id] += 1
    return _Corpus(documents, chunks)


def import_corpus(
    path: Path | str,
    *,
    session: Session,
    version: str,
    chunk_size: int | None = None,
    chunk_overlap: int = 0,
    allow_empty: bool = False,
) -> ImportResult:
    """Import BEIR ``corpus.jsonl`` as corpus version ``version``.

    With ``chunk_size``, whole documents are split into chunks of at most that many
    characters, overlapping by ``chunk_overlap``; their ids are ``<doc id>#<position>``.
    ``allow_empty`` keeps documents whose text is empty (counted as ``empty``).
    Raises ``InputError`` for any bad line or a version that exists with other content,
    and ``ValueError`` for chunk parameters that make no sense.
    """
    if chunk_size is not None and not (chunk_size >= 1 and 0 <= chunk_overlap < chunk_size):
        raise LocalizedError("chunk_params", size=chunk_size, overlap=chunk_overlap)
    chunking = chunking_config(chunk_size, chunk_overlap)
    corpus = _build_corpus(path, chunk_size, chunk_overlap, allow_empty)
    digest = fingerprint([], chunking, sorted(corpus.documents.items()), corpus.chunks)
    counts = {
        "documents": len(corpus.documents),
        "chunks": len(corpus.chunks),
        "empty": sum(not text.strip() for *_, text in corpus.chunks),
        "chunking": describe(chunking),
    }

    existing = session.exec(select(CorpusVersion).where(CorpusVersion.name == version)).first()
    if existing is not None:
        if existing.content_hash != digest:
            raise _refuse_changed(path, "kind_corpus_version", version)
        return ImportResult(version, created=False, counts=counts)

    corpus_version = CorpusVersion(
        name=version, chunking=chunking, content_hash=digest, source=Path(path).name
    )
    session.add(corpus_version)
    session.flush()
    session.execute(
        insert(Document),
        [
            {"corpus_version_id": corpus_version.id, "doc_id": doc_id, **fields}
            for doc_id, fields in corpus.documents.items()
        ],
    )
    document_keys = dict(
        session.exec(
            select(Document.doc_id, Document.id).where(
                Document.corpus_version_id == corpus_version.id
            )
        ).all()
    )
    session.execute(
        insert(Chunk),
        [
            {
                "corpus_version_id": corpus_version.id,
                "chunk_id": chunk_id,
                "document_id": document_keys[doc_id],
                "position": position,
                "text": text,
                "text_sha256": _sha256(text),
            }
            for chunk_id, doc_id, position, text in corpus.chunks
        ],
    )
    logger.info("corpus version %s: %s", version, counts)
    return ImportResult(version, created=True, counts=counts)


# -- queries ----------------------------------------------------------------------------


def import_queries(
    path: Path | str, *, session: Session, name: str, default_split: str = "test"
) -> ImportResult:
    """Import BEIR ``queries.jsonl`` (with optional ``slices``, ``split``, ``answerable``,
    ``notes``) as query set ``name``; queries without a split get ``default_split``.
    Raises ``InputError`` for any bad line or a set that exists with other content."""
    records = read_queries(path, default_split)
    digest = fingerprint(records)
    counts = {
        "queries": len(records),
        "dev": sum(r.split == "dev" for r in records),
        "test": sum(r.split == "test" for r in records),
        "unanswerable": sum(not r.answerable for r in records),
    }
    existing = session.exec(select(QuerySet).where(QuerySet.name == name)).first()
    if existing is not None:
        if existing.content_hash != digest:
            raise _refuse_changed(path, "kind_query_set", name)
        return ImportResult(name, created=False, counts=counts)

    query_set = QuerySet(name=name, content_hash=digest, source=Path(path).name)
    session.add(query_set)
    session.flush()
    session.execute(
        insert(Query),
        [
            {
                "query_set_id": query_set.id,
                "query_id": r.query_id,
                "text": r.text,
                "slices": r.slices,
                "split": r.split,
                "answerable": r.answerable,
                "notes": r.notes,
                "meta": r.metadata,
            }
            for r in records
        ],
    )
    return ImportResult(name, created=True, counts=counts)


# -- runs and judgments -----------------------------------------------------------------


def _key(keys: dict[str, int], value: str, where: Where, field_name: str, error: str, **params):
    try:
        return keys[value]
    except KeyError:
        raise where.error(error, field_name, value=value, **params) from None


def import_run(
    path: Path | str,
    *,
    session: Session,
    system: str,
    query_set: str | None = None,
    corpus_version: str | None = None,
) -> ImportResult:
    """Import a TREC run as the ranking of external system ``system`` for a query set and
    corpus version (either may be None while the database holds only one).
    Raises ``InputError`` for a bad line, an unknown query or chunk id, or a run of the same
    system that exists with other content; ``NotFound`` for an unknown version."""
    qs = resolve_query_set(query_set, session=session)
    cv = resolve_corpus_version(corpus_version, session=session)
    lines = read_run(path)
    queries, chunks = query_keys(qs, session=session), chunk_keys(cv, session=session)
    rows = []
    for line in lines:
        where = Where(str(path), line.line)
        query_key = _key(
            queries, line.query_id, where, "query_id", "unknown_query", query_set=qs.name
        )
        chunk_key = _key(
            chunks, line.chunk_id, where, "doc_id", "unknown_chunk", corpus_version=cv.name
        )
        rows.append(
            {"query_id": query_key, "chunk_id": chunk_key, "rank": line.rank, "score": line.score}
        )
    digest = fingerprint(lines)
    counts = {"entries": len(lines), "queries": len({line.query_id for line in lines})}

    existing = session.exec(
        select(System).where(
            System.name == system, System.query_set_id == qs.id, System.corpus_version_id == cv.id
        )
    ).first()
    if existing is not None:
        if existing.kind != "external_run":
            raise InputError(str(path), "system_kind_conflict", name=system, kind=existing.kind)
        if existing.content_hash != digest:
            raise _refuse_changed(path, "kind_run", system)
        return ImportResult(system, created=False, counts=counts)

    tags = sorted({line.tag for line in lines})
    record = System(
        name=system,
        kind="external_run",
        query_set_id=qs.id,
        corpus_version_id=cv.id,
        config={"source": Path(path).name, "tags": tags},
        content_hash=digest,
    )
    session.add(record)
    session.flush()
    session.execute(insert(RunEntry), [{"system_id": record.id, **row} for row in rows])
    return ImportResult(system, created=True, counts=counts)


def annotator_account(name: str, kind: str, *, session: Session) -> tuple[User, bool]:
    """The user called ``name``, created without a password (it cannot log in) when missing.
    Returns ``(user, created)``; raises ``ValueError`` if it exists as another kind."""
    if kind not in USER_KINDS:
        raise LocalizedError("bad_choice", value=kind, choices=", ".join(USER_KINDS))
    user = session.exec(select(User).where(User.name == name)).first()
    if user is not None:
        if user.kind != kind:
            raise LocalizedError("user_kind_conflict", name=name, kind=user.kind)
        return user, False
    user = User(name=name, role="annotator", kind=kind)
    session.add(user)
    session.flush()
    return user, True


BATCH = 10_000  # judgments inserted per statement


def import_judgments(
    path: Path | str,
    *,
    session: Session,
    annotator: str,
    rubric_version: str,
    kind: str = "human",
    query_set: str | None = None,
    corpus_version: str | None = None,
) -> ImportResult:
    """Import TREC qrels, BEIR qrels TSV or JSONL (told from the content) as judgments by
    ``annotator`` (``kind`` human or model; created if missing), appended to the history.
    Importing the same judgments again for the same annotator is a no-op.
    Raises ``InputError`` for a bad line, an unknown query or chunk id, a grade outside
    0–3 or a (query, chunk) given twice; ``NotFound`` for an unknown version.

    The file is read twice, a line at a time: once to check every line and fingerprint the
    whole, then, only if all is well and new, to insert it ``BATCH`` rows at a time; what
    is held meanwhile is one integer per judgment, so a file of millions of lines fits."""
    qs = resolve_query_set(query_set, session=session)
    cv = resolve_corpus_version(corpus_version, session=session)
    queries, chunks = query_keys(qs, session=session), chunk_keys(cv, session=session)
    file_format, _ = judgment_lines(path)
    digest, first_line = Fingerprint(), {}
    for line, query_key, chunk_key in _judgment_keys(path, queries, chunks, qs, cv):
        pair = query_key << 32 | chunk_key
        first = first_line.setdefault(pair, line.line)
        if first != line.line:
            raise InputError(
                str(path),
                "duplicate_pair",
                line=line.line,
                field=CHUNK_FIELD[file_format],
                query=line.query_id,
                chunk=line.chunk_id,
                first=first,
            )
        digest.add(line)
    if not first_line:
        raise InputError(str(path), "file_empty")
    user, user_created = annotator_account(annotator, kind, session=session)
    counts = {
        "judgments": len(first_line),
        "format": file_format,
        "query_set": qs.name,
        "corpus_version": cv.name,
    }
    del first_line
    digest = digest.hexdigest()
    done = session.exec(
        select(JudgmentBatch).where(
            JudgmentBatch.user_id == user.id,
            JudgmentBatch.query_set_id == qs.id,
            JudgmentBatch.corpus_version_id == cv.id,
            JudgmentBatch.content_hash == digest,
        )
    ).first()
    if done is not None:
        return ImportResult(annotator, created=False, counts=counts)

    batch = JudgmentBatch(
        user_id=user.id,
        query_set_id=qs.id,
        corpus_version_id=cv.id,
        source=Path(path).name,
        format=file_format,
        content_hash=digest,
    )
    session.add(batch)
    session.flush()
    common = {
        "user_id": user.id,
        "rubric_version": rubric_version,
        "batch_id": batch.id,
        "created_at": utcnow(),
    }
    rows = []
    for line, query_key, chunk_key in _judgment_keys(path, queries, chunks, qs, cv):
        rows.append(
            {
                **common,
                "query_id": query_key,
                "chunk_id": chunk_key,
                "grade": line.grade,
                "unsure": line.unsure,
                "note": line.note,
            }
        )
        if len(rows) == BATCH:
            session.execute(insert(Judgment), rows)
            rows = []
    if rows:
        session.execute(insert(Judgment), rows)
    return ImportResult(
        annotator, created=True, counts=counts, created_user=annotator if user_created else None
    )


def _judgment_keys(path, queries: dict, chunks: dict, qs: QuerySet, cv: CorpusVersion):
    """Each line of a judgments file with its query's and chunk's keys; raises
    ``InputError`` for an id the versions do not know."""
    kind, lines = judgment_lines(path)
    for line in lines:
        where = Where(str(path), line.line)
        query_key = _key(
            queries, line.query_id, where, QUERY_FIELD[kind], "unknown_query", query_set=qs.name
        )
        chunk_key = _key(
            chunks, line.chunk_id, where, CHUNK_FIELD[kind], "unknown_chunk", corpus_version=cv.name
        )
        yield line, query_key, chunk_key
