"""The Judge page with Streamlit's AppTest, on the demo database and a local
OpenAI-compatible server: it shows what ``judge_report`` computes (its charts and their
tables too), runs the judge on a pool without holding the page, keeps the key to the server,
and shows what a model wrote as text."""

from __future__ import annotations

import time

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from annotator.judge.calibration import judge_labels
from annotator.judge.judge_report import (
    confusion_cells,
    failures_frame,
    judge_report,
    pool_runs,
)
from annotator.judge.prompt import default_prompt
from annotator.judge.runner import JudgeSettings, judge_name, judge_pool
from storage.db import make_engine
from tests.annotator.app.test_app import PAGES, shown_text, user_id
from tests.annotator.app.test_chart_pages import figure, same
from tests.conftest import import_grades
from tests.fake_chat_server import FakeChat, Scripted, answer, grading, passage_of
from tests.security.test_markup import PAYLOAD, markup_shown

FAST = JudgeSettings(concurrency=2, retries=1, timeout=5.0, backoff=0.01, backoff_cap=0.05)
CHARTS = ["judge_failures", "judge_confusion"]


def opened(url: str, user: str = "lead", lang: str = "en", tables=()) -> AppTest:
    at = AppTest.from_file(str(PAGES / "judge_page.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(url, user)
    at.session_state["lang"] = lang
    for key in tables:
        at.session_state[f"table_{key}"] = True
    return at.run()


def sometimes_wrong(request: dict) -> Scripted:
    """``grading``, but a made-up quote for one passage in three (by its length), and for
    another in three a grade the model is unsure of, with a reason that is Markdown."""
    passage = passage_of(request)
    if len(passage) % 3 == 0:
        return answer(2, "a sentence that is not in the passage")
    if len(passage) % 3 == 1:
        return answer(1, passage.split()[0], reason=f"see {PAYLOAD}", probability=0.4)
    return grading(request)


def frame_with(at: AppTest, column: str) -> pd.DataFrame:
    """The one table on the page with a column titled ``column``."""
    [table] = [d.value for d in at.dataframe if column in d.value.columns]
    return table


def test_the_judge_page_shows_what_the_report_computes(worked, demo_url, tmp_path):
    engine = make_engine(demo_url)
    with FakeChat(sometimes_wrong) as server:
        judge_pool(engine, "demo-pool", "demo-model", server.url, settings=FAST)
    # Two people agree on twelve of the candidates the model graded: calibration data.
    graded = judge_labels(engine, judge_name("demo-model", default_prompt().hash),
                          "demo-corpus-v1", "demo-queries-v1").head(12)  # fmt: skip
    lines = [
        {"query_id": q, "chunk_id": c, "grade": len(c) % 4}
        for q, c in zip(graded["query_id"], graded["chunk_id"], strict=True)
    ]
    for person in ("reader-1", "reader-2"):
        import_grades(engine, tmp_path, person, lines)
    report = judge_report(engine, "demo-pool", "demo-model")
    assert report.failed > 0 and report.graded > 0 and report.calibration.shared >= 12
    at = opened(demo_url, tables=CHARTS)
    assert not at.exception and not at.error, (at.exception, at.error)
    drawn, shown = figure(at, "judge_failures")
    same(drawn, shown, failures_frame(report).assign(failure=lambda f: f["failure"].map(
        {"evidence_not_in_passage": "evidence not found in the passage (misquoted)"}
    )))  # fmt: skip
    drawn, shown = figure(at, "judge_confusion")
    same(drawn, shown, confusion_cells(report.calibration))
    figures = frame_with(at, "figure")
    assert dict(zip(figures["figure"], figures.iloc[:, 1], strict=True)) == {
        "candidates": report.candidates, "graded": report.graded, "failed": report.failed,
        "not asked": report.not_asked, "flags": report.flagged, "requests": report.requests,
        "tokens in": report.tokens_in, "tokens out": report.tokens_out,
        "seconds of requests": round(report.request_seconds, 1),
        "seconds of runs": round(report.seconds, 1),
    }  # fmt: skip
    kappas = frame_with(at, "value")
    assert list(kappas["value"]) == [f.text("en") for f in report.calibration.kappas.values()]
    review = frame_with(at, "why")
    assert list(zip(review["query"], review["chunk"], strict=True)) == [
        (r["query_id"], r["chunk_id"]) for r in report.review
    ]
    assert "misquoted" in set(review["why"])
    runs = frame_with(at, "model asked for")
    assert list(runs["status"]) == ["done"] and list(runs["requests"]) == [report.requests]
    # What the model wrote (a reason holding Markdown) reaches the page only as text.
    assert markup_shown(at) == []
    chinese = opened(demo_url, lang="zh", tables=CHARTS)
    assert not chinese.exception and "模型与提示词" in [s.label for s in chinese.selectbox]


def test_the_page_runs_the_judge_and_follows_it(worked, demo_url, monkeypatch):
    monkeypatch.setenv("DEMO_JUDGE_API_KEY", "sk-NEVER-SHOWN")
    engine = make_engine(demo_url)
    with FakeChat() as server:
        at = opened(demo_url)
        at.text_input(key="judge_model").input("page-model")
        at.text_input(key="judge_base_url").input(server.url)
        at.text_input(key="judge_key").input("DEMO_JUDGE_API_KEY")
        at.number_input(key="judge_limit").set_value(5)
        at.button[0].click().run()
        assert not at.exception and not at.error, at.error
        assert "run 1 started" in shown_text(at)
        for _ in range(200):  # the run goes on in a thread: the page is back at once
            runs = pool_runs(engine, "demo-pool")
            if runs and runs[0].status != "running":
                break
            time.sleep(0.05)
        assert (runs[0].status, runs[0].done, runs[0].todo) == ("done", 5, 5)
        assert {r["headers"]["Authorization"] for r in server.requests} == {"Bearer sk-NEVER-SHOWN"}
    at.run()
    assert "sk-NEVER-SHOWN" not in str(at._tree)
    assert list(frame_with(at, "model asked for")["status"]) == ["done"]


@pytest.mark.parametrize(
    ("url", "variable", "message"),
    [
        ("ftp://host/v1", "", "is not a base URL to use"),
        ("http://127.0.0.1:9/v1", "QRELS_DATABASE_URL", "is not the name of an API-key variable"),
        ("http://127.0.0.1:9/v1", "ABSENT_API_KEY", "is not set in the process that sends"),
    ],
)
def test_a_bad_setting_is_said_and_nothing_runs(worked, demo_url, url, variable, message):
    at = opened(demo_url)
    at.text_input(key="judge_model").input("m")
    at.text_input(key="judge_base_url").input(url)
    at.text_input(key="judge_key").input(variable)
    at.button[0].click().run()
    assert not at.exception and message in at.error[0].value
    assert pool_runs(make_engine(demo_url), "demo-pool") == []


def test_a_running_judge_can_be_stopped_from_the_page(worked, demo_url):
    engine = make_engine(demo_url)
    slow = Scripted(body={}, delay=0.3)

    def behave(request):
        time.sleep(slow.delay)
        return grading(request)

    with FakeChat(behave) as server:
        at = opened(demo_url)
        at.text_input(key="judge_model").input("slow-model")
        at.text_input(key="judge_base_url").input(server.url)
        at.number_input(key="judge_concurrency").set_value(1)
        at.button[0].click().run()
        assert "Stop run 1" in [b.label for b in at.button]
        at.button(key="judge_stop_1").click().run()
        assert "run 1 stops after the answers in flight" in shown_text(at)
        for _ in range(200):
            runs = pool_runs(engine, "demo-pool")
            if runs[0].status != "running":
                break
            time.sleep(0.05)
    assert runs[0].status == "stopped" and runs[0].done < runs[0].todo
