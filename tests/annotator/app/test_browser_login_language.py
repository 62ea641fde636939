"""The login page speaks the visitor's language: with no ``QRELS_LANG`` from the deployment,
a browser asking for Chinese gets the Chinese form and one asking for English the English
one, whatever the server's own locale (which says nothing of its visitors); after the
login the page goes on in that language. The order itself (``--lang``, ``QRELS_LANG``, the
browser, the locale) is ``tests/pooling/test_settings.py``'s."""

from __future__ import annotations

import pytest

from tests.browser_support import LAPTOP, browser, database, serving  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def test_the_login_page_speaks_the_browsers_language(
    database,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    tmp_path,
    monkeypatch,
):
    url, add = database
    add("ann1", "annotator")
    monkeypatch.delenv("QRELS_LANG")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    with serving(url, tmp_path) as address:
        chinese = browser.new_context(locale="zh-CN", viewport=LAPTOP).new_page()
        chinese.goto(address)
        chinese.get_by_role("button", name="登录").wait_for(timeout=30_000)
        chinese.get_by_label("用户名").fill("ann1")
        chinese.get_by_role("textbox", name="密码").fill("secret-password")
        chinese.get_by_role("button", name="登录").click()
        chinese.get_by_role("link", name="我的进度").wait_for(timeout=30_000)

        english = browser.new_context(locale="en-GB", viewport=LAPTOP).new_page()
        english.goto(address)
        english.get_by_role("button", name="Log in").wait_for(timeout=30_000)
        assert english.get_by_text("用户名").count() == 0
