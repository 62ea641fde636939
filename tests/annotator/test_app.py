"""The app's pages with Streamlit's AppTest: who sees what, and that the labeling page
shows what the plain modules compute."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotator import assignment
from storage import accounts
from storage.db import make_engine, session_scope

APP = Path(__file__).resolve().parents[2] / "annotator"
PAGES = APP / "pages"
LEAD_PAGES = ["team_progress.py", "pools.py"]
ALL_PAGES = ["label.py", "my_progress.py", *LEAD_PAGES]


@pytest.fixture(autouse=True)
def fresh_caches():
    st.cache_resource.clear()  # the engine is cached per process: one per test's database
    yield
    st.cache_resource.clear()


def user_id(url: str, name: str) -> int:
    with session_scope(make_engine(url)) as session:
        return accounts.get_user(name, session=session).id


def page(name: str, url: str, as_user: str | None = None) -> AppTest:
    at = AppTest.from_file(str(PAGES / name), default_timeout=60)
    if as_user is not None:
        at.session_state["user_id"] = user_id(url, as_user)
    return at.run()


def shown_text(at: AppTest) -> str:
    parts = [
        e.value
        for kind in ("markdown", "text", "caption", "info", "success", "warning", "error")
        for e in getattr(at, kind)
    ]
    parts += [b.label for b in at.button]
    parts += [p.proto.text for p in at.get("progress")]
    return "\n".join(str(p) for p in parts)


def log_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(password)
    return at.button[0].click().run()


def test_a_logged_out_visitor_sees_only_the_login_form(demo_url):
    at = AppTest.from_file(str(APP / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert [w.label for w in at.text_input] == ["User name", "Password"]
    assert [b.label for b in at.button] == ["Log in"]
    assert "Relevance rubric" not in shown_text(at)


def test_a_wrong_password_is_refused(demo_url):
    at = log_in(
        AppTest.from_file(str(APP / "app.py"), default_timeout=60).run(), "annotator1", "nope"
    )
    assert at.error[0].value.startswith("Wrong user name or password")
    assert "user_id" not in at.session_state


def test_an_annotator_logs_in_and_sees_an_item_but_no_system_or_rank(demo_url):
    at = log_in(
        AppTest.from_file(str(APP / "app.py"), default_timeout=60).run(),
        "annotator1",
        "demo-annotator-1",
    )
    assert not at.exception
    text = shown_text(at)
    assert "Relevance rubric" in text and "This query: 0 /" in text
    assert [b.key for b in at.button if b.key and b.key.startswith("grade_")] == [
        "grade_0",
        "grade_1",
        "grade_2",
        "grade_3",
    ]
    for hidden in ("bm25", "rrf", "vector", "provenance", "score", "rank"):
        assert hidden not in text.lower()


@pytest.mark.parametrize("name", ALL_PAGES)
def test_a_logged_out_visitor_opening_any_page_gets_no_content(demo_url, name):
    at = page(name, demo_url)
    assert [w.value for w in at.warning] == ["Please log in first."]
    assert not at.dataframe and not at.button and not at.text


@pytest.mark.parametrize("name", LEAD_PAGES)
def test_an_annotator_opening_a_lead_page_is_refused(demo_url, name):
    at = page(name, demo_url, as_user="annotator1")
    assert [e.value for e in at.error] == [
        "This page is for leads only. Your account cannot open it."
    ]
    assert not at.dataframe and not at.get("progress")


@pytest.mark.parametrize("name", LEAD_PAGES)
def test_a_lead_opens_lead_pages(demo_url, name):
    at = page(name, demo_url, as_user="lead")
    assert not at.exception and not at.error
    assert at.dataframe


def test_the_lead_pages_show_what_the_modules_compute(demo_url):
    from annotator.progress import team_progress

    engine = make_engine(demo_url)
    uid = user_id(demo_url, "annotator1")
    for grade in (1, 2):
        assignment.submit(engine, assignment.next_item(engine, "demo-pool", uid), uid, grade=grade)
    at = page("team_progress.py", demo_url, as_user="lead")
    table, _ = team_progress(engine, "demo-pool")
    shown = at.dataframe[0].value
    assert list(shown.iloc[:, 0]) == list(table["annotator"]) == ["annotator1"]
    assert list(shown.iloc[:, 1]) == [2]


def test_my_progress_for_an_annotator(demo_url):
    engine = make_engine(demo_url)
    uid = user_id(demo_url, "annotator2")
    item = assignment.next_item(engine, "demo-pool", uid)
    assignment.submit(engine, item, uid, unsure=True, note="two readings")
    at = page("my_progress.py", demo_url, as_user="annotator2")
    frame = at.dataframe[0].value
    assert frame.to_dict("records") == [{"query": item.query_id, "judged": 1, "unsure": 1}]


def test_grading_on_the_page_writes_a_judgment(demo_url):
    at = page("label.py", demo_url, as_user="annotator1")
    at.button(key="grade_3").click().run()
    assert not at.exception
    engine = make_engine(demo_url)
    judged = assignment.judged_items(engine, "demo-pool", user_id(demo_url, "annotator1"))
    assert [i.grade for i in judged] == [3]
    assert "This query: 1 /" in shown_text(at)


def test_unsure_without_a_note_asks_for_one(demo_url):
    at = page("label.py", demo_url, as_user="annotator1")
    at.button(key="unsure").click().run()
    assert "Write a note saying why you are unsure" in shown_text(at)
    engine = make_engine(demo_url)
    assert assignment.judged_items(engine, "demo-pool", user_id(demo_url, "annotator1")) == []


def test_the_page_speaks_chinese(demo_url):
    at = AppTest.from_file(str(PAGES / "label.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(demo_url, "annotator1")
    at.session_state["lang"] = "zh"
    at.run()
    text = shown_text(at)
    assert "相关性标注规则" in text and "跳过 (s)" in text and "本查询：" in text


def test_a_disabled_account_is_logged_out_at_the_next_render(demo_url):
    at = page("label.py", demo_url, as_user="annotator1")
    assert not at.warning
    with session_scope(make_engine(demo_url)) as session:
        accounts.disable_user("annotator1", session=session)
    at.run()
    assert [w.value for w in at.warning] == ["Please log in first."]


def test_a_lead_builds_and_tops_up_a_pool_in_the_app(demo_url):
    at = page("pools.py", demo_url, as_user="lead")
    build = [w for w in at.text_input if w.label == "Pool name"][0]
    build.input("second")
    systems = [w for w in at.text_input if w.label.startswith("Systems")][0]
    systems.input("bm25")
    at.button[[b.label for b in at.button].index("Build")].click().run()
    assert not at.exception
    assert any("pool 'second':" in s.value for s in at.success), [e.value for e in at.error]
    at = page("pools.py", demo_url, as_user="lead")
    systems = [w for w in at.text_input if w.label.startswith("Systems")][1]
    systems.input("vector")
    at.button[[b.label for b in at.button].index("Top up")].click().run()
    assert any("new candidates" in s.value for s in at.success), [e.value for e in at.error]
    at = page("pools.py", demo_url, as_user="lead")
    bad = [w for w in at.text_input if w.label.startswith("Systems")][1]
    bad.input("splade")
    at.button[[b.label for b in at.button].index("Top up")].click().run()
    assert [e.value for e in at.error] == [
        "unknown system 'splade'; valid: bm25, vector, rrf, combsum, combmnz, run:<name>"
    ]
