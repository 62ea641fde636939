"""Issue 12, item 4: a throttled or unknown login blocked everyone. ``authenticate`` slept
and ran scrypt inside an open transaction: on SQLite one throttled login held the write
lock (a grade waited 7.8 s), on PostgreSQL pending logins used up the connection pool."""

from __future__ import annotations

import threading

from annotator import auth
from annotator.labeling import assignment
from storage import accounts
from storage.db import session_scope


def user_id(engine, name: str) -> int:
    with session_scope(engine) as session:
        return accounts.get_user(name, session=session).id


def test_a_login_holds_no_connection_while_it_waits_or_hashes(pooled, monkeypatch):
    seen, checked, held = [], auth.verify_password, pooled.pool.checkedout

    def verify(password: str, stored: str | None) -> bool:
        seen.append(("hash", held()))
        return checked(password, stored)

    monkeypatch.setattr(auth, "verify_password", verify)
    for name in ("ann1", "ann1", "ann1", "nobody"):  # the third waits for two failures
        auth.login(pooled, name, "wrong", sleep=lambda s: seen.append(("wait", s, held())))
    assert [step[0] for step in seen] == ["wait", "hash"] * 4
    assert all(step[-1] == 0 for step in seen), seen  # no connection checked out
    assert seen[4] == ("wait", 0.5, 0)


def test_a_grade_is_saved_while_a_throttled_login_waits(pooled):
    waiting, go_on, saved = threading.Event(), threading.Event(), threading.Event()

    def sleep(seconds: float) -> None:
        waiting.set()
        go_on.wait(60)

    for _ in range(2):
        auth.login(pooled, "ann2", "wrong", sleep=lambda s: None)
    guess = threading.Thread(
        target=auth.login, args=(pooled, "ann2", "wrong"), kwargs={"sleep": sleep}
    )
    guess.start()
    assert waiting.wait(30)
    uid = user_id(pooled, "ann1")

    def grade() -> None:
        item = assignment.next_item(pooled, "p", uid)
        assert assignment.submit(pooled, item, uid, grade=2)
        saved.set()

    writer = threading.Thread(target=grade)
    writer.start()
    try:
        # A write lock held by the login would keep the grade waiting (up to SQLite's 30 s
        # busy timeout) until the login answered: it must be saved while the login waits.
        assert saved.wait(20), "the grade waited for a throttled login"
        assert not go_on.is_set() and guess.is_alive()
    finally:
        go_on.set()
        guess.join(60)
        writer.join(60)
    assert len(assignment.judged_items(pooled, "p", uid)) == 1
