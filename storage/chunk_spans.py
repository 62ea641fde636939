"""Where chunks lie in their documents, as the database keeps it: each chunk's span and each
document's text hash (``pooling.spans``), read to carry judgments across a chunking change,
and recorded afterwards for versions imported before they were kept. Every function takes
a keyword-only ``session`` and never commits.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session, select

from pooling.carry_mapping import ChunkPlace  # plain data: the rules that read it are pure
from storage.models import Chunk, CorpusVersion, Document


def changed_documents(
    corpus_version: CorpusVersion, hashes: dict[str, str], *, session: Session
) -> list[str]:
    """The documents whose recorded text hash differs from the one in ``hashes``
    (doc id -> sha256); documents without a recorded or a given hash are not compared."""
    stored = session.exec(
        select(Document.doc_id, Document.text_sha256).where(
            Document.corpus_version_id == corpus_version.id, Document.text_sha256.is_not(None)
        )
    ).all()
    return sorted(doc_id for doc_id, old in stored if hashes.get(doc_id, old) != old)


def record_missing(
    corpus_version: CorpusVersion,
    hashes: dict[str, str],
    spans: dict[str, tuple[int, int] | None],
    *,
    session: Session,
) -> int:
    """Record the document hashes (doc id -> sha256) and the chunk spans (chunk id -> span)
    that ``corpus_version`` lacks; what it holds already stays. Returns how many chunks
    gained a span."""
    documents = session.exec(
        select(Document.id, Document.doc_id).where(
            Document.corpus_version_id == corpus_version.id, Document.text_sha256.is_(None)
        )
    ).all()
    rows = [{"id": key, "text_sha256": hashes[d]} for key, d in documents if d in hashes]
    if rows:
        session.execute(update(Document), rows)
    chunks = session.exec(
        select(Chunk.id, Chunk.chunk_id).where(
            Chunk.corpus_version_id == corpus_version.id, Chunk.span_start.is_(None)
        )
    ).all()
    rows = [
        {"id": key, "span_start": span[0], "span_end": span[1]}
        for key, c in chunks
        if (span := spans.get(c)) is not None
    ]
    if rows:
        session.execute(update(Chunk), rows)
    return len(rows)


def chunk_places(corpus_version: CorpusVersion, *, session: Session) -> list[ChunkPlace]:
    """Every chunk of ``corpus_version`` with its document and span, by document and
    position."""
    rows = session.exec(
        select(Chunk.chunk_id, Document.doc_id, Chunk.span_start, Chunk.span_end)
        .join(Document, Document.id == Chunk.document_id)
        .where(Chunk.corpus_version_id == corpus_version.id)
        .order_by(Document.doc_id, Chunk.position)
    ).all()
    return [ChunkPlace(*row) for row in rows]


def document_hashes(corpus_version: CorpusVersion, *, session: Session) -> dict[str, str | None]:
    """Doc id -> its text's sha256 (None where the text never reached the import)."""
    rows = session.exec(
        select(Document.doc_id, Document.text_sha256).where(
            Document.corpus_version_id == corpus_version.id
        )
    ).all()
    return dict(rows)
