"""The lead's pages on a laptop's screen (1366×768) in headless Chromium, in English and
Chinese (issue 25): no chart's text is cut short (Vega ends a cut label or title with
"…"), no table is wider than the page, no time axis says the same label twice, and an
hour's work draws a line of completion, not a dot."""

from __future__ import annotations

import pytest

from tests.browser_support import LAPTOP, browser, log_in, serving  # noqa: F401 (a fixture)
from tests.conftest import run_qrels, write

pytestmark = pytest.mark.browser

LINKS = {
    "en": {"team": "Team progress", "agreement": "Agreement"},
    "zh": {"team": "团队进度", "agreement": "一致性"},
}
# Per chart: every text Vega drew, and the labels of each axis.
DRAWN = """figure => ({
    texts: Array.from(figure.querySelectorAll("svg text")).map(t => t.textContent),
    axes: Array.from(figure.querySelectorAll("svg g.role-axis-label")).map(
        g => Array.from(g.querySelectorAll("text")).map(t => t.textContent)),
})"""
# Per table: how much wider its grid is than the room it has.
OVERFLOW = """grids => grids.map(g => g.scrollWidth - g.clientWidth)"""


@pytest.fixture
def lead_address(worked, demo_url, tmp_path):
    """The demo pool two annotators judged in about an hour (``worked``), served, with a
    lead ``boss``."""
    password = write(tmp_path, "password.txt", "secret-password\n")
    run_qrels(demo_url, "user", "add", "boss", "--role", "lead", "--password-file", password)
    with serving(demo_url, tmp_path) as address:
        yield address


def drawn(page, key: str) -> dict:
    figure = page.locator(f".st-key-figure_{key}")
    figure.locator("svg [aria-roledescription]:not(g)").first.wait_for(
        state="attached", timeout=60_000
    )
    figure.scroll_into_view_if_needed()
    return figure.evaluate(DRAWN)


def assert_uncut(page, keys: list[str], where: str) -> None:
    for key in keys:
        shown = drawn(page, key)
        cut = [text for text in shown["texts"] if "…" in text]
        assert not cut, f"{where}: chart {key} cuts {cut}"
        for labels in shown["axes"]:
            assert labels, f"{where}: chart {key} has an axis without labels"
            assert len(labels) == len(set(labels)), f"{where}: chart {key} repeats {labels}"


def lead_page(chromium, address: str, lang: str, link: str):
    """The lead's page ``link`` (a key of ``LINKS``) at a laptop's size, in ``lang``."""
    page = chromium.new_page(viewport=LAPTOP)
    log_in(page, address, "boss")
    if lang == "zh":
        page.get_by_text("中文", exact=True).click()
        page.get_by_text("当前用户", exact=False).first.wait_for(timeout=30_000)
    page.get_by_role("link", name=LINKS[lang][link]).click()
    return page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_team_progress_fits_a_laptop_and_an_hour_of_work_is_a_line(
    lead_address,
    lang,
    browser,  # noqa: F811 (the fixture)
):
    page = lead_page(browser, lead_address, lang, "team")
    keys = ["timeline", "completion", "throughput", "distribution", "drift"]
    assert_uncut(page, keys, f"team progress ({lang})")
    # The five candidates both annotators judged were completed within an hour or two:
    # their climb is a line across the chart, not a point.
    line = page.locator(".st-key-figure_completion svg path[aria-roledescription='line mark']")
    widths = line.evaluate_all("paths => paths.map(p => p.getBBox().width)")
    assert max(widths) > 100, widths


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_agreement_fits_a_laptop(
    lead_address,
    lang,
    browser,  # noqa: F811 (the fixture)
):
    page = lead_page(browser, lead_address, lang, "agreement")
    assert_uncut(page, ["alpha", "pairs", "confusion"], f"agreement ({lang})")
    grids = page.locator(".stDataFrame .dvn-scroller")
    grids.first.wait_for(state="attached", timeout=60_000)
    assert grids.count() >= 2  # the pairs' figures, each annotator against the final grades
    overflow = grids.evaluate_all(OVERFLOW)
    assert max(overflow) <= 1, f"a table is wider than the page ({lang}): {overflow}"
