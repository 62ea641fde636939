"""Questions from a plain list (.txt) or a spreadsheet (.csv), with located errors."""

from __future__ import annotations

import pytest

from pooling.question_files import read_query_file
from pooling.readers import InputError
from tests.conftest import write


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")


def test_one_question_a_line_ids_by_line_number(tmp_path):
    path = write(
        tmp_path, "questions.txt", "\ufeffHow do I reset it?\r\n\r\n  借书期限是多久？  \n"
    )
    records = read_query_file(path, default_split="dev")
    assert [(r.query_id, r.text, r.split, r.answerable) for r in records] == [
        ("q1", "How do I reset it?", "dev", True),
        ("q3", "借书期限是多久？", "dev", True),
    ]


def test_csv_with_a_text_column_and_optional_ones(tmp_path):
    content = (
        "id,text,split,slices,answerable,notes,owner\n"
        'a1,"Where, exactly, is the desk?",dev,en;place,yes,,ana\n'
        "\n"
        'a2,"一次最多借\n几本书？",,zh,否,needs a number,\n'
    )
    records = read_query_file(write(tmp_path, "q.csv", content))
    assert [(r.line, r.query_id, r.text, r.split, r.slices, r.answerable) for r in records] == [
        (2, "a1", "Where, exactly, is the desk?", "dev", ["en", "place"], True),
        (4, "a2", "一次最多借\n几本书？", "test", ["zh"], False),
    ]
    assert records[0].metadata == {"owner": "ana"} and records[1].notes == "needs a number"


def test_csv_without_ids_numbers_by_line(tmp_path):
    records = read_query_file(write(tmp_path, "q.csv", "text\nfirst?\nsecond?\n"))
    assert [r.query_id for r in records] == ["q2", "q3"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("q.txt", "one?\ntwo?\none?\n", "q.txt, line 3, field 'text': the same question as line 1"),
        ("q.txt", "\n\n", "q.txt: the file holds no records"),
        ("q.txt", "ok\n\x1b[2J\n", "q.txt, line 2: holds the control character U+001B"),
        ("q.csv", "question\nwhy?\n", "q.csv, line 1: the header has no 'text' column"),
        ("q.csv", "id,text\na,one?\n,two?\n", "q.csv, line 3, field 'id': must not be empty"),
        ("q.csv", "id,text\na,one?\na,two?\n", "q.csv, line 3, field 'id': duplicate id 'a'"),
        ("q.csv", "id,text\na b,one?\n", "q.csv, line 2, field 'id': id 'a b' holds a space"),
        ("q.csv", "id,text\na,\n", "q.csv, line 2, field 'text': text is empty"),
        ("q.csv", "text,split\nwhy?,train\n", "q.csv, line 2, field 'split': 'train' is not"),
        ("q.csv", "text,answerable\nwhy?,maybe\n", "q.csv, line 2, field 'answerable': 'maybe'"),
        ("q.csv", "text\nwhy?,extra\n", "q.csv, line 2: 2 cells, more than the header's 1"),
        ("q.csv", 'text\n"open quote\n', "q.csv, line 2: not valid CSV"),
    ],
)
def test_bad_question_files_are_refused_where_they_are_wrong(
    tmp_path, english, name, content, message
):
    path = write(tmp_path, name, content)
    with pytest.raises(InputError) as error:
        read_query_file(path)
    assert error.value.message("en").startswith(str(tmp_path / message)), error.value.message()


def test_errors_in_chinese(tmp_path):
    path = write(tmp_path, "q.csv", "question\nwhy?\n")
    with pytest.raises(InputError) as error:
        read_query_file(path)
    assert (
        error.value.message("zh")
        == f"{path} 第 1 行：表头中没有存放问题的“text”列（现有列：question）"
    )
