"""Issue 12, item 5: the throttle could be bypassed and accounts enumerated. On PostgreSQL
30 parallel wrong guesses left the failure counter at 3 (lost updates), and the answer's
timing told unknown (0.67 s), known (0.15 s) and disabled (0.002 s) accounts apart."""

from __future__ import annotations

import hashlib

from sqlmodel import select

from annotator import auth
from storage import accounts
from storage.db import session_scope
from storage.models import LoginThrottle
from tests.conftest import together


def test_thirty_parallel_guesses_are_each_counted_and_slowed(pooled, monkeypatch):
    # The throttle, not scrypt, is under test: 30 hashes at once would take 1 GiB.
    monkeypatch.setattr(auth, "verify_password", lambda password, stored: False)
    waits = []
    together(lambda i: auth.login(pooled, "ann1", f"guess-{i}", sleep=waits.append), range(30))
    with session_scope(pooled) as session:
        counted = session.exec(select(LoginThrottle.failures)).all()
    assert counted == [30]
    # Each guess waited for the guesses counted before it, not for a count read by all.
    assert sorted(waits) == sorted(auth.login_delay(n) for n in range(30))
    waits.clear()
    monkeypatch.undo()
    assert auth.login(pooled, "ann1", "password-1", sleep=waits.append) is not None
    assert waits == [auth.MAX_DELAY_SECONDS]  # even the right password waits its turn


def test_unknown_disabled_passwordless_and_known_names_are_answered_alike(pooled, monkeypatch):
    with session_scope(pooled) as session:
        accounts.disable_user("ann2", session=session)
        accounts.create_user("imported", "annotator", None, session=session)
    auth._dummy_hash()  # made once per process, before any login is timed
    real_scrypt, hashed = hashlib.scrypt, []

    def scrypt(*args, **kwargs):
        hashed.append(1)
        return real_scrypt(*args, **kwargs)

    monkeypatch.setattr(hashlib, "scrypt", scrypt)
    answers = {}
    for name in ("ann1", "ann2", "imported", "nobody"):
        waits, hashed[:] = [], []
        results = [auth.login(pooled, name, "password-1x", sleep=waits.append) for _ in range(4)]
        answers[name] = (results, waits, len(hashed))
    expected = ([None] * 4, [0, 0, 0.5, 1], 4)  # the same waits, one scrypt each time
    assert answers == dict.fromkeys(("ann1", "ann2", "imported", "nobody"), expected)
    with session_scope(pooled) as session:  # names are kept only as their sha256
        stored = session.exec(select(LoginThrottle.name_sha256)).all()
    assert "nobody" not in stored and len(stored) == 4
