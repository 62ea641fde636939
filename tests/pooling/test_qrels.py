"""``Qrels``: the one reader and writer of TREC and BEIR qrels, with located errors."""

from __future__ import annotations

import pytest

from pooling.qrels import Qrels, read_judgments
from pooling.readers import InputError
from tests.conftest import write

GRADES = {"q1": {"a#0": 3, "a#1": 0, "b#0": 2}, "q2": {"c#0": 1}}


@pytest.mark.parametrize("kind", ["trec", "beir"])
def test_save_and_reload_give_the_same_qrels(tmp_path, kind):
    qrels = Qrels(GRADES, "v1")
    qrels.save(tmp_path / "q", kind)
    again = Qrels.from_file(tmp_path / "q")
    assert again == qrels and again.to_dict() == GRADES
    assert again.size == 4 and len(again) == 2 and list(again) == ["q1", "q2"]


def test_the_files_are_what_trec_eval_and_beir_read(tmp_path):
    Qrels(GRADES).save(tmp_path / "q.trec")
    Qrels(GRADES).save(tmp_path / "q.tsv", "beir")
    assert (tmp_path / "q.trec").read_text().splitlines() == [
        "q1 0 a#0 3",
        "q1 0 a#1 0",
        "q1 0 b#0 2",
        "q2 0 c#0 1",
    ]
    assert (tmp_path / "q.tsv").read_text().splitlines()[:2] == [
        "query-id\tcorpus-id\tscore",
        "q1\ta#0\t3",
    ]


def test_documents_take_the_best_chunk_and_relevance_has_a_threshold():
    qrels = Qrels(GRADES)
    parents = {"a#0": "a", "a#1": "a", "b#0": "b", "c#0": "c"}
    assert qrels.documents(parents).to_dict() == {"q1": {"a": 3, "b": 2}, "q2": {"c": 1}}
    assert qrels.relevant() == {"q1": {"a#0", "b#0"}, "q2": {"c#0"}}
    assert qrels.relevant(2) == {"q1": {"a#0", "b#0"}}
    assert qrels.per_grade() == {"0": 1, "1": 1, "2": 1, "3": 1}


def test_a_dataframe_round_trip():
    qrels = Qrels(GRADES)
    frame = qrels.to_dataframe()
    assert list(frame.columns) == ["query_id", "doc_id", "grade"] and len(frame) == 4
    assert Qrels.from_dataframe(frame) == qrels


def test_an_empty_file_is_empty_qrels(tmp_path):
    assert Qrels.from_file(write(tmp_path, "empty.trec", "")).size == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("q1 0 a 3\nq1 0 a 2\n", "line 2, field 'doc_id': duplicate entry for query 'q1'"),
        ("q1 0 a 4\n", "line 1, field 'grade': grade '4' is outside 0–3"),
        ("q1 0 a 3\nq1 a 3\n", "line 2: expected 4 whitespace-separated columns, found 3"),
        ("query-id\tcorpus-id\tscore\nq1\t\t1\n", "line 2, field 'corpus-id': must not be empty"),
        ('{"query_id": "q1", "chunk_id": "a", "grade": 1}\n', "expected TREC qrels"),
    ],
)
def test_bad_lines_are_located(tmp_path, content, message, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    path = write(tmp_path, "bad.trec", content)
    with pytest.raises(InputError, match=message):
        Qrels.from_file(path)


def test_judgment_files_also_take_jsonl_with_unsure_and_notes(tmp_path):
    path = write(
        tmp_path,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "a", "grade": 2}\n'
        '{"query_id": "q1", "chunk_id": "b", "unsure": true, "note": "which year?"}\n',
    )
    kind, lines = read_judgments(path)
    assert kind == "jsonl" and [(x.grade, x.unsure, x.note) for x in lines] == [
        (2, False, ""),
        (None, True, "which year?"),
    ]
