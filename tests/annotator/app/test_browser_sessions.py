"""Issue 20 in headless Chromium: a reload keeps the annotator logged in, on the same item
and in the language their account chose; logging out or disabling the account ends the
session for good; the grade buttons show their labels in full at 1366 px; revising an
earlier grade says what was saved."""

from __future__ import annotations

import time

import pytest
from sqlmodel import select

from storage.db import make_engine, session_scope
from storage.models import LoginSession, User
from tests.browser_support import judgments, log_in, passage, press_until_saved, settle
from tests.conftest import run_qrels

pytestmark = pytest.mark.browser

LABELS = {
    "en": ["0 · Irrelevant", "1 · On topic", "2 · Key evidence", "3 · Answers"],
    "zh": ["0 · 不相关", "1 · 相关但无据", "2 · 关键证据", "3 · 直接回答"],
}
# Each grade button's label: its text and whether it fits its button (nothing cut off).
BUTTON_LABELS = """() => [0, 1, 2, 3].map((grade) => {
  const label = document.querySelector(`.st-key-grade_${grade} button p`);
  const button = label.closest("button");
  return [label.innerText, label.scrollWidth <= label.clientWidth + 1
          && label.scrollHeight <= button.clientHeight + 1
          && button.scrollWidth <= button.clientWidth + 1];
})"""
# Every other button of the page whose label is cut (wider or taller than its button).
CUT_BUTTONS = """() => [...document.querySelectorAll("button p")].filter((label) => {
  const button = label.closest("button");
  return label.scrollWidth > label.clientWidth + 1 || button.scrollWidth > button.clientWidth + 1
      || label.scrollHeight > button.clientHeight + 1;
}).map((label) => label.innerText)"""


def session_cookie(context) -> dict:
    (cookie,) = [c for c in context.cookies() if c["name"] == "qrels_session"]
    return cookie


def sessions(url: str, name: str) -> list[LoginSession]:
    with session_scope(make_engine(url)) as session:
        return list(
            session.exec(
                select(LoginSession)
                .join(User, User.id == LoginSession.user_id)
                .where(User.name == name)
            )
        )


def labels_shown(page, language: str) -> list[tuple[str, bool]]:
    """The grade buttons' labels once they are all in ``language`` (the page redraws them
    one by one after a switch), and whether each fits."""
    settle(page)
    for _ in range(40):
        shown = [tuple(label) for label in page.evaluate(BUTTON_LABELS)]
        if [text for text, _ in shown] == LABELS[language]:
            break
        time.sleep(0.5)
    return shown


def wait_for_login_form(page) -> None:
    page.get_by_role("button", name="Log in").wait_for(timeout=20_000)
    assert page.locator(".st-key-passage").count() == 0


def test_a_reload_keeps_the_login_the_item_and_the_language(server, browser):
    address, url = server
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    log_in(page, address, "ann1")
    cookie = session_cookie(context)
    # Only scripts could set it (no HttpOnly); never sent by other sites; plain HTTP here.
    assert cookie["sameSite"] == "Strict" and not cookie["secure"]
    assert cookie["value"] not in page.url
    assert [(s.revoked_at, s.id_sha256 != cookie["value"]) for s in sessions(url, "ann1")] == [
        (None, True)  # the database keeps only the id's hash
    ]
    assert labels_shown(page, "en") == [(label, True) for label in LABELS["en"]]
    assert page.evaluate(CUT_BUTTONS) == []

    # A reload, mid-item: the same item, no login form.
    shown = passage(page)
    page.reload()
    page.locator(".st-key-passage").wait_for(timeout=30_000)
    settle(page)
    assert passage(page) == shown
    page.mouse.click(900, 20)
    press_until_saved(page, url, "ann1", "2")
    first = judgments(url, "ann1")[0]

    # Revising the earlier grade says what was saved, then the current item is back.
    page.keyboard.press("b")
    page.get_by_text("Reviewing an earlier item (1 of 1)").wait_for(timeout=20_000)
    settle(page)
    press_until_saved(page, url, "ann1", "3")
    page.get_by_text("Saved 3 on earlier item 1, replacing 2").wait_for(timeout=20_000)
    assert [row[1:] for row in judgments(url, "ann1") if row[0] == first[0]] == [
        (2, "", 1),
        (3, "", 2),
    ]

    # Chinese, chosen once, is the account's: after a reload and after a new login.
    page.get_by_text("中文", exact=True).click()
    page.get_by_text("退出登录").wait_for(timeout=20_000)
    assert labels_shown(page, "zh") == [(label, True) for label in LABELS["zh"]]
    assert page.evaluate(CUT_BUTTONS) == []  # unsure, skip, back, "back to the current item"
    page.reload()
    page.get_by_text("退出登录").wait_for(timeout=30_000)

    # Logging out ends the session: the old cookie, replayed, finds the login form.
    page.get_by_role("button", name="退出登录").click()
    wait_for_login_form(page)
    assert [s.revoked_at is not None for s in sessions(url, "ann1")] == [True]
    assert not [c for c in context.cookies() if c["name"] == "qrels_session" and c["value"]]
    replay = browser.new_context(viewport={"width": 1366, "height": 900})
    replay.add_cookies(
        [{"name": cookie["name"], "value": cookie["value"], "url": address, "sameSite": "Strict"}]
    )
    stolen = replay.new_page()
    stolen.goto(address)
    wait_for_login_form(stolen)

    log_in(page, address, "ann1")
    page.get_by_text("退出登录").wait_for(timeout=20_000)
    context.close()
    replay.close()


def test_disabling_the_account_ends_its_session_at_the_next_key(server, browser):
    address, url = server
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    log_in(page, address, "ann1")
    press_until_saved(page, url, "ann1", "1")
    saved = judgments(url, "ann1")

    run_qrels(url, "user", "disable", "ann1")
    assert [s.revoked_at is not None for s in sessions(url, "ann1")] == [True]
    settle(page)
    for _ in range(3):  # a key pressed while the page still redraws is stopped there
        page.keyboard.press("2")
        time.sleep(1.5)
        if page.get_by_role("button", name="Log in").count():
            break
    wait_for_login_form(page)
    assert judgments(url, "ann1") == saved
    page.reload()  # the cookie finds no session any more
    wait_for_login_form(page)
    context.close()
