"""Where a person lands after logging in, on a laptop's screen (1366×768), in English and
Chinese (issue 40): an annotator on the labeling page, a lead on Team progress."""

from __future__ import annotations

import pytest

from tests.browser_support import LAPTOP, browser, log_in, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

TEAM = {"en": "Team progress", "zh": "团队进度"}
LOGGED_IN = {"en": "Logged in as", "zh": "当前用户"}


def landed(page, lang: str) -> None:
    """Log out and in again: the account's language (``lang``) is the page's."""
    if lang == "zh":
        page.get_by_text("中文", exact=True).click()
        page.get_by_text(LOGGED_IN["zh"], exact=False).first.wait_for(timeout=30_000)
        page.get_by_role("button", name="退出登录").click()
        page.get_by_label("User name").wait_for(timeout=30_000)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_lead_lands_on_team_progress_and_an_annotator_on_labeling(
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    lang,
):
    address, _ = server
    for name, where in (("boss", "team"), ("ann1", "label")):
        page = browser.new_page(viewport=LAPTOP)
        log_in(page, address, name)
        if lang == "zh":
            landed(page, lang)
            log_in_again(page, address, name)
        page.get_by_text(LOGGED_IN[lang], exact=False).first.wait_for(timeout=30_000)
        if where == "team":
            page.locator(".st-key-team_per").wait_for(timeout=30_000)
            assert page.url.rstrip("/").endswith("/team") or page.url.rstrip("/") == address
            current = page.locator('[data-testid="stSidebarNav"] a[aria-current="page"]')
            assert current.inner_text().strip() == TEAM[lang]
            assert page.locator(".st-key-passage").count() == 0
        else:
            page.locator(".st-key-passage").wait_for(timeout=30_000)
            assert page.locator(".st-key-team_per").count() == 0
        page.close()


def log_in_again(page, address: str, name: str) -> None:
    page.get_by_label("User name").fill(name)
    page.get_by_role("textbox", name="Password").fill("secret-password")
    page.get_by_role("button", name="Log in").click()
    page.locator(".st-key-passage").or_(page.locator(".st-key-team_per")).wait_for(timeout=30_000)
