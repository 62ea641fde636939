"""Accounts: salted scrypt password hashes, logins slowed down after failures.

Throttling state lives in the database (``login_throttle``, per name tried), so it holds
across all app processes serving one database. A login holds no connection and no
transaction while it waits or hashes: it counts the attempt in one short transaction,
waits, hashes, and clears the count in another only when it succeeded. Unknown names,
disabled and passwordless accounts wait and hash exactly as a wrong password does (against
a dummy hash), so the answer's timing tells nothing about which names exist.
No Streamlit in here.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from pooling.i18n import LocalizedError
from storage import accounts
from storage.db import session_scope, snapshot_scope
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


def add_user(name: str, role: str, password: str, *, session: Session) -> User:
    """A new login account with a hashed password; raises ``ValueError`` for a password
    shorter than 8 characters, a taken name or an unknown role."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise LocalizedError("password_short", length=MIN_PASSWORD_LENGTH)
    return accounts.create_user(name, role, hash_password(password), session=session)


@dataclass(frozen=True)
class Account:
    """A logged-in person as the app knows them; ``language`` and ``pool`` the ones they
    chose last (None until they choose)."""

    id: int
    name: str
    role: str
    language: str | None = None
    pool: str | None = None


def _account(user: User | None) -> Account | None:
    if user is None or user.disabled or user.password_hash is None:
        return None
    return Account(user.id, user.name, user.role, user.language, user.pool)


@functools.cache
def _dummy_hash() -> str:
    """What a password is checked against when the name has none to check: unknown names,
    disabled and passwordless accounts cost one scrypt like any other login."""
    return hash_password(secrets.token_urlsafe(16))


def login(
    engine: Engine, name: str, password: str, *, sleep: Callable[[float], None] = time.sleep
) -> Account | None:
    """The enabled account with this name and password, or None. Every attempt on a name
    counts as a failure until it succeeds and makes the answer to the next ones on that
    name come later (``login_delay``; failures older than an hour are forgotten), for
    unknown names as for known ones. No connection is held while waiting or hashing."""
    name, dummy = name.strip(), _dummy_hash()
    now = utcnow()
    with session_scope(engine) as session:
        earlier = accounts.count_login_attempt(
            name, session=session, now=now, forget_before=now - FORGET_FAILURES
        )
        # PostgreSQL refuses NUL in text; no account's name holds one.
        user = None if "\x00" in name else accounts.find_user(name, session=session)
        found = _account(user)
        stored = user.password_hash if user is not None and found is not None else None
    sleep(login_delay(earlier))
    if not verify_password(password, stored or dummy) or found is None:
        return None
    with session_scope(engine) as session:
        accounts.clear_login_failures(
            name, session=session, forget_before=utcnow() - FORGET_FAILURES
        )
    return found


def set_password(name: str, password: str, *, session: Session) -> User:
    """A new password for ``name``; every session of theirs ends (see ``start_session``).
    Raises ``LocalizedError`` for a password shorter than 8 characters or an unknown name."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise LocalizedError("password_short", length=MIN_PASSWORD_LENGTH)
    return accounts.set_password_hash(name, hash_password(password), session=session, now=utcnow())


# A login lasts a working day: a reload or a dropped connection within it finds the same
# person logged in; past it, they log in again.
SESSION_LIFETIME = timedelta(hours=12)


def start_session(engine: Engine, user: Account) -> str:
    """A new server-side session for ``user`` after a login: its random id, which the
    browser keeps in a cookie (the database keeps only its hash)."""
    session_id, now = secrets.token_urlsafe(32), utcnow()
    with session_scope(engine) as session:
        accounts.open_session(
            user.id, session_id, session=session, now=now, expires_at=now + SESSION_LIFETIME
        )
    return session_id


def session_account(engine: Engine, session_id: str) -> Account | None:
    """The account of a live session: None when the session expired, was ended (logout,
    the account disabled, its password changed) or never existed."""
    if not session_id or "\x00" in session_id:  # PostgreSQL refuses NUL in text
        return None
    # Read in a snapshot: every render asks, and on SQLite a ``session_scope`` would take
    # the write lock that annotators' keys wait on.
    with snapshot_scope(engine) as session:
        return _account(accounts.session_user(session_id, session=session, now=utcnow()))


def end_session(engine: Engine, session_id: str) -> None:
    """Log out: the session's cookie is refused from now on."""
    with session_scope(engine) as session:
        accounts.revoke_session(session_id, session=session, now=utcnow())


def remember_language(engine: Engine, user_id: int, language: str) -> None:
    """Keep ``language`` as ``user_id``'s choice for their next login."""
    with session_scope(engine) as session:
        accounts.set_language(user_id, language, session=session)


def remember_pool(engine: Engine, user_id: int, pool: str) -> None:
    """Keep ``pool`` as the one ``user_id`` works in: a reload, a new tab and another page
    open it again."""
    with session_scope(engine) as session:
        accounts.set_pool(user_id, pool, session=session)


def account(engine: Engine, user_id: int) -> Account | None:
    """The account ``user_id`` as the database has it now: None once it is disabled or
    gone, so that a change takes effect at the next click."""
    with snapshot_scope(engine) as session:  # never the write lock (``session_account``)
        return _account(session.get(User, user_id))
