"""Runs as RAG teams write them (JSONL, CSV with a header) import like TREC runs: the same
entries, the same checks, errors naming the file, line and field as the file spells it,
and nothing written on bad input. Each case runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from pooling.readers import InputError
from storage.db import session_scope
from storage.imports import import_run
from storage.models import RunEntry, System
from tests.conftest import snapshot, write
from tests.storage.test_bad_input import seeded  # noqa: F401  (a fixture)

TREC = "q1 Q0 tea 1 12.5 bm25\nq1 Q0 bike 2 3.25 bm25\nq2 Q0 bike 1 9 bm25\n"
JSONL = "".join(
    json.dumps(record) + "\n"
    for record in (
        {"query_id": "q1", "chunk_id": "tea", "score": 12.5, "rank": 1, "tag": "bm25"},
        {"query_id": "q1", "chunk_id": "bike", "score": 3.25, "rank": 2, "tag": "bm25"},
        {"query_id": "q2", "chunk_id": "bike", "score": 9, "rank": 1, "tag": "bm25"},
    )
)
CSV = (
    'query_id,chunk_id,score,text\nq1,tea,12.5,绿茶\nq1,bike,3.25,"Check, the pads"\nq2,bike,9,x\n'
)
TSV = "query_id\tchunk_id\tscore\trank\nq1\ttea\t12.5\t1\nq1\tbike\t3.25\t2\nq2\tbike\t9\t1\n"


def entries(engine, system: str) -> list[tuple[str, str, int, float]]:
    from storage.models import Chunk, Query

    with session_scope(engine) as session:
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, RunEntry.rank, RunEntry.score)
            .join(System, System.id == RunEntry.system_id)
            .join(Query, Query.id == RunEntry.query_id)
            .join(Chunk, Chunk.id == RunEntry.chunk_id)
            .where(System.name == system)
        ).all()
    return sorted((q, c, r, s) for q, c, r, s in rows)


@pytest.mark.parametrize(
    ("name", "content"),
    [("run.jsonl", JSONL), ("run.csv", CSV), ("run.tsv", TSV), ("run.txt", JSONL)],
)
def test_jsonl_and_csv_runs_import_as_the_trec_run_does(seeded, tmp_path, name, content):  # noqa: F811
    with session_scope(seeded) as session:
        import_run(write(tmp_path, "run.trec", TREC), session=session, system="trec")
        result = import_run(write(tmp_path, name, content), session=session, system="other")
    assert result.created and result.counts == {"entries": 3, "queries": 2}
    assert entries(seeded, "other") == entries(seeded, "trec")
    before = snapshot(seeded)
    with session_scope(seeded) as session:  # the same file again: a no-op
        assert not import_run(tmp_path / name, session=session, system="other").created
    assert snapshot(seeded) == before


def test_ranks_left_out_follow_the_scores_ties_by_id_descending(seeded, tmp_path):  # noqa: F811
    content = "chunk_id,query_id,score\nbike,q1,1.0\ntea,q1,1.0\nbike-2,q1,5\n"
    with session_scope(seeded) as session:
        import_run(write(tmp_path, "r.csv", content), session=session, system="other")
        system = session.exec(select(System).where(System.name == "other")).one()
        assert system.config["tags"] == []
    ranks = {chunk: rank for _, chunk, rank, _ in entries(seeded, "other")}
    assert ranks == {"bike-2": 1, "tea": 2, "bike": 3}


CASES = [
    (
        "jsonl-no-score",
        "r.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "score": 1}\n'
        '{"query_id": "q1", "chunk_id": "bike"}\n',
        "r.jsonl, line 2, field 'score': required field is missing",
        "r.jsonl 第 2 行，字段“score”：缺少必填字段",
    ),
    (
        "jsonl-score-text",
        "r.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "score": "high"}\n',
        "r.jsonl, line 1, field 'score': 'high' is not a finite number",
        "r.jsonl 第 1 行，字段“score”：“high”不是有限数值",
    ),
    (
        "jsonl-both-ids",
        "r.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "doc_id": "tea", "score": 1}\n',
        "r.jsonl, line 1, field 'chunk_id': give one of chunk_id / doc_id, not both (nor neither)",
        "r.jsonl 第 1 行，字段“chunk_id”：chunk_id / doc_id 须给出且只给出其中一个",
    ),
    (
        "jsonl-unknown-chunk",
        "r.jsonl",
        '{"query_id": "q1", "chunk_id": "nope", "score": 1}\n',
        "r.jsonl, line 1, field 'chunk_id': chunk id 'nope' is not in corpus version 'c1'",
        "r.jsonl 第 1 行，字段“chunk_id”：语料版本“c1”中没有片段 id“nope”",
    ),
    (  # a document's id where a chunk's is needed: the hint evaluate gives
        "jsonl-document-id",
        "r.jsonl",
        '{"query_id": "q1", "doc_id": "manual", "score": 1}\n',
        "r.jsonl, line 1, field 'doc_id': chunk id 'manual' is not in corpus version 'c1': it "
        "is a document id of it, and an imported run ranks chunks (a pool judges chunks); a run "
        "of documents is scored against the document-level qrels: qrels evaluate --level doc",
        "r.jsonl 第 1 行，字段“doc_id”：语料版本“c1”中没有片段 id“manual”：它是该版本的文档 "
        "id，而导入的运行结果须对片段排序（候选池评判的是片段）；对文档排序的运行结果请按文档级 "
        "qrels 评估：qrels evaluate --level doc",
    ),
    (
        "trec-document-id",
        "r.trec",
        "q1 Q0 bike 1 2 x\nq1 Q0 manual 2 1 x\n",
        "r.trec, line 2, field 'doc_id': chunk id 'manual' is not in corpus version 'c1': it "
        "is a document id of it, and an imported run ranks chunks (a pool judges chunks); a run "
        "of documents is scored against the document-level qrels: qrels evaluate --level doc",
        "r.trec 第 2 行，字段“doc_id”：语料版本“c1”中没有片段 id“manual”：它是该版本的文档 "
        "id，而导入的运行结果须对片段排序（候选池评判的是片段）；对文档排序的运行结果请按文档级 "
        "qrels 评估：qrels evaluate --level doc",
    ),
    (
        "jsonl-rank-partial",
        "r.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "score": 2, "rank": 1}\n'
        '{"query_id": "q1", "chunk_id": "bike", "score": 1}\n',
        "r.jsonl, line 2, field 'rank': this line gives no rank while line 1 gives one: give "
        "every line a rank, or none (then the scores order the run)",
        "r.jsonl 第 2 行，字段“rank”：此行没有名次，而第 1 行有："
        "请给每行都写名次，或都不写（此时按分数排序）",
    ),
    (  # only line 4 gives a rank: it is the odd one, and line 1 is named beside it
        "jsonl-rank-only-later",
        "r.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "score": 4}\n'
        '{"query_id": "q1", "chunk_id": "bike", "score": 3}\n'
        '{"query_id": "q2", "chunk_id": "tea", "score": 2}\n'
        '{"query_id": "q2", "chunk_id": "bike", "score": 1, "rank": 2}\n',
        "r.jsonl, line 4, field 'rank': this line gives a rank while line 1 before it gives "
        "none: give every line a rank, or none (then the scores order the run)",
        "r.jsonl 第 4 行，字段“rank”：此行有名次，而在它之前的第 1 行没有："
        "请给每行都写名次，或都不写（此时按分数排序）",
    ),
    (
        "csv-rank-only-later",
        "r.csv",
        "query_id,chunk_id,score,rank\nq1,tea,2,\nq1,bike,1,2\n",
        "r.csv, line 3, field 'rank': this line gives a rank while line 2 before it gives "
        "none: give every line a rank, or none (then the scores order the run)",
        "r.csv 第 3 行，字段“rank”：此行有名次，而在它之前的第 2 行没有："
        "请给每行都写名次，或都不写（此时按分数排序）",
    ),
    (
        "jsonl-rank-repeated",
        "r.jsonl",
        '{"query_id": "q1", "doc_id": "tea", "score": 2, "rank": 1}\n'
        '{"query_id": "q1", "doc_id": "bike", "score": 1, "rank": 1}\n',
        "r.jsonl, line 2, field 'rank': rank repeated for query 'q1' (first seen on line 1)",
        "r.jsonl 第 2 行，字段“rank”：查询“q1”的名次重复（首次出现在第 1 行）",
    ),
    (
        "csv-no-score-column",
        "r.csv",
        "query_id,chunk_id\nq1,tea\n",
        "r.csv, line 1: the header has no 'score' column (it has: query_id, chunk_id)",
        "r.csv 第 1 行：表头中没有“score”列（现有列：query_id, chunk_id）",
    ),
    (
        "csv-bad-score",
        "r.csv",
        "query_id,doc_id,score\nq1,tea,1\nq2,bike,abc\n",
        "r.csv, line 3, field 'score': 'abc' is not a finite number",
        "r.csv 第 3 行，字段“score”：“abc”不是有限数值",
    ),
    (
        "csv-unknown-query",
        "r.csv",
        "query_id,doc_id,score\nq1,tea,1\nq9,bike,2\n",
        "r.csv, line 3, field 'query_id': query id 'q9' is not in query set 'qs1'",
        "r.csv 第 3 行，字段“query_id”：查询集“qs1”中没有查询 id“q9”",
    ),
    (
        "csv-duplicate",
        "r.trec",  # the extension does not decide
        "query_id,chunk_id,score\nq1,tea,1\nq1,tea,2\n",
        "r.trec, line 3, field 'chunk_id': duplicate entry for query 'q1' and chunk 'tea' "
        "(first seen on line 2)",
        "r.trec 第 3 行，字段“chunk_id”：查询“q1”与片段“tea”的记录重复（首次出现在第 2 行）",
    ),
    (
        "no-format",
        "r.csv",
        "qid,docid,score\nq1,tea,1\n",
        "r.csv, line 1: cannot tell the format: expected a TREC run (6 columns: qid Q0 docid "
        "rank score tag), JSONL (query_id, chunk_id or doc_id, score, optional rank) or a CSV "
        "whose header names query_id, chunk_id or doc_id, and score",
        "r.csv 第 1 行：无法识别格式：应为 TREC 运行文件（6 列：qid Q0 docid rank score tag）、"
        "JSONL（query_id、chunk_id 或 doc_id、score，可选 rank）或表头含 query_id、"
        "chunk_id 或 doc_id 及 score 的 CSV",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "english", "chinese"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_bad_runs_are_refused_with_location_and_nothing_is_written(
    seeded,  # noqa: F811
    tmp_path,
    name,
    content,
    english,
    chinese,
):
    path = write(tmp_path, name, content)
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        import_run(path, session=session, system="other")
    assert caught.value.message("en") == f"{tmp_path}/{english}"
    assert caught.value.message("zh") == f"{tmp_path}/{chinese}"
    assert snapshot(seeded) == before
