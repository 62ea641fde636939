"""The pool chosen in the sidebar, in Chromium (a user trial of issue 36): a grade key
right after the choice lands in that pool (the focus had stayed in the box's search, where
the key was typed), and the choice holds after a reload, on another page and in a new tab
(it went back to the first pool without a word). A person who chose no pool yet lands in
the first one with work for them, not in a finished one."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotator.labeling import assignment
from storage.accounts import get_user
from storage.db import make_engine, session_scope
from storage.models import Judgment, Pool, User
from tests.browser_support import LAPTOP, browser, choose, log_in, server, settle, until  # noqa: F401 (fixtures)
from tests.conftest import run_qrels, write

pytestmark = pytest.mark.browser

BOX = '[data-testid="stSidebar"] [data-testid="stSelectbox"]'


def graded_in(url: str, name: str) -> list[str]:
    """The pools of ``name``'s judgments, oldest first."""
    with session_scope(make_engine(url)) as session:
        rows = session.exec(
            select(Pool.name)
            .join(Judgment, Judgment.pool_id == Pool.id)
            .join(User, User.id == Judgment.user_id)
            .where(User.name == name)
            .order_by(Judgment.id)
        ).all()
    return list(rows)


def shows_pool(page, name: str) -> None:
    """Wait until the sidebar's pool box shows ``name`` as its choice."""
    box = page.locator(f"{BOX} input").first
    box.wait_for(timeout=30_000)
    until(lambda: box.input_value() == name, seconds=30)


def test_the_chosen_pool_takes_the_keys_and_holds(server, browser):  # noqa: F811
    address, url = server
    run_qrels(url, "pool", "build", "second", "--systems", "run:r", "--depth", "4")
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    log_in(page, address, "ann1")  # lands in p, the first pool, with work in both
    shows_pool(page, "p")
    choose(page, "Pool", "second")
    shows_pool(page, "second")
    settle(page)
    page.keyboard.press("1")  # no click first: the focus is back on the page
    until(lambda: graded_in(url, "ann1") == ["second"])
    page.reload()
    shows_pool(page, "second")
    page.locator('[data-testid="stSidebarNav"] a[href$="/mine"]').click()
    shows_pool(page, "second")
    other = context.new_page()
    other.goto(address)
    shows_pool(other, "second")
    settle(other)
    other.keyboard.press("2")
    until(lambda: graded_in(url, "ann1") == ["second", "second"])


def test_a_person_lands_in_the_first_pool_with_work_for_them(server, browser, tmp_path):  # noqa: F811
    address, url = server
    engine = make_engine(url)
    with session_scope(engine) as session:
        ann2 = get_user("ann2", session=session).id
    while (item := assignment.next_item(engine, "p", ann2)) is not None:  # p done for them
        assignment.submit(engine, item, ann2, grade=0)
    run_qrels(url, "pool", "build", "second", "--systems", "bm25", "--depth", "1")
    run_qrels(url, "import", "run", write(tmp_path, "t.trec", "q1 Q0 tea 1 1 t\n"), "--system", "t")
    run_qrels(url, "pool", "build", "third", "--systems", "run:t", "--depth", "1")
    page = browser.new_page(viewport=LAPTOP)
    log_in(page, address, "ann2")
    # "second" holds only a pair ann2 graded in p (one grade per person); "third" a new one.
    shows_pool(page, "third")
    assert page.locator(".st-key-passage").count() == 1
