"""A lead's account work from the app (issue 40), on both backends: each action is found in
the database, a password is returned once and only its hash is kept, and every action
checks on the server that the acting account is a lead who may act."""

from __future__ import annotations

import pytest

from annotator import account_admin
from annotator.auth import add_user, verify_password
from pooling.i18n import LocalizedError, Refused
from storage.accounts import find_user
from storage.db import session_scope
from storage.imports import annotator_account


def stored(engine, name):
    with session_scope(engine) as session:
        user = find_user(name, session=session)
        return None if user is None else (user.role, user.disabled, user.password_hash)


def test_a_lead_adds_disables_enables_and_resets_accounts(engine):
    with session_scope(engine) as session:
        boss = add_user("boss", "lead", "secret-password", session=session).id
        ann = add_user("ann", "annotator", "secret-password", session=session).id
    password = account_admin.add_account(engine, " carol ", "annotator", by=boss)
    role, disabled, hashed = stored(engine, "carol")
    assert (role, disabled) == ("annotator", False) and verify_password(password, hashed)
    assert password not in hashed
    account_admin.disable_account(engine, "carol", by=boss)
    assert stored(engine, "carol")[1] is True
    assert ("carol", "annotator", "disabled") in account_admin.account_rows(engine)
    account_admin.enable_account(engine, "carol", by=boss)
    assert stored(engine, "carol")[1] is False
    fresh = account_admin.reset_password(engine, "carol", by=boss)
    assert fresh != password and verify_password(fresh, stored(engine, "carol")[2])
    # An annotator's account may do none of it, whatever the page offered.
    before = stored(engine, "carol")
    for action, args in (
        (account_admin.add_account, ("dave", "lead")),
        (account_admin.disable_account, ("carol",)),
        (account_admin.enable_account, ("carol",)),
        (account_admin.reset_password, ("carol",)),
    ):
        with pytest.raises(Refused):
            action(engine, *args, by=ann)
    assert stored(engine, "dave") is None and stored(engine, "carol") == before
    # No lead disables themselves; a name is taken once.
    with pytest.raises(LocalizedError, match="cannot disable your own account"):
        account_admin.disable_account(engine, "boss", by=boss)
    with pytest.raises(LocalizedError, match="already exists"):
        account_admin.add_account(engine, "carol", "annotator", by=boss)


def test_a_model_account_is_given_no_password(engine):
    # A model judge's account has no password, so no one logs in as it and grades in its
    # name; the page offers only people, and the server refuses whatever it is sent.
    with session_scope(engine) as session:
        boss = add_user("boss", "lead", "secret-password", session=session).id
        annotator_account("llm:m", "model", session=session)
    with pytest.raises(LocalizedError, match="model judge's account"):
        account_admin.reset_password(engine, "llm:m", by=boss)
    assert stored(engine, "llm:m")[2] is None
