"""Imports that succeed: what lands in the database, and re-imports that change nothing."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from pooling.readers import InputError
from storage.catalog import NotFound
from storage.db import read_connection, session_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.models import Chunk, CorpusVersion, Document, Judgment, Query, RunEntry, System, User
from storage.status import status
from tests.conftest import snapshot, write

CORPUS = [
    {"_id": "tea", "title": "茶叶保存", "text": "绿茶应当密封冷藏。红茶常温避光保存即可。"},
    {
        "_id": "bike",
        "title": "Brakes",
        "text": "Check the brake pads every month.",
        "metadata": {"lang": "en"},
    },
    {"_id": "bike-2", "doc_id": "manual", "title": "Manual", "text": "Part one."},
    {"_id": "bike-3", "doc_id": "manual", "title": "Manual", "text": "Part two."},
]
QUERIES = [
    {
        "_id": "q1",
        "text": "绿茶怎么保存？",
        "slices": ["zh", "numeric"],
        "split": "dev",
        "notes": "需要提到冷藏",
    },
    {"_id": "q2", "text": "How often to check brake pads?"},
    {"_id": "q3", "text": "Where is the moon base?", "answerable": False, "split": "test"},
]


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


@pytest.fixture
def loaded(engine, tmp_path):
    """A database with one corpus version and one query set."""
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "corpus.jsonl", jsonl(CORPUS)), session=session, version="c1")
        import_queries(
            write(tmp_path, "queries.jsonl", jsonl(QUERIES)), session=session, name="qs1"
        )
    return engine


def test_corpus_keeps_documents_chunks_parents_and_hashes(loaded):
    with session_scope(loaded) as session:
        cv = session.exec(select(CorpusVersion)).one()
        assert cv.chunking == {"method": "none"}
        docs = {d.doc_id: d for d in session.exec(select(Document)).all()}
        assert set(docs) == {"tea", "bike", "manual"}
        assert docs["bike"].meta == {"lang": "en"}
        chunks = {c.chunk_id: c for c in session.exec(select(Chunk)).all()}
        assert set(chunks) == {"tea", "bike", "bike-2", "bike-3"}
        assert chunks["bike-3"].document_id == docs["manual"].id
        assert (chunks["bike-2"].position, chunks["bike-3"].position) == (0, 1)
        import hashlib

        assert chunks["tea"].text_sha256 == hashlib.sha256(CORPUS[0]["text"].encode()).hexdigest()


def test_queries_keep_slices_split_answerable_notes(loaded):
    with session_scope(loaded) as session:
        queries = {q.query_id: q for q in session.exec(select(Query)).all()}
    assert queries["q1"].slices == ["zh", "numeric"]
    assert queries["q1"].split == "dev" and queries["q1"].notes == "需要提到冷藏"
    assert queries["q2"].split == "test" and queries["q2"].answerable is True
    assert queries["q3"].answerable is False


def test_chunking_makes_stable_ids_and_stores_the_config(engine, tmp_path):
    text = " ".join(f"word{i}" for i in range(200))
    path = write(tmp_path, "c.jsonl", jsonl([{"_id": "d", "text": text}]))
    with session_scope(engine) as session:
        result = import_corpus(path, session=session, version="v", chunk_size=100, chunk_overlap=20)
        chunks = session.exec(select(Chunk).order_by(Chunk.position)).all()
        cv = session.exec(select(CorpusVersion)).one()
    assert result.counts["chunks"] == len(chunks) > 5
    assert [c.chunk_id for c in chunks] == [f"d#{i}" for i in range(len(chunks))]
    assert all(len(c.text) <= 100 for c in chunks)
    assert all(w.startswith("word") for c in chunks for w in c.text.split())
    assert cv.chunking["method"] == "characters"
    assert (cv.chunking["size"], cv.chunking["overlap"]) == (100, 20)


def test_bom_crlf_blank_and_very_long_lines_are_read(engine, tmp_path):
    long_text = "长" * 300_000 + " end"
    content = "\ufeff" + jsonl(CORPUS[:1]).replace("\n", "\r\n") + "\r\n\r\n"
    content += json.dumps({"_id": "long", "text": long_text}, ensure_ascii=False) + "\r\n"
    path = write(tmp_path, "corpus.jsonl", content)
    qrels = write(tmp_path, "qrels.tsv", "\ufeffquery-id\tcorpus-id\tscore\r\nq1\tlong\t2\r\n")
    queries = write(tmp_path, "queries.jsonl", "\ufeff" + jsonl(QUERIES).replace("\n", "\r\n"))
    with session_scope(engine) as session:
        import_corpus(path, session=session, version="c")
        import_queries(queries, session=session, name="q")
        import_judgments(qrels, session=session, annotator="a", rubric_version="v1")
        long_chunk = session.exec(select(Chunk).where(Chunk.chunk_id == "long")).one()
        assert long_chunk.text == long_text
        assert (
            session.exec(select(Query).where(Query.query_id == "q1")).one().text == "绿茶怎么保存？"
        )
        assert session.exec(select(Judgment)).one().grade == 2


def test_reimporting_identical_content_is_a_no_op(loaded, tmp_path):
    before = snapshot(loaded)
    # Same records, other bytes: CRLF, BOM, spacing.
    same = "\ufeff" + "\r\n".join(
        json.dumps(r, indent=None, separators=(", ", ": ")) for r in CORPUS
    )
    with session_scope(loaded) as session:
        corpus = import_corpus(write(tmp_path, "again.jsonl", same), session=session, version="c1")
        queries = import_queries(
            write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="qs1"
        )
    assert (corpus.created, queries.created) == (False, False)
    assert snapshot(loaded) == before


def test_same_content_under_a_new_version_name_is_a_new_version(loaded, tmp_path):
    with session_scope(loaded) as session:
        result = import_corpus(
            write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version="c2"
        )
        assert result.created
        assert len(session.exec(select(CorpusVersion)).all()) == 2


def test_run_import_keeps_ranks_scores_and_is_idempotent(loaded, tmp_path):
    run = write(
        tmp_path, "run.trec", "q1 Q0 tea 1 12.5 bm25\nq1 Q0 bike 2 3.25 bm25\nq2 Q0 bike 1 9 bm25\n"
    )
    with session_scope(loaded) as session:
        result = import_run(run, session=session, system="bm25-ext")
        assert result.created and result.counts == {"entries": 3, "queries": 2}
        system = session.exec(select(System)).one()
        assert (system.kind, system.config["tags"]) == ("external_run", ["bm25"])
        entries = session.exec(select(RunEntry).order_by(RunEntry.score)).all()
        assert [(e.rank, e.score) for e in entries] == [(2, 3.25), (1, 9.0), (1, 12.5)]
    before = snapshot(loaded)
    with session_scope(loaded) as session:
        assert not import_run(run, session=session, system="bm25-ext").created
    assert snapshot(loaded) == before


@pytest.mark.parametrize(
    ("name", "content", "expected_format"),
    [
        ("qrels.trec", "q1 0 tea 3\nq2 0 bike 1\nq1 0 bike 0\n", "trec"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\ttea\t3\nq2\tbike\t1\nq1\tbike\t0\n", "beir"),
        (
            "qrels.jsonl",
            '{"query_id": "q1", "chunk_id": "tea", "grade": 3, "note": "冷藏"}\n'
            '{"query_id": "q2", "chunk_id": "bike", "grade": 1}\n'
            '{"query_id": "q1", "chunk_id": "bike", "grade": 0}\n',
            "jsonl",
        ),
    ],
)
def test_judgments_in_each_format(loaded, tmp_path, name, content, expected_format):
    with session_scope(loaded) as session:
        result = import_judgments(
            write(tmp_path, name, content), session=session, annotator="ann", rubric_version="v1"
        )
        assert result.counts["format"] == expected_format
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, Judgment.grade, Judgment.rubric_version)
            .join(Query, Query.id == Judgment.query_id)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
        ).all()
        user = session.exec(select(User)).one()
    assert sorted(rows) == [
        ("q1", "bike", 0, "v1"),
        ("q1", "tea", 3, "v1"),
        ("q2", "bike", 1, "v1"),
    ]
    assert (user.name, user.kind, user.password_hash) == ("ann", "human", None)


def test_unsure_judgments_and_model_judges(loaded, tmp_path):
    path = write(
        tmp_path,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "grade": null, "unsure": true, "note": "?"}\n',
    )
    with session_scope(loaded) as session:
        import_judgments(path, session=session, annotator="llm", kind="model", rubric_version="v1")
        judgment = session.exec(select(Judgment)).one()
        assert (judgment.grade, judgment.unsure, judgment.note) == (None, True, "?")
        assert session.exec(select(User)).one().kind == "model"


def test_judgments_are_history_a_new_file_appends(loaded, tmp_path):
    first = write(tmp_path, "a.trec", "q1 0 tea 1\n")
    second = write(tmp_path, "b.trec", "q1 0 tea 3\n")
    with session_scope(loaded) as session:
        import_judgments(first, session=session, annotator="ann", rubric_version="v1")
        assert not import_judgments(
            first, session=session, annotator="ann", rubric_version="v1"
        ).created
        import_judgments(second, session=session, annotator="ann", rubric_version="v1")
        grades = session.exec(select(Judgment.grade).order_by(Judgment.id)).all()
    assert grades == [1, 3]


def test_versions_may_be_left_out_only_while_there_is_one(loaded, tmp_path):
    qrels = write(tmp_path, "q.trec", "q1 0 tea 2\n")
    with session_scope(loaded) as session:
        import_queries(write(tmp_path, "q2.jsonl", jsonl(QUERIES[:1])), session=session, name="qs2")
    with session_scope(loaded) as session, pytest.raises(NotFound) as error:
        import_judgments(qrels, session=session, annotator="a", rubric_version="v1")
    assert str(error.value) == (
        "the database holds several of query set (qs1, qs2); name one with --query-set"
    )
    with session_scope(loaded) as session:
        result = import_judgments(
            qrels, session=session, annotator="a", rubric_version="v1", query_set="qs2"
        )
    assert result.created


def test_status_counts(loaded, tmp_path):
    with session_scope(loaded) as session:
        import_judgments(
            write(tmp_path, "q.trec", "q1 0 tea 2\nq2 0 bike 1\n"),
            session=session,
            annotator="a",
            rubric_version="v1",
        )
    with read_connection(loaded.url.render_as_string(hide_password=False)) as connection:
        summary = status(connection)
    (cv,), (qs,) = summary.corpus_versions, summary.query_sets
    assert (cv.documents, cv.chunks) == (3, 4)
    assert (qs.queries, qs.dev, qs.test, qs.unanswerable) == (3, 1, 2, 1)
    assert (qs.judgments, qs.judged_queries, qs.judgments_by_annotator) == (2, 2, {"a": 2})
    assert qs.slices == {"numeric": 1, "zh": 1}


def test_input_error_is_a_value_error_with_location(tmp_path):
    error = InputError("f.jsonl", "empty_text", line=3, field="text")
    assert isinstance(error, ValueError)
    assert (error.file, error.line, error.field) == ("f.jsonl", 3, "text")
