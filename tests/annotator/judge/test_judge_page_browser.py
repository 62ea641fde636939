"""The Judge page in Chromium at a laptop's size (issue 40): a run started from the page is
followed to its end, and the page says it is done, with no Refresh pressed."""

from __future__ import annotations

import time

import pytest

from annotator.judge.judge_report import pool_runs
from storage.db import make_engine
from tests.browser_support import LAPTOP, browser, log_in, server  # noqa: F401 (fixtures)
from tests.fake_chat_server import FakeChat, grading

pytestmark = pytest.mark.browser

WORDS = {
    "en": {"page": "Judge", "done": "done", "running": "running"},
    "zh": {"page": "模型评判", "done": "已完成", "running": "运行中"},
}


def slowly(request: dict):
    time.sleep(0.7)  # the run lasts a few of the page's two-second looks
    return grading(request)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_judge_page_follows_a_run_to_its_end_without_a_refresh(
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    lang,
):
    address, url = server
    page = browser.new_page(viewport=LAPTOP)
    log_in(page, address, "boss")
    if lang == "zh":
        page.get_by_text("中文", exact=True).click()
        page.get_by_text("当前用户", exact=False).first.wait_for(timeout=30_000)
    page.locator('[data-testid="stSidebarNav"] a[href$="/judge"]').click()
    with FakeChat(slowly) as chat:
        page.locator(".st-key-judge_model input").fill("page-model")
        page.locator(".st-key-judge_base_url input").fill(chat.url)
        concurrency = page.locator(".st-key-judge_concurrency input")
        concurrency.fill("1")
        concurrency.press("Tab")
        page.locator('[data-testid="stFormSubmitButton"] button').click()
        progress = page.locator('[data-testid="stProgress"]')
        progress.first.wait_for(timeout=30_000)  # followed while it runs
        status = page.locator(".stDataFrame").first.locator("td")  # the runs, first
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            runs = pool_runs(make_engine(url), "p")
            if runs and runs[0].status != "running":
                break
            time.sleep(0.2)
        assert runs[0].status == "done", runs
        # No click from here on: the page notices the end by itself (the table's cells,
        # drawn on a canvas, are also in a table for screen readers).
        deadline, cells = time.monotonic() + 15, []
        while time.monotonic() < deadline and WORDS[lang]["done"] not in cells:
            page.wait_for_timeout(300)
            cells = [c.strip() for c in status.all_text_contents()]
    assert WORDS[lang]["done"] in cells and WORDS[lang]["running"] not in cells, cells
    assert progress.count() == 0
