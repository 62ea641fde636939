"""Accounts: scrypt hashes, throttled logins, disabled accounts, and the user commands."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlmodel import select

from annotator.auth import (
    SESSION_LIFETIME,
    add_user,
    end_session,
    hash_password,
    login,
    login_delay,
    remember_language,
    session_account,
    start_session,
    verify_password,
)
from annotator.cli import cli
from pooling.i18n import Refused
from storage import accounts
from storage.db import session_scope
from storage.models import LoginSession, utcnow
from tests.conftest import write


def test_hashes_are_salted_scrypt_and_verify():
    first, second = hash_password("correct horse"), hash_password("correct horse")
    assert first.startswith("scrypt$32768$8$1$") and first != second
    assert verify_password("correct horse", first) and verify_password("correct horse", second)
    assert not verify_password("wrong horse", first)
    assert not verify_password("x", None) and not verify_password("x", "garbage")


def test_delays_grow_and_are_capped():
    assert [login_delay(n) for n in range(8)] == [0, 0, 0.5, 1, 2, 4, 8, 8]


def test_failed_logins_are_slowed_down_and_success_resets(engine):
    waits = []
    with session_scope(engine) as session:
        add_user("ann", "annotator", "password-1", session=session)
    for _ in range(4):
        assert login(engine, "ann", "nope", sleep=waits.append) is None
    user = login(engine, "ann", "password-1", sleep=waits.append)
    assert user is not None and user.name == "ann"
    assert login(engine, " ann ", "password-1", sleep=waits.append)
    assert waits == [0, 0, 0.5, 1, 2, 0]  # the fifth attempt waited for four failures


def test_unknown_names_cost_as_much_as_wrong_passwords(engine):
    """Unknown names used to wait 0.5 s where a known account waited nothing, which told
    them apart; now a name is a name: the same waits, and a hash checked every time."""
    with session_scope(engine) as session:
        add_user("ann", "annotator", "password-1", session=session)
    waits = {name: [] for name in ("ann", "nobody")}
    for _ in range(3):
        for name, waited in waits.items():
            assert login(engine, name, "wrong-password", sleep=waited.append) is None
    assert waits == {"ann": [0, 0, 0.5], "nobody": [0, 0, 0.5]}


def test_disabled_and_passwordless_accounts_cannot_log_in(engine, tmp_path):
    with session_scope(engine) as session:
        add_user("ann", "annotator", "password-1", session=session)
        accounts.disable_user("ann", session=session)
        accounts.create_user("imported", "annotator", None, session=session)
    assert login(engine, "ann", "password-1", sleep=lambda s: None) is None
    assert login(engine, "imported", "", sleep=lambda s: None) is None


@pytest.mark.parametrize(
    ("name", "role", "password", "message"),
    [
        ("ann", "annotator", "short", "the password must have at least 8 characters"),
        ("ann", "boss", "password-1", "'boss' is not one of: annotator, lead"),
        (" ", "lead", "password-1", "the account name must not be empty"),
    ],
)
def test_bad_accounts_are_refused(engine, name, role, password, message, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    with pytest.raises(ValueError, match=message), session_scope(engine) as session:
        add_user(name, role, password, session=session)


def test_user_commands(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    runner = CliRunner()

    def qrels(*args, expect=0, input=None):
        result = runner.invoke(cli, ["--db", db_url, *map(str, args)], input=input)
        assert result.exit_code == expect, result.output + result.stderr
        return result

    qrels("init")
    password = write(tmp_path, "pw.txt", "a-good-password\nignored\n")
    assert (
        "added lead 'boss'"
        in qrels("user", "add", "boss", "--role", "lead", "--password-file", password).output
    )
    out = qrels(
        "user", "add", "ann", "--role", "annotator", input="another-pass\nanother-pass\n"
    ).output
    assert "added annotator 'ann'" in out
    result = qrels(
        "user", "add", "ann", "--role", "annotator", "--password-file", password, expect=2
    )
    assert result.stderr == "error: user 'ann' already exists\n"
    assert qrels("user", "list").output.splitlines() == [
        "ann\tannotator\thuman\tactive",
        "boss\tlead\thuman\tactive",
    ]
    assert "disabled 'ann'" in qrels("user", "disable", "ann").output
    assert "ann\tannotator\thuman\tdisabled" in qrels("user", "list").output
    assert qrels("user", "disable", "zed", expect=2).stderr == "error: user 'zed' does not exist\n"
    from storage.db import make_engine

    with session_scope(make_engine(db_url)) as session:
        stored = accounts.get_user("boss", session=session).password_hash
    assert "a-good-password" not in stored and verify_password("a-good-password", stored)


# -- login sessions (issue 20) -------------------------------------------------------------


def test_a_session_is_found_by_its_id_until_logout(engine):
    with session_scope(engine) as session:
        add_user("ann", "annotator", "password-1", session=session)
    ann = login(engine, "ann", "password-1", sleep=lambda s: None)
    first, second = start_session(engine, ann), start_session(engine, ann)  # two browsers
    assert first != second and len(first) >= 40
    assert session_account(engine, first) == ann == session_account(engine, second)
    for forged in ("", "nope", first[:-1], "\x00"):
        assert session_account(engine, forged) is None
    end_session(engine, first)
    assert session_account(engine, first) is None  # the old cookie is refused
    assert session_account(engine, second) == ann  # the other browser stays logged in
    with session_scope(engine) as session:
        stored = [s.id_sha256 for s in session.exec(select(LoginSession))]
    assert first not in stored and second not in stored  # only hashes are kept


def test_sessions_expire(engine):
    with session_scope(engine) as session:
        user_id = add_user("ann", "annotator", "password-1", session=session).id
        now = utcnow()
        accounts.open_session(
            user_id, "old-one", session=session, now=now - SESSION_LIFETIME, expires_at=now
        )
    assert session_account(engine, "old-one") is None


def test_disabling_or_a_new_password_ends_every_session(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    from storage.db import make_engine, upgrade

    engine = make_engine(db_url)
    upgrade(engine)
    with session_scope(engine) as session:
        add_user("ann", "annotator", "password-1", session=session)
        add_user("bob", "annotator", "password-2", session=session)
    ann = login(engine, "ann", "password-1", sleep=lambda s: None)
    bob = login(engine, "bob", "password-2", sleep=lambda s: None)
    anns, bobs = start_session(engine, ann), start_session(engine, bob)
    runner = CliRunner()
    new = write(tmp_path, "pw.txt", "a-new-password\n")
    result = runner.invoke(
        cli, ["--db", db_url, "user", "password", "ann", "--password-file", str(new)]
    )
    assert result.exit_code == 0 and "their sessions have ended" in result.output
    assert session_account(engine, anns) is None and session_account(engine, bobs) == bob
    assert login(engine, "ann", "password-1", sleep=lambda s: None) is None
    again = start_session(engine, login(engine, "ann", "a-new-password", sleep=lambda s: None))
    assert session_account(engine, again).name == "ann"
    result = runner.invoke(cli, ["--db", db_url, "user", "disable", "ann"])
    assert result.exit_code == 0
    assert session_account(engine, again) is None
    with session_scope(engine) as session:
        revoked = session.exec(select(LoginSession.revoked_at)).all()
    assert sum(r is not None for r in revoked) == 2  # ann's two, not bob's
    short = write(tmp_path, "short.txt", "short\n")
    result = runner.invoke(
        cli, ["--db", db_url, "user", "password", "bob", "--password-file", str(short)]
    )
    assert result.exit_code == 2 and session_account(engine, bobs) == bob
    engine.dispose()


def test_the_language_is_kept_per_account(engine, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    with session_scope(engine) as session:
        add_user("ann", "annotator", "password-1", session=session)
    ann = login(engine, "ann", "password-1", sleep=lambda s: None)
    assert ann.language is None
    remember_language(engine, ann.id, "zh")
    assert login(engine, "ann", "password-1", sleep=lambda s: None).language == "zh"
    assert session_account(engine, start_session(engine, ann)).language == "zh"
    with pytest.raises(ValueError, match="'fr' is not one of: en, zh"):
        remember_language(engine, ann.id, "fr")
    with session_scope(engine) as session:
        accounts.disable_user("ann", session=session)
    with pytest.raises(Refused):
        remember_language(engine, ann.id, "en")
