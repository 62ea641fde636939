"""Imports: corpus versions, query sets, runs and judgments, each as one transaction.

Each function checks the whole file (``pooling.readers``), then against the database, and
only then writes; it never commits, so the caller's ``session_scope`` makes the import all
or nothing. A version that exists with the same content is a no-op (``created`` False); with
other content it is refused: a version never changes meaning. A file's recorded source is
``str(path)``'s name: an upload's (``annotator.app.uploads.Upload``) the user's name for it."""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from sqlalchemy import insert
from sqlmodel import Session, select

from pooling.chunking import Span, chunk_text, chunking_config, describe
from pooling.document_folder import FOLDER_CHUNK_SIZE, read_corpus_source
from pooling.i18n import LocalizedError
from pooling.qrels import CHUNK_FIELD, QUERY_FIELD, judgment_lines
from pooling.question_files import read_query_file
from pooling.readers import (
    Fingerprint,
    FirstSeen,
    InputError,
    Where,
    fingerprint,
    read_documents,
    typed_name,
)
from pooling.run_formats import read_run_lines
from pooling.spans import content_span, locate
from storage import catalog, chunk_spans
from storage.catalog import chunk_keys, query_keys, resolve_corpus_version, resolve_query_set
from storage.history import append_judgments
from storage.models import (
    USER_KINDS,
    Chunk,
    CorpusVersion,
    Document,
    JudgmentBatch,
    Query,
    QuerySet,
    RunEntry,
    System,
    User,
)

logger = logging.getLogger(__name__)


@dataclass
class ImportResult:
    """What an import did: ``created`` False when identical content was already there."""

    name: str
    created: bool
    counts: dict[str, int | str] = field(default_factory=dict)
    created_user: str | None = None  # an annotator account the import had to create
    notes: list[tuple[str, dict]] = field(default_factory=list)  # message key and params


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _refuse_changed(path: PathLike | str, kind: str, name: str) -> InputError:
    return InputError(str(path), "version_changed", kind=f"@{kind}", name=name)


# -- corpus -----------------------------------------------------------------------------


@dataclass
class _Corpus:
    documents: dict[str, dict]  # doc id -> title, meta
    chunks: list[tuple[str, str, int, str]]  # chunk id, doc id, position, text
    spans: list[tuple[int, int] | None] = field(default_factory=list)  # as chunks; None: unknown
    texts: dict[str, str] = field(default_factory=dict)  # doc id -> text, where known
    notes: list[tuple[str, dict]] = field(default_factory=list)  # message key, params
    positions: Counter = field(default_factory=Counter)  # doc id -> chunks so far
    places: dict[str, dict] = field(default_factory=dict)  # doc id -> CorpusRecord.places

    def add(self, chunk_id: str, doc_id: str, text: str, span: tuple[int, int] | None) -> None:
        self.chunks.append((chunk_id, doc_id, self.positions[doc_id], text))
        self.spans.append(span)
        self.positions[doc_id] += 1


def _build_corpus(
    path: PathLike | str,
    size: int | None,
    overlap: int,
    allow_empty: bool,
    documents: PathLike | str | None = None,
) -> _Corpus:
    """Documents and chunks from the file's records; whole documents are split when a
    chunk ``size`` is given, chunks that name their parent are kept as they are and located
    in their parent's text from the ``documents`` file (when given)."""
    corpus = _Corpus({}, [])
    # A document id is either one whole-document line or the parent of chunk lines.
    doc_ids, chunk_ids = FirstSeen(), FirstSeen()
    parents: dict[str, int] = {}  # the parents chunk lines name: the first such line
    lines: dict[str, int] = {}  # chunk id -> its line
    for record in read_corpus_source(path, allow_empty, corpus.notes):
        where = Where(record.file or str(path), record.line)
        if record.parent_id is None:
            doc_id = record.id
            doc_ids.check(doc_id, where, "_id", value=doc_id)
            corpus.documents[doc_id] = {"title": record.title, "meta": record.metadata}
            if record.places:
                corpus.places[doc_id] = record.places
            corpus.texts[doc_id] = record.text
            if size is None:
                pieces = [(record.id, record.text, content_span(record.text))]
            else:
                spans = chunk_text(record.text, size, overlap) or [Span("", 0, 0)]
                pieces = [(f"{doc_id}#{i}", s.text, (s.start, s.end)) for i, s in enumerate(spans)]
            for chunk_id, text, span in pieces:
                chunk_ids.check(chunk_id, where, "_id", value=chunk_id)
                corpus.add(chunk_id, doc_id, text, span)
        else:
            doc_id = record.parent_id
            if doc_id not in parents:
                doc_ids.check(doc_id, where, "parent_id", value=doc_id)
                corpus.documents[doc_id] = {"title": record.title, "meta": {}}
                parents[doc_id] = record.line
            chunk_ids.check(record.id, where, "_id", value=record.id)
            corpus.add(record.id, doc_id, record.text, None)
            lines[record.id] = record.line
    if documents is not None:
        _locate(corpus, path, lines, parents, read_documents(documents, allow_empty))
    elif parents:
        chunks = sum(1 for span in corpus.spans if span is None)
        corpus.notes.append(("spans_no_documents", {"chunks": chunks, "documents": len(parents)}))
    return corpus


def _locate(
    corpus: _Corpus,
    path: PathLike | str,
    lines: dict[str, int],
    parents: dict[str, int],
    documents: dict[str, str],
) -> None:
    """The spans of the chunks of ``parents`` (id -> first chunk line) in their texts from
    ``documents``, and a note for each chunk that cannot be located. Raises ``InputError``
    at the first chunk line of a parent the documents lack."""
    for doc_id, line in parents.items():
        if doc_id not in documents:
            where = Where(str(path), line)
            raise where.error("parent_not_in_documents", "parent_id", value=doc_id)
        corpus.texts[doc_id] = documents[doc_id]
    for i, (chunk_id, doc_id, _, text) in enumerate(corpus.chunks):
        if doc_id in parents:
            found = locate(documents[doc_id], text)
            if found.places == 1 and found.start is not None and found.end is not None:
                corpus.spans[i] = (found.start, found.end)
                continue
            key = "span_ambiguous" if found.places else "span_not_found"
            at = {"file": str(path), "line": lines[chunk_id], "chunk": chunk_id}
            corpus.notes.append((key, {**at, "document": doc_id, "places": found.places}))
    unused = len(documents.keys() - parents)
    if unused:
        corpus.notes.append(("documents_unused", {"count": unused}))


def import_corpus(
    path: PathLike | str,
    *,
    session: Session,
    version: str,
    chunk_size: int | None = None,
    chunk_overlap: int = 0,
    allow_empty: bool = False,
    documents: PathLike | str | None = None,
) -> ImportResult:
    """Import BEIR ``corpus.jsonl``, or a folder of ``.md``, ``.txt`` and ``.html`` files
    (``pooling.document_folder``: one whole document per file, its path as id, chunked at
    ``FOLDER_CHUNK_SIZE`` characters unless ``chunk_size`` is given), as corpus version
    ``version``.

    With ``chunk_size``, whole documents are split into chunks of at most that many
    characters, overlapping by ``chunk_overlap``; their ids are ``<doc id>#<position>``.
    ``allow_empty`` keeps documents whose text is empty (counted as ``empty``). Every chunk
    gets its span in its document (``pooling.spans``); the chunks of a pre-chunked file are
    located in their parents' texts from ``documents`` (whole documents, BEIR JSONL), and
    each one that cannot be is reported in ``ImportResult.notes``.
    Importing a version again with identical chunks records the spans and document hashes
    it lacks (a version imported before they were kept) and changes nothing else.
    Raises ``InputError`` for any bad line, a parent the documents lack, or a version that
    exists with other content (chunks, or documents' texts), and ``ValueError`` for chunk
    parameters that make no sense.
    """
    if Path(path).is_dir():
        if documents is not None:
            raise InputError(str(documents), "documents_with_folder")
        # A folder's files are whole pages: chunked unless a size is given.
        chunk_size = FOLDER_CHUNK_SIZE if chunk_size is None else chunk_size
    if chunk_size is not None and not (chunk_size >= 1 and 0 <= chunk_overlap < chunk_size):
        raise LocalizedError("chunk_params", size=chunk_size, overlap=chunk_overlap)
    chunking = chunking_config(chunk_size, chunk_overlap)
    corpus = _build_corpus(path, chunk_size, chunk_overlap, allow_empty, documents)
    digest = fingerprint([], chunking, sorted(corpus.documents.items()), corpus.chunks)
    counts = {
        "documents": len(corpus.documents),
        "chunks": len(corpus.chunks),
        "empty": sum(not text.strip() for *_, text in corpus.chunks),
        "chunking": describe(chunking),
    }
    hashes = {doc_id: _sha256(text) for doc_id, text in corpus.texts.items()}

    existing = session.exec(select(CorpusVersion).where(CorpusVersion.name == version)).first()
    if existing is not None:
        changed = chunk_spans.changed_documents(existing, hashes, session=session)
        if existing.content_hash != digest or changed:
            raise _refuse_changed(path, "kind_corpus_version", version)
        spans = {chunk[0]: span for chunk, span in zip(corpus.chunks, corpus.spans, strict=True)}
        recorded = chunk_spans.record_missing(existing, hashes, spans, session=session)
        notes = [*corpus.notes, *([("spans_recorded", {"chunks": recorded})] if recorded else [])]
        return ImportResult(version, created=False, counts=counts, notes=notes)

    corpus_version = CorpusVersion(
        name=typed_name(version, "what_corpus_version_name"),
        chunking=chunking,
        content_hash=digest,
        source=Path(str(path)).name,
        documents=len(corpus.documents),
        chunks=len(corpus.chunks),
    )
    session.add(corpus_version)
    session.flush()
    session.execute(
        insert(Document),
        [
            {
                "corpus_version_id": corpus_version.id,
                "doc_id": doc_id,
                "text_sha256": hashes.get(doc_id),
                **fields,
                "meta": {**fields["meta"], **corpus.places.get(doc_id, {})},
            }
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
                "span_start": span[0] if span else None,
                "span_end": span[1] if span else None,
            }
            for (chunk_id, doc_id, position, text), span in zip(
                corpus.chunks, corpus.spans, strict=True
            )
        ],
    )
    logger.info("corpus version %s: %s", version, counts)
    return ImportResult(version, created=True, counts=counts, notes=corpus.notes)


# -- queries ----------------------------------------------------------------------------
def import_queries(
    path: PathLike | str, *, session: Session, name: str, default_split: str = "test"
) -> ImportResult:
    """Import BEIR ``queries.jsonl`` (with optional ``slices``, ``split``, ``answerable``,
    ``notes``), a ``.txt`` file of questions (one a line) or a ``.csv`` file with a ``text``
    column (``pooling.question_files``) as query set ``name``; queries without a split get
    ``default_split``. Raises ``InputError`` for any bad line or a set that exists with
    other content."""
    records = read_query_file(path, default_split)
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

    source = Path(str(path)).name
    query_set = QuerySet(
        name=typed_name(name, "what_query_set_name"), content_hash=digest, source=source
    )
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
    path: PathLike | str,
    *,
    session: Session,
    system: str,
    query_set: str | None = None,
    corpus_version: str | None = None,
) -> ImportResult:
    """Import a run (TREC, JSONL or CSV: ``run_formats``) as the ranking of external
    system ``system`` for a query set and corpus version (either None while there is one).
    Raises ``InputError`` for a bad line, an unknown query or chunk id (named a document id
    when it is one: ``catalog.chunk_key``), or a run of the same system that exists with other
    content; ``NotFound`` for an unknown version."""
    qs = resolve_query_set(query_set, session=session)
    cv = resolve_corpus_version(corpus_version, session=session)
    lines = (found := read_run_lines(path)).lines
    queries, chunks = query_keys(qs, session=session), chunk_keys(cv, session=session)
    rows = []
    for line in lines:
        where = Where(str(path), line.line)
        query_key = _key(
            queries, line.query_id, where, "query_id", "unknown_query", query_set=qs.name
        )
        chunk_key = catalog.chunk_key(
            chunks, line.chunk_id, where, found.id_field, cv, session=session
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

    tags = sorted({line.tag for line in lines if line.tag})
    record = System(
        name=typed_name(system, "what_system_name"),
        kind="external_run",
        query_set_id=qs.id,
        corpus_version_id=cv.id,
        config={"source": Path(path).name, "tags": tags},
        content_hash=digest,
        entries=len(rows),
    )
    session.add(record)
    session.flush()
    session.execute(insert(RunEntry), [{"system_id": record.id, **row} for row in rows])
    return ImportResult(system, created=True, counts=counts)


def annotator_account(name: str, kind: str, *, session: Session) -> tuple[User, bool]:
    """The user ``name`` (created without a password, so no login, when missing) and
    whether it was created; ``ValueError`` if it exists as another kind."""
    if kind not in USER_KINDS:
        raise LocalizedError("bad_choice", value=kind, choices=", ".join(USER_KINDS))
    user = session.exec(select(User).where(User.name == name)).first()
    if user is not None:
        if user.kind != kind:
            raise LocalizedError("user_kind_conflict", name=name, kind=user.kind)
        return user, False
    user = User(name=typed_name(name, "what_account_name"), role="annotator", kind=kind)
    session.add(user)
    session.flush()
    return user, True


BATCH = 10_000  # judgments inserted per statement


def import_judgments(
    path: PathLike | str,
    *,
    session: Session,
    annotator: str,
    rubric_version: str,
    kind: str = "human",
    query_set: str | None = None,
    corpus_version: str | None = None,
    rubric_in_force: str | None = None,
) -> ImportResult:
    """Import TREC qrels, BEIR qrels TSV or JSONL (told from the content) as judgments by
    ``annotator`` (``kind`` human or model; created if missing), appended to the history.
    Importing the same judgments again for the same annotator is a no-op; the pools count
    them only under ``rubric_in_force`` (``append_judgments``). Raises ``InputError`` for a
    bad line, an unknown query or chunk id, a grade outside 0–3 or a (query, chunk) given
    twice; ``NotFound`` for an unknown version. The file is read twice, a line at a time:
    once to check every line and fingerprint the whole, then, only if all is well and new,
    to insert it ``BATCH`` rows at a time; what is held meanwhile is one integer per
    judgment, so a file of millions of lines fits."""
    qs = resolve_query_set(query_set, session=session)
    cv = resolve_corpus_version(corpus_version, session=session)
    queries, chunks = query_keys(qs, session=session), chunk_keys(cv, session=session)
    file_format, _ = judgment_lines(path)
    digest, first_line = Fingerprint(), dict[int, int]()
    for line, query_key, chunk_key in _judgment_keys(path, queries, chunks, qs, cv, session):
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
    rows = (
        {"query_id": q, "chunk_id": c, "grade": j.grade, "unsure": j.unsure, "note": j.note}
        for j, q, c in _judgment_keys(path, queries, chunks, qs, cv, session)
    )  # the second reading: inserted as it goes, only if the batch is new
    content_hash = digest.hexdigest()
    created = append_judgments(
        user,
        qs,
        cv,
        rows,
        session=session,
        # append_judgments fills in the batch's ids
        batch=JudgmentBatch(  # type: ignore[call-arg]
            source=Path(str(path)).name, format=file_format, content_hash=content_hash
        ),
        rubric_version=rubric_version,
        rubric_in_force=rubric_in_force,
    )
    made_user = annotator if user_created else None
    return ImportResult(annotator, created=created, counts=counts, created_user=made_user)


def _judgment_keys(path, queries: dict, chunks: dict, qs: QuerySet, cv: CorpusVersion, session):
    """Each line of a judgments file with its query's and chunk's keys; raises
    ``InputError`` for an id the versions do not know (a document's: how to judge those)."""
    kind, lines = judgment_lines(path)
    for line in lines:
        where = Where(str(path), line.line)
        query_key = _key(
            queries, line.query_id, where, QUERY_FIELD[kind], "unknown_query", query_set=qs.name
        )
        chunk_key = catalog.chunk_key(
            chunks, line.chunk_id, where, CHUNK_FIELD[kind], cv, session=session, judged=True
        )
        yield line, query_key, chunk_key
