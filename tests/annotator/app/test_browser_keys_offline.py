"""Issue 36 in headless Chromium: the labeling page's keys after a dropped connection. The
browser goes offline and its WebSocket to the app is closed mid-work, keys are pressed
while it is gone, and it comes back; then runs of grade keys 90 ms apart, pairs and bursts
write only on passages that were on the screen at one of the keys, none within 0.2 s of its
item being drawn, `n` still moves into the note, and once the page shows it is connected
again no key is lost without a word: each one pressed writes a judgment or the page says
it was not applied."""

from __future__ import annotations

import time

import pytest

from tests.annotator.app.test_browser_keys import BURST, PAIRS, RUN, note_opens, press_and_check
from tests.browser_support import (
    NOTICE_RECORDER,
    judgments,
    log_in,
    press_sequence,
    settle,
)

pytestmark = pytest.mark.browser

# Every WebSocket the page opens, so that the test can close Streamlit's as a dropped
# network would (going offline alone leaves an open socket be in Chromium).
SOCKETS = """
(() => {
  const Original = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Original {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();
"""
CLOSE_SOCKETS = "() => { for (const s of window.__sockets) { s.close(); } }"
OPEN_SOCKETS = "() => window.__sockets.filter((s) => s.readyState === 1).length"
CONNECTING = '[data-testid="stStatusWidget"]'
NOT_APPLIED = "Key not applied"


def shows_connected(page, timeout: float = 60) -> None:
    """Wait until the page shows it is connected again: a socket open, no "Connecting"
    status, and the item's buttons drawn."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        texts = page.locator(CONNECTING).all_inner_texts()
        connecting = any("connect" in text.lower() for text in texts)
        if page.evaluate(OPEN_SOCKETS) and not connecting:
            settle(page)
            return
        time.sleep(0.2)
    raise AssertionError("the page never showed it was connected again")


def drop_connection(context, page, url: str, seconds: float) -> int:
    """Go offline, close the app's socket, press grade keys while the page says it is
    connecting (each one is said not to be applied: the buttons are disabled, and a key
    would do nothing without a word), and come back after ``seconds``. Returns the keys
    pressed."""
    sockets = page.evaluate("() => window.__sockets.length")
    context.set_offline(True)
    page.evaluate(CLOSE_SOCKETS)
    page.locator(CONNECTING).get_by_text("Connecting", exact=False).wait_for(timeout=20_000)
    said, written = len(page.evaluate("() => window.__notices")), len(judgments(url, "ann1"))
    press_sequence(page, [300] * 5, 0)
    page.wait_for_timeout(int(seconds * 1000))
    notices = page.evaluate("() => window.__notices")[said:]
    assert len(notices) == 6 and all(n.startswith(NOT_APPLIED) for n in notices), notices
    assert len(judgments(url, "ann1")) == written
    context.set_offline(False)
    page.wait_for_function(f"() => window.__sockets.length > {sockets}", timeout=60_000)
    return 6


def none_lost_silently(page, url: str, sequences: list[list[int]], start: int) -> int:
    """Press each sequence; every key writes a judgment or leaves a notice (the page's own,
    or a toast from the server). Returns the keys pressed."""
    pressed = 0
    for gaps in sequences:
        settle(page)
        written, said = len(judgments(url, "ann1")), len(page.evaluate("() => window.__notices"))
        press_sequence(page, gaps, start + pressed)
        time.sleep(2.5)
        keys = len(gaps) + 1
        written = len(judgments(url, "ann1")) - written
        said = len(page.evaluate("() => window.__notices")) - said
        assert written + said >= keys, f"{keys} keys {gaps} ms apart: {written} saved, {said} said"
        pressed += keys
    return pressed


def test_keys_after_the_connection_drops(long_pool, browser):
    address, url, texts = long_pool
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_init_script(SOCKETS)
    page = context.new_page()
    log_in(page, address, "ann1")
    page.evaluate(NOTICE_RECORDER)
    pressed = press_and_check(page, url, texts, [PAIRS[0]])
    pressed += drop_connection(context, page, url, seconds=4)
    shows_connected(page)
    pressed += press_and_check(page, url, texts, [RUN, *PAIRS, BURST])
    note_opens(page)
    pressed += none_lost_silently(page, url, [RUN, BURST, *PAIRS], pressed)
    # A second drop, then the same.
    pressed += drop_connection(context, page, url, seconds=3)
    shows_connected(page)
    pressed += press_and_check(page, url, texts, [BURST, PAIRS[1]])
    pressed += none_lost_silently(page, url, [BURST], pressed)
    note_opens(page)
    print(f"{pressed} keys, {len(judgments(url, 'ann1'))} judgments")
