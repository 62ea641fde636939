"""Issue 36 in headless Chromium: the labeling page's keys survive what a person does. After
three language switches (the last click left on the language radio), a reload, a second tab
and a visit to another page: runs of grade keys 90 ms apart, pairs and bursts write only on
passages that were on the screen at one of the keys, none within 0.2 s of its item being
drawn (nobody read it), and `n` still moves into the note. Before the fix the keys' guard
belonged to an iframe that a language switch replaced: afterwards keys graded passages
drawn a tenth of a second earlier, `n` did nothing, and the focus stayed on the radio."""

from __future__ import annotations

import pytest

from tests.browser_support import (
    NOTICE_RECORDER,
    judged_seconds,
    log_in,
    press_sequences,
    settle,
)

pytestmark = pytest.mark.browser

RUN = [90] * 21  # 22 keys
PAIRS = [[60], [100], [150]]
BURST = [120] * 7  # 8 keys
NOT_APPLIED = {"en": "Key not applied", "zh": "按键未生效"}
FOCUS = """() => {
  const active = document.activeElement;
  return active?.closest('.st-key-note') ? "note" : (active?.tagName ?? "");
}"""


def switch_language(page, to: str) -> None:
    """Click the sidebar's language radio (the focus stays wherever the click left it) and
    wait until the grade buttons speak ``to``."""
    page.locator('[data-testid="stSidebar"]').get_by_text(
        {"en": "English", "zh": "中文"}[to], exact=True
    ).click()
    page.locator(".st-key-grade_3 button").get_by_text(
        {"en": "Answers", "zh": "直接回答"}[to]
    ).first.wait_for(timeout=20_000)
    settle(page)


def press_and_check(page, url: str, texts: dict[str, str], sequences: list[list[int]]) -> int:
    """``press_sequences``, then: no judgment was saved within 0.2 s of its item being
    drawn. Returns the number of keys pressed."""
    pressed = press_sequences(page, url, texts, sequences)
    unread = [s for s in judged_seconds(url, "ann1") if s is None or s < 0.2]
    assert not unread, f"{len(unread)} judgments saved within 0.2 s of their item: {unread}"
    return pressed


def note_opens(page) -> None:
    """`n` moves into the note, Esc leaves it, and no grade key typed meanwhile grades."""
    page.keyboard.press("n")
    page.wait_for_timeout(300)
    assert page.evaluate(FOCUS) == "note"
    page.keyboard.press("Escape")
    assert page.evaluate(FOCUS) != "note"


def test_keys_after_language_switches_a_reload_a_second_tab_and_another_page(long_pool, browser):
    address, url, texts = long_pool
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    log_in(page, address, "ann1")
    page.evaluate(NOTICE_RECORDER)
    for language in ("zh", "en", "zh"):
        switch_language(page, language)
    pressed = press_and_check(page, url, texts, [RUN, *PAIRS, BURST, BURST])
    notices = page.evaluate("() => window.__notices")
    assert any(NOT_APPLIED["zh"] in notice for notice in notices), notices  # said, in Chinese
    note_opens(page)

    page.reload()  # a new window: the keys are installed again, in the account's language
    page.locator(".st-key-passage").wait_for(timeout=30_000)
    pressed += press_and_check(page, url, texts, [PAIRS[0], BURST])
    note_opens(page)

    second = context.new_page()  # the same login in a second tab
    second.goto(address)
    second.locator(".st-key-passage").wait_for(timeout=30_000)
    pressed += press_and_check(second, url, texts, [BURST, PAIRS[1]])
    note_opens(second)
    page.bring_to_front()  # the first tab still shows an item the second one graded
    pressed += press_and_check(page, url, texts, [BURST, PAIRS[2]])

    page.get_by_role("link", name="我的进度").click()  # another page and back
    page.get_by_role("link", name="标注").click()
    page.locator(".st-key-passage").wait_for(timeout=30_000)
    pressed += press_and_check(page, url, texts, [BURST])
    note_opens(page)
    print(f"{pressed} keys, {len(judged_seconds(url, 'ann1'))} judgments")
