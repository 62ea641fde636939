"""Issue 12, item 1, in headless Chromium: an annotator's tab is open and grading; the
account is disabled from the command line; the next key saves nothing and the tab is back
at the login form."""

from __future__ import annotations

import time

import pytest

from tests.browser_support import judgments, log_in, press_until_saved
from tests.conftest import run_qrels

pytestmark = pytest.mark.browser


def test_the_next_key_after_disabling_saves_nothing(server, browser):
    address, url = server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    log_in(page, address, "ann1")
    press_until_saved(page, url, "ann1", "2")
    saved = judgments(url, "ann1")
    assert len(saved) == 1

    run_qrels(url, "user", "disable", "ann1")
    for key in ("3", "1", "u"):
        page.keyboard.press(key)
        time.sleep(1.5)
    page.get_by_role("button", name="Log in").wait_for(timeout=20_000)
    assert judgments(url, "ann1") == saved  # nothing more was written
    assert page.get_by_text("Passage").count() == 0
