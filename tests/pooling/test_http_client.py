"""pooling.http_client against local servers (tests/fake_chat_server.py): redirects refused
and the key never reaching the host they point to, the size cap read in chunks, the total
deadline against a server that drips, no key in a failure, retries."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from pooling.http_client import HttpFailure, Limits, post_json, post_json_retrying
from pooling.redaction import REDACTED, redact
from tests.fake_chat_server import FakeChat, Scripted, completion

KEY = "sk-test-0123456789abcdefSECRET"
BODY = {"model": "m", "messages": [{"role": "user", "content": "<passage>\nhi\n</passage>"}]}


def _always(scripted: Scripted):
    return lambda request: scripted


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("where", ["other_port", "other_host", "ftp"])
def test_a_redirect_is_refused_and_its_target_never_sees_the_key(status, where):
    with FakeChat() as other:
        port = other.url.split(":")[2].split("/")[0]
        target = {
            "other_port": f"{other.url}/chat/completions",
            "other_host": f"http://localhost:{port}/v1/chat/completions",
            "ftp": "ftp://127.0.0.1/answer.json",
        }[where]
        moved = Scripted(status, {"moved": True}, headers={"Location": target})
        with FakeChat(_always(moved)) as server:
            with pytest.raises(HttpFailure) as failure:
                post_json(f"{server.url}/chat/completions", BODY, api_key=KEY)
            assert server.requests[0]["headers"]["Authorization"] == f"Bearer {KEY}"
        assert other.requests == []  # not asked at all, so not given the key
    assert failure.value.code == "redirect" and failure.value.fatal
    assert not failure.value.retryable
    for lang in ("en", "zh"):
        text = failure.value.message(lang)
        assert str(status) in text and target in text
    assert KEY not in failure.value.detail


def test_an_answer_over_the_size_is_refused_unread():
    big = Scripted(200, "x" * (1024 * 1024), copies=60)  # 60 MB, announced
    unannounced = Scripted(200, "x" * (1024 * 1024), copies=60, announce_length=False)
    for scripted in (big, unannounced):
        with FakeChat(_always(scripted)) as server:
            tracemalloc.start()
            try:
                with pytest.raises(HttpFailure) as failure:
                    post_json(f"{server.url}/chat/completions", BODY, limits=Limits(largest=2**20))
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        assert failure.value.code == "too_large"
        assert str(2**20) in failure.value.message("zh")
        assert peak < 20 * 2**20  # the server's 1 MB payload and at most ~1 MB read


def test_an_answer_at_the_size_is_read():
    scripted = completion('{"grade": 1}')
    with FakeChat(_always(scripted)) as server:
        reply = post_json(f"{server.url}/chat/completions", BODY)
    assert reply.json()["choices"][0]["message"]["content"] == '{"grade": 1}'


def test_a_server_that_drips_is_cut_off_at_the_deadline():
    drip = completion('{"grade": 1, "reason": "a slow server", "evidence": "hi"}')
    drip.drip = 0.05  # a byte every 50 ms: ~600 bytes take 30 s, each read is quick
    with FakeChat(_always(drip)) as server:
        started = time.monotonic()
        with pytest.raises(HttpFailure) as failure:
            post_json(f"{server.url}/chat/completions", BODY, limits=Limits(timeout=5, deadline=1))
        took = time.monotonic() - started
    assert failure.value.code == "timeout" and failure.value.retryable
    assert took < 10  # not the 30 s of the whole drip (loose: the machine is shared)
    assert "1" in failure.value.message("zh")


def test_an_echoed_key_is_not_in_the_failure():
    echo = Scripted(401, {"error": {"message": f"Incorrect API key provided: {KEY}."}})
    with FakeChat(_always(echo)) as server, pytest.raises(HttpFailure) as failure:
        post_json(f"{server.url}/chat/completions", BODY, api_key=KEY)
    assert failure.value.code == "http_4xx" and failure.value.fatal
    assert KEY not in failure.value.detail and KEY not in str(failure.value)
    assert REDACTED in failure.value.detail and "Incorrect API key" in failure.value.detail


def test_retries_after_a_5xx_and_a_429_then_gives_the_answer():
    answers = [Scripted(500, {}), Scripted(429, {}, headers={"Retry-After": "0"})]

    def behave(request):
        return answers.pop(0) if answers else completion("{}")

    waits: list[float] = []
    with FakeChat(behave) as server:
        reply = post_json_retrying(
            f"{server.url}/chat/completions", BODY, retries=2, sleep=waits.append
        )
    assert reply.status == 200 and len(waits) == 2 and waits[1] == 0


def test_no_retry_after_a_4xx():
    with FakeChat(_always(Scripted(400, {}))) as server:
        with pytest.raises(HttpFailure):
            post_json_retrying(f"{server.url}/chat/completions", BODY, sleep=lambda s: None)
        assert len(server.requests) == 1


def test_nothing_listening_is_a_connection_failure():
    with FakeChat() as server:
        url = f"{server.url}/chat/completions"
    with pytest.raises(HttpFailure) as failure:
        post_json(url, BODY, api_key=KEY)
    assert failure.value.code == "connection" and KEY not in failure.value.detail


@pytest.mark.parametrize(
    "text",
    [
        f"Bearer {KEY[3:]}",
        "Authorization: Bearer abcdefgh12345678",
        "sk-proj-AbCdEf0123456789xyz",
        "sk-ant-api03-AbCdEf0123456789",
        '{"api_key": "plainsecretvalue99"}',
        "x-api-key=0123456789abcdef",
        "hf_AbCdEfGhIjKlMnOpQrSt",
        "AIzaSyA0123456789abcdefghijklmnopqrstu",
    ],
)
def test_redact_hides_what_looks_like_a_key(text):
    hidden = redact(f"error: {text} (see docs)")
    assert REDACTED in hidden and "error:" in hidden and "(see docs)" in hidden
    secret_part = text.split()[-1].strip('"{}').split("=")[-1].split(": ")[-1].strip('"')
    assert secret_part not in hidden


def test_redact_leaves_ordinary_text_and_hides_a_named_secret():
    text = "HTTP 500: model overloaded, try again; task-force risk-taking"
    assert redact(text) == text
    assert redact("the key was hunter2hunter2!", ["hunter2hunter2"]) == (f"the key was {REDACTED}!")
