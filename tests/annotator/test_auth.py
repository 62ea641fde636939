"""Accounts: scrypt hashes, throttled logins, disabled accounts, and the user commands."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from annotator.auth import add_user, hash_password, login, login_delay, verify_password
from annotator.cli import cli
from storage import accounts
from storage.db import session_scope
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
