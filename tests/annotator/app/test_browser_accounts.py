"""A lead's accounts in Chromium at 1366×768, in English and Chinese (issue 40): add one,
disable it, enable it again, give it a new password, each found in the database, each
password shown once and working."""

from __future__ import annotations

import re

import pytest

from annotator.auth import verify_password
from storage.accounts import find_user
from storage.db import make_engine, session_scope
from tests.browser_support import (  # noqa: F401 (fixtures)
    LAPTOP,
    browser,
    choose,
    lead_on,
    server,
    until,
)

pytestmark = pytest.mark.browser

WORDS = {
    "en": {"page": "Accounts", "account": "Account", "added": "Added carol. Password",
           "reset": "New password for carol"},
    "zh": {"page": "账号", "account": "账号", "added": "已添加 carol。密码",
           "reset": "carol 的新密码"},
}  # fmt: skip


def carol(url: str):
    with session_scope(make_engine(url)) as session:
        user = find_user("carol", session=session)
        return None if user is None else (user.disabled, user.password_hash)


def password_in(page, words: str) -> str:
    alert = page.locator('[data-testid="stAlert"]').filter(has_text=words)
    alert.first.wait_for(timeout=30_000)
    return re.split(r"[:：]\s*", alert.first.inner_text().strip())[-1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_lead_manages_accounts_from_the_app(
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    lang,
):
    address, url = server
    words = WORDS[lang]
    page = browser.new_page(viewport=LAPTOP)
    lead_on(page, address, lang, "accounts")
    page.locator(".st-key-account_name input").fill("carol")
    page.locator('[data-testid="stFormSubmitButton"] button').click()
    first = password_in(page, words["added"])
    until(lambda: carol(url) is not None)
    assert verify_password(first, carol(url)[1])
    choose(page, words["account"], "carol")
    page.locator(".st-key-account_disable button").click()
    until(lambda: carol(url)[0] is True)
    page.locator(".st-key-account_enable button").click()
    until(lambda: carol(url)[0] is False)
    page.locator(".st-key-account_reset button").click()
    second = password_in(page, words["reset"])
    until(lambda: verify_password(second, carol(url)[1]))
    assert second != first
