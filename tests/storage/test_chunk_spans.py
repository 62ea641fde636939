"""Chunks know where they lie in their document: spans computed by the chunker, located for
a pre-chunked corpus (repeated passages reported, not guessed), and recorded on an identical
re-import of a version imported before spans were kept."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import text
from sqlmodel import select

from pooling.readers import InputError
from storage.db import session_scope
from storage.imports import import_corpus
from storage.models import Chunk, CorpusVersion, Document
from tests.conftest import run_qrels, snapshot, write
from tests.storage.test_imports import jsonl

DOCS = [
    {
        "_id": "manual",
        "title": "Brakes",
        "text": "Brake pads wear down.  Replace them below 1.5 mm.\n\n"
        "Safety notice: read the manual.\n\nHydraulic brakes need bleeding.\n\n"
        "Safety notice: read the manual.",
    },
    {"_id": "tea", "title": "Tea", "text": "绿茶应当密封冷藏。红茶常温避光保存即可。"},
    {"_id": "unused", "title": "Unused", "text": "Nobody cut this one."},
]
# Cut by some other tool: whitespace normalised in one chunk, one passage repeated, one
# chunk rewritten.
CHUNKS = [
    {"_id": "m1", "doc_id": "manual", "title": "Brakes", "text": "Brake pads wear down. Replace"},
    {"_id": "m2", "doc_id": "manual", "text": "them below 1.5 mm."},
    {"_id": "m3", "doc_id": "manual", "text": "Safety notice: read the manual."},
    {"_id": "m4", "doc_id": "manual", "text": "Hydraulic brakes need bleeding."},
    {"_id": "m5", "doc_id": "manual", "text": "Safety notice: read the manual."},
    {"_id": "m6", "doc_id": "manual", "text": "Bleed them yearly."},
    {"_id": "t1", "doc_id": "tea", "title": "Tea", "text": "红茶常温避光保存即可。"},
]


def spans(engine, version: str) -> dict[str, tuple[int | None, int | None]]:
    with session_scope(engine) as session:
        rows = session.exec(
            select(Chunk.chunk_id, Chunk.span_start, Chunk.span_end)
            .join(CorpusVersion, CorpusVersion.id == Chunk.corpus_version_id)
            .where(CorpusVersion.name == version)
        ).all()
    return {c: (s, e) for c, s, e in rows}


def texts(engine) -> dict[str, tuple[str, str]]:
    """Chunk id -> (its document's id, its text)."""
    with session_scope(engine) as session:
        rows = session.exec(
            select(Chunk.chunk_id, Document.doc_id, Chunk.text).join(
                Document, Document.id == Chunk.document_id
            )
        ).all()
    return {c: (d, t) for c, d, t in rows}


@pytest.mark.parametrize("size", [None, 12, 40])
def test_tool_chunked_and_whole_documents_slice_back_to_their_text(engine, tmp_path, size):
    with session_scope(engine) as session:
        import_corpus(
            write(tmp_path, "docs.jsonl", jsonl(DOCS)),
            session=session,
            version="v",
            chunk_size=size,
            chunk_overlap=4 if size else 0,
        )
        hashes = dict(session.exec(select(Document.doc_id, Document.text_sha256)).all())
    source = {d["_id"]: d["text"] for d in DOCS}
    assert hashes == {k: hashlib.sha256(v.encode()).hexdigest() for k, v in source.items()}
    found = spans(engine, "v")
    for chunk_id, (doc_id, chunk) in texts(engine).items():
        start, end = found[chunk_id]
        assert source[doc_id][start:end] == chunk.strip()
        if size:
            assert source[doc_id][start:end] == chunk  # the chunker's text is already stripped


def test_a_pre_chunked_corpus_is_located_in_its_documents(engine, tmp_path):
    with session_scope(engine) as session:
        result = import_corpus(
            write(tmp_path, "chunks.jsonl", jsonl(CHUNKS)),
            session=session,
            version="v",
            documents=write(tmp_path, "docs.jsonl", jsonl(DOCS)),
        )
    manual, tea = DOCS[0]["text"], DOCS[1]["text"]
    found = spans(engine, "v")
    assert manual[slice(*found["m1"])] == "Brake pads wear down.  Replace"  # whitespace kept
    assert manual[slice(*found["m2"])] == "them below 1.5 mm."
    assert manual[slice(*found["m4"])] == "Hydraulic brakes need bleeding."
    assert tea[slice(*found["t1"])] == "红茶常温避光保存即可。"
    # The repeated passage and the rewritten chunk: no span, and said so per chunk.
    assert found["m3"] == found["m5"] == found["m6"] == (None, None)
    path = str(tmp_path / "chunks.jsonl")
    assert result.notes == [
        (
            "span_ambiguous",
            {"file": path, "line": 3, "chunk": "m3", "document": "manual", "places": 2},
        ),
        (
            "span_ambiguous",
            {"file": path, "line": 5, "chunk": "m5", "document": "manual", "places": 2},
        ),
        (
            "span_not_found",
            {"file": path, "line": 6, "chunk": "m6", "document": "manual", "places": 0},
        ),
        ("documents_unused", {"count": 1}),
    ]
    with session_scope(engine) as session:
        hashes = dict(session.exec(select(Document.doc_id, Document.text_sha256)).all())
    assert set(hashes) == {"manual", "tea"}
    assert hashes["tea"] == hashlib.sha256(tea.encode()).hexdigest()


def test_without_documents_the_spans_are_unknown_and_the_import_says_so(engine, tmp_path):
    with session_scope(engine) as session:
        result = import_corpus(
            write(tmp_path, "chunks.jsonl", jsonl(CHUNKS)), session=session, version="v"
        )
        assert set(session.exec(select(Document.text_sha256)).all()) == {None}
    assert set(spans(engine, "v").values()) == {(None, None)}
    assert result.notes == [("spans_no_documents", {"chunks": 7, "documents": 2})]


@pytest.mark.parametrize(
    ("chunks", "docs", "message"),
    [
        (
            CHUNKS,
            DOCS[1:],
            "chunks.jsonl, line 1, field 'parent_id': document 'manual' is not in the "
            "documents file (--documents)",
        ),
        (
            CHUNKS,
            [*DOCS, {"_id": "x", "doc_id": "manual", "text": "a chunk"}],
            "docs.jsonl, line 4, field 'doc_id': a documents file holds whole documents",
        ),
    ],
    ids=["parent-missing", "documents-with-a-chunk"],
)
def test_bad_documents_are_located_and_write_nothing(engine, tmp_path, chunks, docs, message):
    before = snapshot(engine)
    with pytest.raises(InputError) as caught, session_scope(engine) as session:
        import_corpus(
            write(tmp_path, "chunks.jsonl", jsonl(chunks)),
            session=session,
            version="v",
            documents=write(tmp_path, "docs.jsonl", jsonl(docs)),
        )
    assert str(caught.value).replace(str(tmp_path) + "/", "").startswith(message)
    assert snapshot(engine) == before


def test_an_identical_re_import_records_the_spans_an_older_import_lacks(engine, tmp_path):
    corpus = write(tmp_path, "docs.jsonl", jsonl(DOCS))
    with session_scope(engine) as session:
        import_corpus(corpus, session=session, version="v", chunk_size=12)
    complete = spans(engine, "v")
    with engine.begin() as connection:  # as an import made before spans were kept left it
        connection.execute(text("UPDATE chunk SET span_start = NULL, span_end = NULL"))
        connection.execute(text("UPDATE document SET text_sha256 = NULL"))
    with session_scope(engine) as session:
        again = import_corpus(corpus, session=session, version="v", chunk_size=12)
    assert not again.created and again.notes == [("spans_recorded", {"chunks": len(complete)})]
    assert spans(engine, "v") == complete
    with session_scope(engine) as session:
        quiet = import_corpus(corpus, session=session, version="v", chunk_size=12)
    assert quiet.notes == []


def test_documents_whose_text_changed_are_refused_on_re_import(engine, tmp_path):
    with session_scope(engine) as session:
        import_corpus(
            write(tmp_path, "chunks.jsonl", jsonl(CHUNKS)),
            session=session,
            version="v",
            documents=write(tmp_path, "docs.jsonl", jsonl(DOCS)),
        )
    changed = [{**DOCS[0], "text": DOCS[0]["text"] + " Extra."}, *DOCS[1:]]
    refused = pytest.raises(InputError, match="already exists with different content")
    with refused, session_scope(engine) as session:
        import_corpus(
            write(tmp_path, "chunks.jsonl", jsonl(CHUNKS)),
            session=session,
            version="v",
            documents=write(tmp_path, "docs2.jsonl", jsonl(changed)),
        )


def test_the_cli_reports_every_chunk_it_cannot_locate(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    run_qrels(db_url, "init")
    chunks, docs = (
        write(tmp_path, "chunks.jsonl", jsonl(CHUNKS)),
        write(tmp_path, "docs.jsonl", jsonl(DOCS)),
    )
    out = run_qrels(
        db_url, "import", "corpus", chunks, "--corpus-version", "v", "--documents", docs
    ).output
    assert "imported corpus version 'v': 2 documents, 7 chunks" in out
    assert (
        f"{chunks}, line 3: chunk 'm3': its text occurs at 2 places in document 'manual' "
        "(a repeated passage): no span recorded"
    ) in out
    assert f"{chunks}, line 6: chunk 'm6': its text is not in document 'manual'" in out
    assert "1 documents of the documents file have no chunk here" in out
    chinese = run_qrels(
        db_url,
        "--lang",
        "zh",
        "import",
        "corpus",
        chunks,
        "--corpus-version",
        "v",
        "--documents",
        docs,
    ).output
    assert "在文档“manual”中出现 2 处" in chinese
