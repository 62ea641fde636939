"""Issue 12, item 1: every write re-checks the acting account on the server. An annotator
disabled in the middle of their work, or a lead who lost the role, is refused at the very
next call, with nothing written; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotator.labeling import assignment
from annotator.labeling.search import ManualSearch
from annotator.pools import judged, pool_building
from annotator.quality import pool_quality
from annotator.releases import releases
from pooling.i18n import Refused
from pooling.run import Run
from storage.db import session_scope
from storage.models import User
from tests.conftest import snapshot


def set_account(engine, user_id: int, **values) -> None:
    with session_scope(engine) as session:
        user = session.get(User, user_id)
        for name, value in values.items():
            setattr(user, name, value)
        session.add(user)


def test_a_disabled_annotator_saves_nothing_from_an_open_tab(engine, pool):
    ann = pool["a1"]
    item = assignment.next_item(engine, "p", ann)  # the tab shows an item
    assert assignment.submit(engine, item, ann, grade=2)
    item = assignment.next_item(engine, "p", ann)
    set_account(engine, ann, disabled=True)  # `qrels user disable a1`, elsewhere
    before = snapshot(engine)
    for action in (
        lambda: assignment.submit(engine, item, ann, grade=3),
        lambda: assignment.submit(engine, item, ann, unsure=True, note="?"),
        lambda: assignment.skip(engine, item, ann),
        lambda: assignment.next_item(engine, "p", ann),
    ):
        with pytest.raises(Refused, match="disabled or cannot log in"):
            action()
    assert snapshot(engine) == before
    set_account(engine, ann, disabled=False)  # enabled again: the next click works
    assert assignment.submit(engine, item, ann, grade=3)


def test_a_key_after_a_logout_in_another_tab_writes_nothing(engine, pool):
    """The labeling page passes its login session: once it is ended (a logout in another
    tab, another person's session named), a key, a skip and the page's next view are
    refused, with nothing written; the account itself may still act."""
    from annotator.auth import account, end_session, start_session
    from annotator.labeling import page_position

    ann = pool["a1"]
    login, others = (
        start_session(engine, account(engine, ann)),
        start_session(engine, account(engine, pool["a2"])),
    )
    view = page_position.view(engine, "p", ann, None, login=login)
    assert assignment.submit(engine, view.item, ann, grade=2, login=login)
    view = page_position.view(engine, "p", ann, None, login=login)
    end_session(engine, login)
    before = snapshot(engine)
    for session_id in (login, others):
        for action, args in (
            (assignment.submit, (engine, view.item, ann)),
            (assignment.skip, (engine, view.item, ann)),
            (page_position.view, (engine, "p", ann, None)),
        ):
            extra = {"grade": 3} if action is assignment.submit else {}
            with pytest.raises(Refused, match="disabled or cannot log in"):
                action(*args, login=session_id, **extra)
    assert snapshot(engine) == before
    assert assignment.submit(engine, view.item, ann, grade=3)  # from the command line's side


def test_an_item_is_skipped_only_by_the_annotator_who_holds_it(engine, pool):
    item = assignment.next_item(engine, "p", pool["a1"])
    before = snapshot(engine)
    with pytest.raises(Refused, match="held by another annotator"):
        assignment.skip(engine, item, pool["a2"])
    assert snapshot(engine) == before


def test_manual_search_adds_nothing_for_a_disabled_account(engine, pool, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    search = ManualSearch(engine, "p")
    chunk = search.search("chunk number 3")[0].chunk_id
    set_account(engine, pool["a1"], disabled=True)
    before = snapshot(engine)
    with pytest.raises(Refused):
        search.add("q0", chunk, pool["a1"])
    assert snapshot(engine) == before


@pytest.fixture
def lead(engine, pool):
    from annotator.auth import add_user

    with session_scope(engine) as session:
        return add_user("boss", "lead", "password-1", session=session).id


def test_a_lead_who_lost_the_role_writes_nothing(engine, pool, lead, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("a1", "a2"):
        item = assignment.next_item(engine, "p", pool[name])
        assert assignment.submit(engine, item, pool[name], grade=1)
    key = (item.query_id, item.chunk_id)
    pool_quality.record_decision(engine, "p", key, 2, "clear", lead, "threshold")  # a lead may
    set_account(engine, lead, role="annotator")  # demoted
    before = snapshot(engine)
    report = judged.coverage({"q0": {"c0": 1}}, Run({"q0": {"c5": 1.0}}), [1])
    for action in (
        lambda: pool_quality.record_decision(engine, "p", key, 3, "no", lead, "threshold"),
        lambda: pool_building.build_pool(engine, "p2", systems="run:r", depth=2, by=lead),
        lambda: pool_building.topup_pool(engine, "p", systems="run:r", depth=2, by=lead),
        lambda: judged.topup(engine, "p", report, "new", 1, by=lead),
        lambda: releases.create_release(
            engine, "v1", "p", tmp_path, allow_unresolved=True, by=lead
        ),
    ):
        with pytest.raises(Refused, match="only a lead may do this"):
            action()
    assert snapshot(engine) == before
    assert not (tmp_path / "v1").exists()
    with session_scope(engine) as session:
        assert session.exec(select(User.role).where(User.id == lead)).one() == "annotator"
