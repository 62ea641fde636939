"""A lead draws a sample of queries from the Pools page in Chromium at 1366×768, in English
and Chinese (issue 40), found in the database as ``qrels sample`` records it."""

from __future__ import annotations

import pytest

from annotator.labeling import sampling
from storage.db import make_engine
from tests.browser_support import LAPTOP, browser, lead_on, server, until  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

WORDS = {
    "en": {"title": "Draw a sample of queries", "drawn": "queries drawn"},
    "zh": {"title": "抽取查询样本", "drawn": "抽取"},
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_lead_draws_a_sample_from_the_app(
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    lang,
):
    address, url = server
    words = WORDS[lang]
    page = browser.new_page(viewport=LAPTOP)
    lead_on(page, address, lang, "pools")
    page.get_by_text(words["title"], exact=True).click()
    page.locator(".st-key-sample_size input").fill("1")
    page.locator(".st-key-sample_submit button").click()
    alert = page.locator('[data-testid="stAlert"]').filter(has_text=words["drawn"])
    alert.first.wait_for(timeout=60_000)
    engine = make_engine(url)
    until(lambda: sampling.current(engine, "p") is not None)
    record = sampling.current(engine, "p")
    assert record is not None and [m.query_id for m in record.members] == ["q1"]
    assert record.draws[-1].account == "boss"
