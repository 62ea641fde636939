"""The judge's requests (``chat_client`` over ``pooling.http_client``) against local
servers: a redirect refused and the host it points to never given the key, an answer over
the size refused, a dripping server cut off; and a key echoed by the server kept out of
what is stored (``judge_answer.detail``, ``judge_run.error``) and printed (the CLI,
``judge report``, the Judge page's runs), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import update
from sqlmodel import select

from annotator.judge.chat_client import Endpoint, TransportError, chat
from annotator.judge.judge_report import judge_report, pool_runs
from annotator.judge.runner import judge_pool
from storage.db import session_scope
from storage.judge_tables import JudgeAnswer, JudgeRun
from tests.annotator.judge.test_judge import FAST, judged_pool  # noqa: F401  (a fixture)
from tests.conftest import run_qrels
from tests.fake_chat_server import FakeChat, Script, Scripted, answer, completion

KEY = "plainkey0123456789XYZ"  # shaped like nothing: only the key itself can hide it
SHAPED = "sk-proj-ShapedLikeAKey0123456789"  # another provider's key, echoed by a proxy
MESSAGES = [{"role": "user", "content": "<query>\nq\n</query>\n<passage>\np\n</passage>"}]


def _always(scripted: Scripted):
    return lambda request: scripted


@pytest.mark.parametrize("status", [302, 307])
@pytest.mark.parametrize("where", ["other_port", "other_host", "ftp"])
def test_a_redirect_is_refused_and_its_target_never_gets_the_key(status, where):
    with FakeChat() as other:
        port = other.url.rsplit(":", 1)[1].split("/")[0]
        target = {
            "other_port": f"{other.url}/chat/completions",
            "other_host": f"http://localhost:{port}/v1/chat/completions",
            "ftp": "ftp://127.0.0.1/v1/chat/completions",
        }[where]
        moved = Scripted(status, {}, headers={"Location": target})
        with FakeChat(_always(moved)) as server, pytest.raises(TransportError) as failure:
            chat(Endpoint(server.url, "m", KEY, timeout=5), MESSAGES)
        assert other.requests == []
    assert failure.value.code == "redirect" and failure.value.fatal
    assert f"HTTP {status}" in failure.value.detail and target in failure.value.detail


def test_an_answer_over_the_size_is_refused():
    big = Scripted(200, " " * (1024 * 1024), copies=60, announce_length=False)  # 60 MB
    with FakeChat(_always(big)) as server, pytest.raises(TransportError) as failure:
        chat(Endpoint(server.url, "m", timeout=5), MESSAGES)
    assert failure.value.code == "too_large"


def test_a_dripping_server_is_cut_off_at_the_deadline():
    drip = completion('{"grade": 0, "reason": "dripped", "evidence": ""}')
    drip.drip = 0.05  # each read is quick; the whole answer would take ~30 s
    with FakeChat(_always(drip)) as server, pytest.raises(TransportError) as failure:
        started = time.monotonic()
        chat(Endpoint(server.url, "m", timeout=5, deadline=1), MESSAGES)
    assert failure.value.code == "timeout" and time.monotonic() - started < 10


def _echoing(request: dict) -> Scripted:
    """A server that refuses the key and says it back, with another key beside it."""
    return Scripted(
        401,
        {"error": {"message": f"Incorrect API key provided: {KEY}. Proxy saw Bearer {SHAPED}"}},
    )


def _nothing_of_the_keys(text: str) -> None:
    assert KEY not in text and SHAPED not in text and "ShapedLikeAKey" not in text


def test_an_echoed_key_is_neither_stored_nor_printed(judged_pool, db_url, monkeypatch):  # noqa: F811
    monkeypatch.setenv("LOCAL_TEST_API_KEY", KEY)
    with FakeChat(_echoing) as server:
        done = run_qrels(db_url, "judge", "--pool", "p", "--model", "m", "--base-url",
                         server.url, "--api-key-env", "LOCAL_TEST_API_KEY", "--retries", "0",
                         expect=2)  # fmt: skip
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    assert "Incorrect API key provided" in done.output and "[redacted]" in done.output
    _nothing_of_the_keys(done.output + done.stderr)
    with session_scope(judged_pool) as session:
        details = [a.detail for a in session.exec(select(JudgeAnswer)).all()]
        errors = [r.error for r in session.exec(select(JudgeRun)).all()]
    assert details and errors == [details[0]]
    for text in details + errors:
        assert "Incorrect API key provided" in text
        _nothing_of_the_keys(text)
    for args in ((), ("--json",)):
        report = run_qrels(db_url, "judge", "report", "--pool", "p", "--model", "m", *args)
        _nothing_of_the_keys(report.output)
    assert json.loads(report.stdout)["runs"][0]["error"] == errors[0]
    _nothing_of_the_keys(" ".join(view.error for view in pool_runs(judged_pool, "p")))


def test_a_key_stored_before_it_was_hidden_is_not_shown(judged_pool, monkeypatch):  # noqa: F811
    for module in ("annotator.judge.asking", "storage.judge_records"):  # an older version
        monkeypatch.setattr(f"{module}.redact", lambda text, secrets=(): text, raising=False)
    script = Script({"Green tea": [answer(2, f"Bearer {SHAPED}")]})  # misquoted: a detail
    with FakeChat(script) as server:
        judge_pool(judged_pool, "p", "m", server.url, settings=FAST)
    with session_scope(judged_pool) as session:
        assert any(SHAPED in d for d in session.exec(select(JudgeAnswer.detail)).all())
        session.execute(update(JudgeRun).values(error=f"HTTP 401: key {SHAPED}"))
    report = judge_report(judged_pool, "p", "m")
    shown = json.dumps([report.review, report.runs], default=str)
    assert "Bearer [redacted]" in shown and "HTTP 401: key [redacted]" in shown
    _nothing_of_the_keys(shown)
    _nothing_of_the_keys(" ".join(view.error for view in pool_runs(judged_pool, "p")))


def test_a_redirect_fails_the_run_with_its_reason(judged_pool, monkeypatch):  # noqa: F811
    monkeypatch.setenv("LOCAL_TEST_API_KEY", KEY)
    with FakeChat() as other:
        moved = Scripted(302, {}, headers={"Location": f"{other.url}/chat/completions"})
        with FakeChat(_always(moved)) as server:
            summary = judge_pool(judged_pool, "p", "m", server.url,
                                 key_variable="LOCAL_TEST_API_KEY", settings=FAST)  # fmt: skip
        assert other.requests == []
    assert summary.status == "failed" and "redirect" in summary.error
    assert summary.told is not None and other.url in summary.told.message("zh")
    assert "重定向" in summary.told.message("zh")
    with session_scope(judged_pool) as session:
        run = session.exec(select(JudgeRun)).one()
    assert run.status == "failed" and other.url in run.error
