"""Accounts: salted scrypt password hashes, logins slowed down after failures.

Throttling state lives in the database (``failed_logins``, ``last_failed_login``), so it
holds across all app processes serving one database. No Streamlit in here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from pooling.i18n import LocalizedError
from storage import accounts
from storage.db import session_scope
from storage.models import User, utcnow

# scrypt's cost: 2**15 x 8 x 1 needs 32 MiB and ~0.1 s, the range OWASP recommends.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1
MAX_DELAY_SECONDS = 8.0
MIN_PASSWORD_LENGTH = 8
FORGET_FAILURES = timedelta(hours=1)


def hash_password(password: str) -> str:
    """A salted scrypt hash: ``scrypt$n$r$p$salt$hash`` (base64)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, maxmem=2**26
    )
    encode = base64.b64encode
    return (
        f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"
    )


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches the stored hash; constant-time comparison."""
    if not stored:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=2**26,
            dklen=len(expected),
        )
    except ValueError:
        return False
    return scheme == "scrypt" and hmac.compare_digest(actual, expected)


def login_delay(failures: int) -> float:
    """Seconds to wait before answering after ``failures`` recent failed logins:
    none for the first two, then 0.5 s doubling up to 8 s."""
    if failures < 2:
        return 0.0
    return min(MAX_DELAY_SECONDS, 0.5 * 2 ** (failures - 2))


def authenticate(name: str, password: str, *, session: Session, sleep=time.sleep) -> User | None:
    """The enabled user with this name and password, or None. Each failure on an account
    makes the answer to the next attempt on it come later (failures older than an hour are
    forgotten); unknown names cost as much as wrong passwords."""
    user = accounts.find_user(name, session=session)
    if user is None:
        sleep(login_delay(2))
        hash_password(password)  # as slow as checking a real one
        return None
    last = user.last_failed_login
    if last is not None and utcnow() - _utc(last) > FORGET_FAILURES:
        user.failed_logins = 0
    sleep(login_delay(user.failed_logins))
    succeeded = not user.disabled and verify_password(password, user.password_hash)
    if not succeeded or user.failed_logins:
        accounts.record_login(user, succeeded, session=session)
    return user if succeeded else None


def _utc(moment: datetime) -> datetime:
    # SQLite gives back naive datetimes for timezone-aware columns; they were written in UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def add_user(name: str, role: str, password: str, *, session: Session) -> User:
    """A new login account with a hashed password; raises ``ValueError`` for a password
    shorter than 8 characters, a taken name or an unknown role."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise LocalizedError("password_short", length=MIN_PASSWORD_LENGTH)
    return accounts.create_user(name, role, hash_password(password), session=session)


@dataclass(frozen=True)
class Account:
    """A logged-in person as the app knows them."""

    id: int
    name: str
    role: str


def _account(user: User | None) -> Account | None:
    if user is None or user.disabled or user.password_hash is None:
        return None
    return Account(user.id, user.name, user.role)


def login(engine: Engine, name: str, password: str) -> Account | None:
    """The account for this name and password, or None (see ``authenticate``)."""
    with session_scope(engine) as session:
        return _account(authenticate(name.strip(), password, session=session))


def account(engine: Engine, user_id: int) -> Account | None:
    """The account ``user_id`` as the database has it now: None once it is disabled or
    gone, so that a change takes effect at the next click."""
    with session_scope(engine) as session:
        return _account(session.get(User, user_id))
