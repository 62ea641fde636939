"""A lead builds a pool and tops it up in Chromium at 1366×768, in English and Chinese
(issue 40), each found in the database, and an annotator then gets its items; and builds
one whose vector system asks a local OpenAI-compatible embeddings server (issue 38)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from annotator.labeling import assignment
from storage.accounts import get_user
from storage.db import make_engine, session_scope
from storage.pool_records import find_pool, pool_report
from tests.browser_support import (  # noqa: F401 (fixtures)
    LAPTOP,
    browser,
    choose,
    idle,
    lead_on,
    server,
    until,
)
from tests.fake_chat_server import FakeChat

pytestmark = pytest.mark.browser

WORDS = {
    "en": {"build": "Build a pool", "topup": "Top up this pool", "built": "pool 'fresh':",
           "pool": "Pool", "topped": "new candidates"},
    "zh": {"build": "建立候选池", "topup": "为此候选池补充候选", "built": "候选池“fresh”",
           "pool": "候选池", "topped": "新增"},
}  # fmt: skip


def size(url: str) -> int | None:
    with session_scope(make_engine(url)) as session:
        pool = find_pool("fresh", session=session)
        return None if pool is None else sum(pool_report(pool, session=session).sizes.values())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_lead_builds_and_tops_up_a_pool_from_the_app(
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    lang,
):
    address, url = server
    words = WORDS[lang]
    page = browser.new_page(viewport=LAPTOP)
    lead_on(page, address, lang, "pools")
    page.get_by_text(words["build"], exact=True).click()
    page.locator(".st-key-build_pool_name input").fill("fresh")
    page.locator(".st-key-build_pool_systems input").fill("run:r")
    page.locator(".st-key-build_depth input").fill("1")
    page.locator(".st-key-build_pool_submit button").click()
    alert = page.locator('[data-testid="stAlert"]').filter(has_text=words["built"])
    alert.first.wait_for(timeout=60_000)
    until(lambda: size(url) is not None)
    built = size(url)
    choose(page, words["pool"], "fresh")
    # The page shows the pool just chosen (its heading, in either language) and has settled.
    page.get_by_text(re.compile(r"^fresh[:：] ?run:r")).wait_for(timeout=60_000)
    idle(page)
    page.get_by_text(words["topup"], exact=True).click()
    page.locator(".st-key-topup_pool_systems input").fill("run:r")
    alert = page.locator('[data-testid="stAlert"]').filter(has_text=words["topped"])
    # Submitted a second time, as a person would, only when the first click did nothing at
    # all: on a loaded machine (the whole browser suite on 2 cores) a submit of this form
    # was lost about once in three runs of the suite, with no error, no reconnection and no
    # run of the page that saw it (the cause, inside Streamlit's frontend, is not known).
    for attempt in range(2):
        page.locator(".st-key-topup_pool_submit button").click()
        try:
            alert.first.wait_for(timeout=20_000 if attempt == 0 else 60_000)
            break
        except PlaywrightTimeout:
            shown = page.locator('[data-testid="stAlert"]').all_inner_texts()
            assert attempt == 0 and size(url) == built, f"no top-up reported: {shown}"
    until(lambda: (size(url) or 0) > (built or 0))
    engine = make_engine(url)
    with session_scope(engine) as session:
        ann = get_user("ann1", session=session).id
    assert assignment.next_item(engine, "fresh", ann) is not None
    assert built == 1


KEY = "sk-test-0123456789abcdef"


@pytest.fixture
def embeddings_server(monkeypatch):
    """A local OpenAI-compatible embeddings server, and its key in the environment the app
    is started with (asked for before ``server``, which starts the app)."""
    monkeypatch.setenv("TEST_EMBEDDINGS_API_KEY", KEY)
    with FakeChat() as fake:
        yield fake


def test_a_lead_builds_a_pool_over_an_embeddings_server(
    embeddings_server,
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
):
    # In Chinese: the encoder's choice and its fields, by their Chinese labels.
    address, url = server
    page = browser.new_page(viewport=LAPTOP)
    lead_on(page, address, "zh", "pools")
    page.get_by_text("建立候选池", exact=True).click()
    page.locator(".st-key-build_pool_name input").fill("fresh")
    page.locator(".st-key-build_pool_systems input").fill("vector")
    page.locator(".st-key-build_depth input").fill("2")
    choose(page, "vector 系统的编码器", "openai：OpenAI 兼容的嵌入服务器")
    page.locator(".st-key-build_encoder_model input").fill("e5-small")
    page.locator(".st-key-build_embeddings_url input").fill(embeddings_server.url)
    page.locator(".st-key-build_api_key_env input").fill("TEST_EMBEDDINGS_API_KEY")
    page.locator(".st-key-build_pool_submit button").click()
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="候选池“fresh”")
    alert.first.wait_for(timeout=60_000)
    until(lambda: size(url) is not None)
    # The passages and the query went to the server, with the key from the app's
    # environment; the key is on no page and in no record of the pool.
    inputs = [text for body in embeddings_server.bodies() for text in body["input"]]
    assert "brake maintenance" in inputs and len(inputs) == 5 + 1
    headers = [request["headers"] for request in embeddings_server.requests]
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in headers)
    assert KEY not in page.content()
    with session_scope(make_engine(url)) as session:
        config = json.dumps(
            pool_report(find_pool("fresh", session=session), session=session).config
        )
    assert "openai:e5-small" in config and "TEST_EMBEDDINGS_API_KEY" in config
    assert KEY not in config
    assert size(url) == 2
