"""A lead builds a pool and tops it up in Chromium at 1366×768, in English and Chinese
(issue 40), each found in the database, and an annotator then gets its items."""

from __future__ import annotations

import pytest

from annotator.labeling import assignment
from storage.accounts import get_user
from storage.db import make_engine, session_scope
from storage.pool_records import find_pool, pool_report
from tests.browser_support import LAPTOP, browser, choose, lead_on, server, until  # noqa: F401 (fixtures)

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
    page.get_by_text(words["topup"], exact=True).click()
    page.locator(".st-key-topup_pool_systems input").fill("run:r")
    page.locator(".st-key-topup_pool_submit button").click()
    alert = page.locator('[data-testid="stAlert"]').filter(has_text=words["topped"])
    alert.first.wait_for(timeout=60_000)
    until(lambda: (size(url) or 0) > (built or 0))
    engine = make_engine(url)
    with session_scope(engine) as session:
        ann = get_user("ann1", session=session).id
    assert assignment.next_item(engine, "fresh", ann) is not None
    assert built == 1
