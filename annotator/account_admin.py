"""A lead's account work in the app: add an account, disable or re-enable one, give one a
new password. Each checks, in its own transaction, that the acting account is a lead who
may act (``storage.accounts.acting``); a password is drawn here and returned once, for the
page to show, and only its hash is stored. ``qrels user`` does the same from the command
line, where the database URL is the right."""

from __future__ import annotations

import secrets

from sqlalchemy.engine import Engine

from annotator.auth import add_user, set_password
from pooling.i18n import LocalizedError
from storage import accounts
from storage.db import session_scope


def new_password() -> str:
    """A password to hand over once: 16 characters drawn by ``secrets``."""
    return secrets.token_urlsafe(12)


def add_account(engine: Engine, name: str, role: str, *, by: int) -> str:
    """Add a login account ``name`` with ``role``; returns its password (shown once).
    Raises ``Refused`` unless ``by`` is a lead who may act, ``LocalizedError`` for a taken
    or unfit name or an unknown role."""
    password = new_password()
    with session_scope(engine) as session:
        accounts.acting(by, "lead", session=session)
        add_user(name.strip(), role, password, session=session)
    return password


def disable_account(engine: Engine, name: str, *, by: int) -> None:
    """Stop ``name`` from logging in and end their sessions; a lead cannot disable
    themselves (no one might be left to enable them)."""
    with session_scope(engine) as session:
        lead = accounts.acting(by, "lead", session=session)
        if lead.name == name:
            raise LocalizedError("account_not_yourself", name=name)
        accounts.disable_user(name, session=session)


def enable_account(engine: Engine, name: str, *, by: int) -> None:
    """Let a disabled ``name`` log in again, with the password they had."""
    with session_scope(engine) as session:
        accounts.acting(by, "lead", session=session)
        accounts.enable_user(name, session=session)


def reset_password(engine: Engine, name: str, *, by: int) -> str:
    """Give ``name`` a new password, returned once; every session of theirs ends."""
    password = new_password()
    with session_scope(engine) as session:
        accounts.acting(by, "lead", session=session)
        set_password(name, password, session=session)
    return password


def account_rows(engine: Engine) -> list[tuple[str, str, str]]:
    """Every login account: name, role and state (``active``, ``disabled``, or
    ``no_login`` for a model judge's account), as ``qrels user list`` gives them."""
    from storage.db import snapshot_scope

    with snapshot_scope(engine) as session:
        users = accounts.list_users(session=session)
    return [
        (
            user.name,
            user.role,
            "no_login"
            if user.password_hash is None
            else ("disabled" if user.disabled else "active"),
        )
        for user in users
    ]
