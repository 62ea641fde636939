"""Every kind of bad input stops the import with a located message and writes nothing.

Each case runs on SQLite and on PostgreSQL against a database that already holds a corpus
version, a query set, a run and judgments; the whole database is compared before and after.
"""

from __future__ import annotations

import pytest

from pooling.readers import InputError
from storage.catalog import NotFound
from storage.db import session_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from tests.conftest import snapshot, write
from tests.storage.test_imports import CORPUS, QUERIES, jsonl

BASE_RUN = "q1 Q0 tea 1 2.0 sys\n"
BASE_QRELS = "q1 0 tea 3\n"


@pytest.fixture
def seeded(engine, tmp_path):
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "corpus.jsonl", jsonl(CORPUS)), session=session, version="c1")
        import_queries(
            write(tmp_path, "queries.jsonl", jsonl(QUERIES)), session=session, name="qs1"
        )
        import_run(write(tmp_path, "base.run", BASE_RUN), session=session, system="sys")
        import_judgments(
            write(tmp_path, "base.qrels", BASE_QRELS),
            session=session,
            annotator="a",
            rubric_version="v1",
        )
    return engine


def corpus(path, session):
    return import_corpus(path, session=session, version="c-new")


def corpus_again(path, session):
    return import_corpus(path, session=session, version="c1")


def chunked(path, session):
    return import_corpus(path, session=session, version="c-new", chunk_size=10, chunk_overlap=2)


def queries(path, session):
    return import_queries(path, session=session, name="qs-new")


def queries_again(path, session):
    return import_queries(path, session=session, name="qs1")


def run(path, session):
    return import_run(path, session=session, system="other")


def run_again(path, session):
    return import_run(path, session=session, system="sys")


def judgments(path, session):
    return import_judgments(path, session=session, annotator="b", rubric_version="v1")


OK_DOC = '{"_id": "d1", "text": "fine"}\n'

# (id, importer, file name, content, English message, Chinese message)
CASES = [
    # -- corpus
    (
        "corpus-bad-json",
        corpus,
        "c.jsonl",
        OK_DOC + '{"_id": "d2", "text": }\n',
        "c.jsonl, line 2: not valid JSON: Expecting value",
        "c.jsonl 第 2 行：不是有效的 JSON：Expecting value",
    ),
    (  # json.loads' ValueError, not a JSONDecodeError
        "corpus-huge-number",
        corpus,
        "c.jsonl",
        OK_DOC + '{"_id": "d2", "text": "t", "metadata": {"n": ' + "9" * 5000 + "}}\n",
        "c.jsonl, line 2: not valid JSON: Exceeds the limit (4300 digits) for integer string "
        "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase the "
        "limit",
        "c.jsonl 第 2 行：不是有效的 JSON：Exceeds the limit (4300 digits) for integer string "
        "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase the "
        "limit",
    ),
    (
        "corpus-not-object",
        corpus,
        "c.jsonl",
        '["d1", "text"]\n',
        "c.jsonl, line 1: expected a JSON object, found array",
        "c.jsonl 第 1 行：应为 JSON 对象，实际为 array",
    ),
    (
        "corpus-missing-id",
        corpus,
        "c.jsonl",
        OK_DOC + '{"text": "no id"}\n',
        "c.jsonl, line 2, field '_id': required field is missing",
        "c.jsonl 第 2 行，字段“_id”：缺少必填字段",
    ),
    (
        "corpus-empty-id",
        corpus,
        "c.jsonl",
        '{"_id": " ", "text": "x"}\n',
        "c.jsonl, line 1, field '_id': must not be empty",
        "c.jsonl 第 1 行，字段“_id”：不能为空",
    ),
    (
        "corpus-empty-text",
        corpus,
        "c.jsonl",
        OK_DOC + OK_DOC.replace("d1", "d2").replace("fine", " \\t "),
        "c.jsonl, line 2, field 'text': text is empty (to keep empty documents as they are, "
        "use --allow-empty)",
        "c.jsonl 第 2 行，字段“text”：文本为空（如需原样保留空文档，请使用 --allow-empty）",
    ),
    (
        "corpus-missing-text",
        corpus,
        "c.jsonl",
        '{"_id": "d1", "title": "t"}\n',
        "c.jsonl, line 1, field 'text': required field is missing",
        "c.jsonl 第 1 行，字段“text”：缺少必填字段",
    ),
    (
        "corpus-text-type",
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": 5}\n',
        "c.jsonl, line 1, field 'text': expected a string, found number",
        "c.jsonl 第 1 行，字段“text”：应为字符串，实际为 number",
    ),
    (
        "corpus-metadata-type",
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": "x", "metadata": [1]}\n',
        "c.jsonl, line 1, field 'metadata': expected an object, found array",
        "c.jsonl 第 1 行，字段“metadata”：应为对象，实际为 array",
    ),
    (
        "corpus-duplicate-id",
        corpus,
        "c.jsonl",
        OK_DOC + '{"_id": "d2", "text": "x"}\n' + OK_DOC,
        "c.jsonl, line 3, field '_id': duplicate id 'd1' (first seen on line 1)",
        "c.jsonl 第 3 行，字段“_id”：重复的 id“d1”（首次出现在第 1 行）",
    ),
    (
        "corpus-parent-is-a-document",
        corpus,
        "c.jsonl",
        OK_DOC + '{"_id": "c", "doc_id": "d1", "text": "x"}\n',
        "c.jsonl, line 2, field 'parent_id': duplicate id 'd1' (first seen on line 1)",
        "c.jsonl 第 2 行，字段“parent_id”：重复的 id“d1”（首次出现在第 1 行）",
    ),
    (
        "corpus-generated-id-collides",
        chunked,
        "c.jsonl",
        '{"_id": "d1#0", "parent_id": "p", "text": "given chunk"}\n' + OK_DOC,
        "c.jsonl, line 2, field '_id': duplicate id 'd1#0' (first seen on line 1)",
        "c.jsonl 第 2 行，字段“_id”：重复的 id“d1#0”（首次出现在第 1 行）",
    ),
    (
        "corpus-not-utf8",
        corpus,
        "c.jsonl",
        OK_DOC.encode() + b'{"_id": "d2", "text": "\xff\xfe"}\n',
        "c.jsonl, line 2: not valid UTF-8 text (invalid start byte)",
        "c.jsonl 第 2 行：不是有效的 UTF-8 文本（invalid start byte）",
    ),
    (
        "corpus-empty-file",
        corpus,
        "c.jsonl",
        "\ufeff\r\n\r\n",
        "c.jsonl: the file holds no records",
        "c.jsonl：文件中没有任何记录",
    ),
    (
        "corpus-version-changed",
        corpus_again,
        "c.jsonl",
        jsonl(CORPUS[:-1]),
        "c.jsonl: corpus version 'c1' already exists with different content; a version never "
        "changes meaning: import it under a new version name",
        "c.jsonl：语料版本“c1”已存在且内容不同；版本一旦发布含义不变，请使用新的版本名导入",
    ),
    # -- queries
    (
        "queries-bad-split",
        queries,
        "q.jsonl",
        '{"_id": "q", "text": "t", "split": "train"}\n',
        "q.jsonl, line 1, field 'split': 'train' is not one of: dev, test",
        "q.jsonl 第 1 行，字段“split”：“train”不是可选值之一：dev, test",
    ),
    (
        "queries-answerable-type",
        queries,
        "q.jsonl",
        '{"_id": "q", "text": "t", "answerable": "yes"}\n',
        "q.jsonl, line 1, field 'answerable': expected true or false, found string",
        "q.jsonl 第 1 行，字段“answerable”：应为true 或 false，实际为 string",
    ),
    (
        "queries-slices-type",
        queries,
        "q.jsonl",
        '{"_id": "q", "text": "t", "slices": "zh"}\n',
        "q.jsonl, line 1, field 'slices': expected a list of strings, found string",
        "q.jsonl 第 1 行，字段“slices”：应为字符串列表，实际为 string",
    ),
    (
        "queries-empty-text",
        queries,
        "q.jsonl",
        '{"_id": "q", "text": ""}\n',
        "q.jsonl, line 1, field 'text': text is empty (to keep empty documents as they are, "
        "use --allow-empty)",
        "q.jsonl 第 1 行，字段“text”：文本为空（如需原样保留空文档，请使用 --allow-empty）",
    ),
    (
        "queries-duplicate-id",
        queries,
        "q.jsonl",
        '{"_id": "q", "text": "a"}\n{"_id": "q", "text": "b"}\n',
        "q.jsonl, line 2, field '_id': duplicate id 'q' (first seen on line 1)",
        "q.jsonl 第 2 行，字段“_id”：重复的 id“q”（首次出现在第 1 行）",
    ),
    (
        "queries-version-changed",
        queries_again,
        "q.jsonl",
        jsonl(QUERIES[:2]),
        "q.jsonl: query set 'qs1' already exists with different content; a version never "
        "changes meaning: import it under a new version name",
        "q.jsonl：查询集“qs1”已存在且内容不同；版本一旦发布含义不变，请使用新的版本名导入",
    ),
    # -- runs
    (
        "run-columns",
        run,
        "r.trec",
        "q1 Q0 tea 1 2.0\n",
        "r.trec, line 1: expected 6 whitespace-separated columns, found 5",
        "r.trec 第 1 行：应有 6 列（以空白分隔），实际为 5 列",
    ),
    (
        "run-rank",
        run,
        "r.trec",
        "q1 Q0 tea 1 2.0 s\nq1 Q0 bike first 1.0 s\n",
        "r.trec, line 2, field 'rank': 'first' is not an integer",
        "r.trec 第 2 行，字段“rank”：“first”不是整数",
    ),
    (
        "run-score",
        run,
        "r.trec",
        "q1 Q0 tea 1 nan s\n",
        "r.trec, line 1, field 'score': 'nan' is not a finite number",
        "r.trec 第 1 行，字段“score”：“nan”不是有限数值",
    ),
    (
        "run-unknown-query",
        run,
        "r.trec",
        "q1 Q0 tea 1 2.0 s\nq9 Q0 tea 1 2.0 s\n",
        "r.trec, line 2, field 'query_id': query id 'q9' is not in query set 'qs1'",
        "r.trec 第 2 行，字段“query_id”：查询集“qs1”中没有查询 id“q9”",
    ),
    (
        "run-unknown-chunk",
        run,
        "r.trec",
        "q1 Q0 nope 1 2.0 s\n",
        "r.trec, line 1, field 'doc_id': chunk id 'nope' is not in corpus version 'c1'",
        "r.trec 第 1 行，字段“doc_id”：语料版本“c1”中没有片段 id“nope”",
    ),
    (
        "run-duplicate",
        run,
        "r.trec",
        "q1 Q0 tea 1 2.0 s\nq1 Q0 tea 2 1.0 s\n",
        "r.trec, line 2, field 'doc_id': duplicate entry for query 'q1' and chunk 'tea' "
        "(first seen on line 1)",
        "r.trec 第 2 行，字段“doc_id”：查询“q1”与片段“tea”的记录重复（首次出现在第 1 行）",
    ),
    (
        "run-changed",
        run_again,
        "r.trec",
        "q1 Q0 tea 1 3.0 sys\n",
        "r.trec: run of system 'sys' already exists with different content; a version never "
        "changes meaning: import it under a new version name",
        "r.trec：系统运行结果“sys”已存在且内容不同；版本一旦发布含义不变，请使用新的版本名导入",
    ),
    # -- judgments
    (
        "qrels-trec-grade",
        judgments,
        "j.trec",
        "q1 0 tea 3\nq1 0 bike 4\n",
        "j.trec, line 2, field 'grade': grade '4' is outside 0–3",
        "j.trec 第 2 行，字段“grade”：等级“4”不在 0–3 范围内",
    ),
    (
        "qrels-beir-negative",
        judgments,
        "j.tsv",
        "query-id\tcorpus-id\tscore\nq1\ttea\t-1\n",
        "j.tsv, line 2, field 'score': grade '-1' is outside 0–3",
        "j.tsv 第 2 行，字段“score”：等级“-1”不在 0–3 范围内",
    ),
    (
        "qrels-fraction",
        judgments,
        "j.trec",
        "q1 0 tea 1.5\n",
        "j.trec, line 1, field 'grade': '1.5' is not an integer",
        "j.trec 第 1 行，字段“grade”：“1.5”不是整数",
    ),
    (
        "qrels-beir-unknown-chunk",
        judgments,
        "j.tsv",
        "query-id\tcorpus-id\tscore\nq1\tzzz\t1\n",
        "j.tsv, line 2, field 'corpus-id': chunk id 'zzz' is not in corpus version 'c1'",
        "j.tsv 第 2 行，字段“corpus-id”：语料版本“c1”中没有片段 id“zzz”",
    ),
    (  # a document's id where a chunk's is needed: how grades of documents come in
        "qrels-trec-document-id",
        judgments,
        "j.trec",
        "q1 0 tea 1\nq1 0 manual 2\n",
        "j.trec, line 2, field 'doc_id': chunk id 'manual' is not in corpus version 'c1': it is "
        "a document id of it, and judgments grade chunks; grades of whole documents are "
        "imported on a version with one chunk per document (a corpus.jsonl imported without "
        "--chunk-size), released, and taken onto the chunks with qrels carry",
        "j.trec 第 2 行，字段“doc_id”：语料版本“c1”中没有片段 id“manual”：它是该版本的文档 "
        "id，而评判针对的是片段；整篇文档的等级请导入到每篇文档一个片段的语料版本（corpus.jsonl "
        "导入时不加 --chunk-size），发布后用 qrels carry 带到分块后的版本",
    ),
    (
        "qrels-jsonl-unknown-query",
        judgments,
        "j.jsonl",
        '{"query_id": "q7", "chunk_id": "tea", "grade": 1}\n',
        "j.jsonl, line 1, field 'query_id': query id 'q7' is not in query set 'qs1'",
        "j.jsonl 第 1 行，字段“query_id”：查询集“qs1”中没有查询 id“q7”",
    ),
    (
        "qrels-jsonl-grade-range",
        judgments,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "grade": 7}\n',
        "j.jsonl, line 1, field 'grade': grade '7' is outside 0–3",
        "j.jsonl 第 1 行，字段“grade”：等级“7”不在 0–3 范围内",
    ),
    (
        "qrels-jsonl-missing-grade",
        judgments,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea"}\n',
        "j.jsonl, line 1, field 'grade': required field is missing",
        "j.jsonl 第 1 行，字段“grade”：缺少必填字段",
    ),
    (
        "qrels-jsonl-unsure-with-grade",
        judgments,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "grade": 2, "unsure": true}\n',
        "j.jsonl, line 1, field 'grade': an unsure judgment has no grade; found grade '2'",
        "j.jsonl 第 1 行，字段“grade”：标为不确定的标注不应有等级，实际为“2”",
    ),
    (
        "qrels-unknown-format",
        judgments,
        "j.txt",
        "q1 tea 3\n",
        "j.txt, line 1: cannot tell the format: expected TREC qrels (4 columns), BEIR qrels TSV "
        "(header 'query-id corpus-id score') or JSONL",
        "j.txt 第 1 行：无法识别格式：应为 TREC qrels（4 列）、BEIR qrels TSV（表头 query-id "
        "corpus-id score）或 JSONL",
    ),
    (
        "qrels-beir-columns",
        judgments,
        "j.tsv",
        "query-id\tcorpus-id\tscore\nq1\ttea\n",
        "j.tsv, line 2: expected 3 tab-separated columns (query-id, corpus-id, score), found 2",
        "j.tsv 第 2 行：应有 3 列（以制表符分隔：query-id、corpus-id、score），实际为 2 列",
    ),
    (
        "qrels-trec-columns",
        judgments,
        "j.trec",
        "q1 0 tea 1\nq1 0 bike\n",
        "j.trec, line 2: expected 4 whitespace-separated columns, found 3",
        "j.trec 第 2 行：应有 4 列（以空白分隔），实际为 3 列",
    ),
    (
        "qrels-duplicate",
        judgments,
        "j.trec",
        "q1 0 tea 1\nq2 0 tea 1\nq1 0 tea 2\n",
        "j.trec, line 3, field 'doc_id': duplicate entry for query 'q1' and chunk 'tea' "
        "(first seen on line 1)",
        "j.trec 第 3 行，字段“doc_id”：查询“q1”与片段“tea”的记录重复（首次出现在第 1 行）",
    ),
]


@pytest.mark.parametrize(
    ("importer", "name", "content", "english", "chinese"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_bad_input_is_refused_with_location_and_nothing_is_written(
    seeded, tmp_path, importer, name, content, english, chinese
):
    path = write(tmp_path, name, content)
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        importer(path, session=session)
    error = caught.value
    assert error.message("en") == f"{tmp_path}/{english}"
    assert error.message("zh") == f"{tmp_path}/{chinese}"
    assert snapshot(seeded) == before


def test_missing_file(seeded, tmp_path):
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        corpus(tmp_path / "absent.jsonl", session)
    assert caught.value.message("en") == f"{tmp_path}/absent.jsonl: file not found"
    assert caught.value.message("zh") == f"{tmp_path}/absent.jsonl：找不到文件"
    assert snapshot(seeded) == before


@pytest.mark.parametrize(
    ("kwargs", "english"),
    [
        ({"query_set": "nope"}, "query set 'nope' does not exist (known: qs1)"),
        ({"corpus_version": "c9"}, "corpus version 'c9' does not exist (known: c1)"),
    ],
)
def test_unknown_versions_are_named(seeded, tmp_path, kwargs, english):
    path = write(tmp_path, "j.trec", BASE_QRELS)
    before = snapshot(seeded)
    with pytest.raises(NotFound) as caught, session_scope(seeded) as session:
        import_judgments(path, session=session, annotator="b", rubric_version="v1", **kwargs)
    assert str(caught.value) == english
    assert snapshot(seeded) == before


def test_bad_chunk_parameters(seeded, tmp_path):
    path = write(tmp_path, "c.jsonl", OK_DOC)
    before = snapshot(seeded)
    message = r"chunk overlap \(10\) must be at least 0 and smaller"
    with pytest.raises(ValueError, match=message), session_scope(seeded) as session:
        import_corpus(path, session=session, version="x", chunk_size=10, chunk_overlap=10)
    assert snapshot(seeded) == before


def test_a_database_error_midway_rolls_back_everything(seeded, tmp_path, monkeypatch):
    """A failure after some rows were written (here: while inserting chunks) leaves nothing."""
    import storage.imports as imports_module

    def failing_sha(text: str) -> str:
        raise RuntimeError("disk full")

    monkeypatch.setattr(imports_module, "_sha256", failing_sha)
    before = snapshot(seeded)
    with pytest.raises(RuntimeError, match="disk full"), session_scope(seeded) as session:
        corpus(write(tmp_path, "c.jsonl", OK_DOC), session)
    assert snapshot(seeded) == before
