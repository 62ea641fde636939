"""The Data page with Streamlit's AppTest (issue 40): a lead's upload that is refused shows
its located error as plain text, in the page's language, and writes nothing; a good one
says what it imported."""

from __future__ import annotations

from sqlmodel import select
from streamlit.testing.v1 import AppTest

from storage.db import make_engine, session_scope
from storage.models import CorpusVersion, QuerySet, System
from tests.annotator.app.test_app import lead_page, literal
from tests.annotator.app.test_data_imports import PAGES as HANDBOOK
from tests.annotator.app.test_data_imports import zipped


def data_page(url: str, lang: str = "en") -> AppTest:
    return lead_page("data_page.py", url, lang)


def names(url: str) -> tuple[list[str], list[str], list[str]]:
    with session_scope(make_engine(url)) as session:
        return tuple(  # type: ignore[return-value]
            sorted(session.exec(select(model.name)).all())
            for model in (CorpusVersion, QuerySet, System)
        )


def upload(at: AppTest, key: str, files) -> AppTest:
    at.file_uploader(key=key).set_value(files)
    return at


def test_an_unsafe_zip_is_refused_as_plain_text_and_writes_nothing(demo_url):
    before = names(demo_url)
    at = data_page(demo_url)
    evil = zipped({**HANDBOOK, "../../[x](http://e.test)/boom.md": "# boom"})
    upload(at, "data_documents_files", [("evil_*1*.zip", evil, "application/zip")])
    at.text_input(key="data_version").input("v-evil")
    at.button(key="data_documents_submit").click().run()
    assert not at.exception and not at.success
    said = literal(at.error[0])
    assert said.startswith("evil_*1*.zip: '../../[x](http://e.test)/boom.md' is not a plain")
    assert names(demo_url) == before


def test_a_bad_question_file_is_located_in_chinese(demo_url):
    before = names(demo_url)
    at = data_page(demo_url, "zh")
    upload(
        at, "data_queries_file", ("q.jsonl", b'{"_id": "a", "text": "x"}\n{oops\n', "text/plain")
    )
    at.button(key="data_queries_submit").click().run()
    assert not at.exception and not at.success
    assert literal(at.error[0]).startswith("q.jsonl 第 2 行")
    assert names(demo_url) == before


def test_a_run_without_a_file_asks_for_one(demo_url):
    at = data_page(demo_url)
    at.button(key="data_run_submit").click().run()
    assert [w.value for w in at.warning] == ["Choose a file first."]


def test_a_lead_imports_documents_and_questions_from_the_page(demo_url):
    at = data_page(demo_url)
    upload(at, "data_documents_files", [("handbook.zip", zipped(HANDBOOK), "application/zip")])
    at.button(key="data_documents_submit").click().run()
    assert not at.exception and not at.error
    assert literal(at.success[0]).startswith("imported corpus version 'handbook': 3 documents")
    upload(at, "data_queries_file", ("my questions.txt", b"one?\ntwo?\n", "text/plain"))
    at.text_input(key="data_query_set").input("mine")
    at.button(key="data_queries_submit").click().run()
    assert literal(at.success[0]).startswith("imported query set 'mine': 2 queries")
    corpora, query_sets, _ = names(demo_url)
    assert "handbook" in corpora and "mine" in query_sets
