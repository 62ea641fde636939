"""The labeling page on a laptop's screen (issue 40), in headless Chromium: at 1366×768, in
English and Chinese, and at 1920×1080, the query, the passage, the four grade buttons and
the rubric's four grade lines are inside the window on the first screen; a long passage
scrolls inside its own box, the whole rubric in a pane of its own; the document's title is
said once, above the passage; after the last item, "Nothing left for you" is in view.
Before, at 1366×768 the grade buttons' bottom edge was at 984 px."""

from __future__ import annotations

import pytest

from tests.browser_support import (
    LAPTOP,
    judgments,
    log_in,
    one_query_pool,
    passage,
    settle,
    wait_for_next_item,
)

pytestmark = pytest.mark.browser

WIDE = {"width": 1920, "height": 1080}
LONG = " ".join(
    f"Sentence {i} says how brake pads wear and when to replace them." for i in range(70)
)
CORPUS = [
    {"_id": "long", "title": "Brake manual", "text": LONG},
    {"_id": "pads", "title": "Brake manual", "text": "Brake pads must be replaced below 1.5 mm."},
    {"_id": "tea", "title": "Tea", "text": "Green tea stays fresh when kept cold and sealed."},
]
RUN = "q1 Q0 long 1 3 r\nq1 Q0 pads 2 2 r\nq1 Q0 tea 3 1 r\n"
IN_VIEW = [
    ".st-key-query",
    ".st-key-passage",
    *(f".st-key-grade_{grade} button" for grade in range(4)),
    ".st-key-rubric_grades",
    ".st-key-rubric_full",
]
# Each element's box in the window, and whether it scrolls inside (more to it than shown).
BOX = """element => {
  const box = element.getBoundingClientRect();
  return {top: box.top, bottom: box.bottom, left: box.left, right: box.right,
          scrolls: element.scrollHeight > element.clientHeight + 10};
}"""


@pytest.fixture
def labeling(tmp_path, database):
    """One query, three passages (the first a long one, two from one document); ann1."""
    with one_query_pool(tmp_path, database, CORPUS, RUN, "brake pads") as served:
        yield served


def first_screen(browser, address: str, viewport: dict, lang: str):
    page = browser.new_page(viewport=viewport)
    log_in(page, address, "ann1")
    if lang == "zh":
        page.locator('[data-testid="stSidebar"]').get_by_text("中文", exact=True).click()
        page.locator(".st-key-grade_3 button").get_by_text("直接回答").first.wait_for(
            timeout=20_000
        )
        settle(page)
    return page


def assert_in_view(page, viewport: dict, where: str) -> dict[str, dict]:
    boxes = {selector: page.locator(selector).first.evaluate(BOX) for selector in IN_VIEW}
    for selector, box in boxes.items():
        inside = box["top"] >= 0 and box["bottom"] <= viewport["height"] + 0.5
        assert inside and box["right"] <= viewport["width"], f"{where}: {selector} at {box}"
    return boxes


@pytest.mark.parametrize(("viewport", "lang"), [(LAPTOP, "en"), (LAPTOP, "zh"), (WIDE, "en")])
def test_the_item_its_buttons_and_the_rubric_fit_the_first_screen(
    labeling, browser, tmp_path, viewport, lang
):
    address, _ = labeling
    page = first_screen(browser, address, viewport, lang)
    where = f"{viewport['width']}x{viewport['height']} ({lang})"
    page.screenshot(path=tmp_path / f"label-{viewport['width']}-{lang}.png")
    boxes = assert_in_view(page, viewport, where)
    assert boxes[".st-key-passage"]["scrolls"], f"{where}: the long passage is not in a box"
    assert boxes[".st-key-rubric_full"]["scrolls"], f"{where}: the rubric is not in a pane"
    # The title is said once, above the passage, not in the passage's box.
    assert "Brake manual" in page.locator(".st-key-passage_heading").inner_text()
    assert "Brake manual" not in page.locator(".st-key-passage").inner_text()


def test_nothing_left_is_said_where_the_passage_was(labeling, browser):
    address, url = labeling
    page = first_screen(browser, address, LAPTOP, "en")
    for grade in "123":  # by mouse: a button below the fold would be scrolled to first
        shown = passage(page)
        page.locator(f".st-key-grade_{grade} button").first.click()
        wait_for_next_item(page, shown)
    assert len(judgments(url, "ann1")) == 3
    message = page.get_by_text("Nothing left for you")
    message.wait_for(timeout=20_000)
    box = message.evaluate(BOX)
    assert box["top"] >= 0 and box["bottom"] <= LAPTOP["height"], box
