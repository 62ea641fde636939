"""A carried pool in a real browser (headless Chromium, the harness of test_browser): the
annotator grades it blind, seeing nothing carried; the lead sees the carry-over on the Pools
page, the mapping classes and how many are re-judged."""

from __future__ import annotations

import functools

import pytest

from tests.annotator.app import test_browser as harness
from tests.annotator.releases.test_carry import DOCS, DOCS_V2, QUERIES, RELEASED
from tests.conftest import run_qrels, run_text, write
from tests.storage.test_imports import jsonl

pytestmark = pytest.mark.browser
# The harness's fixtures, which test_browser defines here (on main they move to the plugin
# tests.browser_support, and then these names are None: no fixture, the plugin's are used).
browser, database = (getattr(harness, name, None) for name in ("browser", "database"))


@pytest.fixture
def carried_server(tmp_path, database):  # noqa: F811  (the harness's fixture)
    """Release v1 of whole documents carried to c30 (30 characters) as pool p30, overlap 1;
    one annotator and one lead, and the app serving the database."""
    url, add_user = database
    qrels = functools.partial(run_qrels, url)
    qrels("import", "corpus", write(tmp_path, "d.jsonl", jsonl(DOCS)), "--corpus-version", "whole")
    qrels("import", "corpus", write(tmp_path, "d2.jsonl", jsonl(DOCS_V2)),
          "--corpus-version", "c30", "--chunk-size", "30")  # fmt: skip
    qrels("import", "queries", write(tmp_path, "q.jsonl", jsonl(QUERIES)), "--query-set", "q")
    qrels("import", "judgments", write(tmp_path, "v1.trec", RELEASED), "--annotator", "old",
          "--corpus-version", "whole")  # fmt: skip
    run = run_text((q, d) for q, _, d, _ in map(str.split, RELEASED.splitlines()))
    qrels("import", "run", write(tmp_path, "r.trec", run), "--system", "r",
          "--corpus-version", "whole")  # fmt: skip
    qrels("pool", "build", "p", "--systems", "run:r", "--depth", "10", "--overlap", "1",
          "--corpus-version", "whole")  # fmt: skip
    qrels("release", "create", "v1", "--pool", "p", "--out", tmp_path)
    qrels("carry", "--release", tmp_path / "v1", "--to-corpus-version", "c30", "--pool", "p30",
          "--overlap", "1")  # fmt: skip
    add_user("ann1", "annotator")
    add_user("boss", "lead")
    with harness.serving(url, tmp_path) as address:
        yield address, url


def choose_pool(page, name: str) -> None:
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').click()
    page.get_by_role("option", name=name).click()
    page.mouse.click(900, 20)  # the keys go to the page, not the select


def test_a_carried_pool_is_graded_blind_and_the_lead_sees_the_carry_over(
    carried_server,
    browser,  # noqa: F811
):
    address, url = carried_server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    harness.log_in(page, address, "ann1")  # pool p is done: nothing left there
    choose_pool(page, "p30")
    page.locator(".st-key-passage").wait_for(timeout=30_000)
    page.locator(".st-key-grade_3 button").first.wait_for(timeout=20_000)
    page.wait_for_timeout(400)
    seen = []
    while not page.get_by_text("Nothing left for you").count():
        seen.append(harness.passage(page))
        body = page.locator("body").inner_text().lower()
        for word in ("carried", "same text", "split", "released", "whole", "mapping"):
            assert word not in body, word
        harness.press_until_saved(page, url, "ann1", "2" if "Brake" in seen[-1] else "0")
    assert len(seen) == 11

    lead = browser.new_page(viewport={"width": 1400, "height": 1400})
    harness.log_in(lead, address, "boss")
    lead.get_by_role("link", name="Pools").click()
    choose_pool(lead, "p30")
    lead.get_by_text("Carried across a chunking change").wait_for(timeout=30_000)
    lead.get_by_text("Carried from release v1 (corpus version whole, chunking none").wait_for()
    # The grids are drawn on a canvas; their cells are also in a table for screen readers.
    tables = lead.locator(".st-key-carried .stDataFrame")
    classes = tables.nth(0).locator("tr")
    classes.first.wait_for(state="attached", timeout=20_000)
    rows = [row.locator("td").all_text_contents() for row in classes.all()]
    table = {cells[0]: cells[1:] for cells in rows if cells}
    assert table["same text"] == ["3", "3", "3"]  # judged in v1, candidates, re-judged
    assert table["split"] == ["2", "8", "8"]
    assert table["not mapped: document changed"] == ["1", "0", "0"]
    documents = tables.nth(1).locator("td").all_text_contents()
    assert documents == ["not mapped: document changed", "b", "not mapped: document missing", "d"]
