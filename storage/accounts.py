"""Login accounts in the database, and the count of failed logins per name tried.
Password hashing and the login policy are in ``annotator.auth``; this module only reads
and writes."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import overload

from sqlalchemy import case, delete, or_, update
from sqlmodel import Session, select

from pooling.i18n import LANGUAGES, LocalizedError, NotFound, Refused
from pooling.readers import typed_name
from storage.db import upsert_insert
from storage.models import ROLES, LoginSession, LoginThrottle, User, utcnow


@overload
def acting(
    user_id: int, role: str | None = None, *, session: Session, login: str | None = None
) -> User: ...
@overload
def acting(
    user_id: None, role: str | None = None, *, session: Session, login: str | None = None
) -> None: ...
@overload
def acting(
    user_id: int | None, role: str | None = None, *, session: Session, login: str | None = None
) -> User | None: ...


def acting(
    user_id: int | None, role: str | None = None, *, session: Session, login: str | None = None
) -> User | None:
    """The account ``user_id`` as the database has it in this transaction, if it may act
    (enabled, able to log in, and a lead when ``role`` is ``"lead"``); ``Refused``
    otherwise. ``None`` stands for the command line: whoever holds the database URL holds
    every right there is, so there is nothing to check. Every domain function that writes
    calls this first, so that disabling an account or changing a role takes effect at the
    account's next click, in every app process. With ``login`` (a login session's id) that
    session must be the account's and live too, checked by the same statement: a page that
    reruns alone (the labeling page's after a key) asks nothing else."""
    if user_id is None:
        return None
    if login is None:
        user = session.get(User, user_id)
    else:
        user = session_user(login, session=session, now=utcnow())
        user = user if user is not None and user.id == user_id else None
    if user is None or user.disabled or user.password_hash is None:
        raise Refused("account_cannot_act")
    if role is not None:
        check_role(user, role)
    return user


def check_role(user: User, role: str) -> None:
    """Raise ``Refused`` unless ``user`` has ``role``: the one role check of every write."""
    if user.role != role:
        raise Refused("role_needed", role=f"@role_{role}", name=user.name)


def find_user(name: str, *, session: Session) -> User | None:
    return session.exec(select(User).where(User.name == name)).first()


def get_user(name: str, *, session: Session) -> User:
    """The user called ``name``; raises ``NotFound``."""
    user = find_user(name, session=session)
    if user is None:
        raise NotFound("user_unknown", name=name)
    return user


def get_user_by_id(user_id: int, *, session: Session) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise NotFound("user_unknown", name=user_id)
    return user


def create_user(name: str, role: str, password_hash: str, *, session: Session) -> User:
    """A new human login account; raises ``ValueError`` for a taken or empty name or an
    unknown role."""
    if role not in ROLES:
        raise LocalizedError("bad_choice", value=role, choices=", ".join(ROLES))
    typed_name(name, "what_account_name")
    if find_user(name, session=session) is not None:
        raise LocalizedError("user_exists", name=name)
    user = User(name=name, role=role, kind="human", password_hash=password_hash)
    session.add(user)
    session.flush()
    return user


def disable_user(name: str, *, session: Session, now: datetime | None = None) -> User:
    """Stop ``name`` from logging in and end their sessions; their judgments stay."""
    user = get_user(name, session=session)
    user.disabled = True
    session.add(user)
    revoke_sessions(user.id, session=session, now=now or utcnow())
    return user


def enable_user(name: str, *, session: Session) -> User:
    """Let a disabled ``name`` log in again (with the password they had)."""
    user = get_user(name, session=session)
    user.disabled = False
    session.add(user)
    return user


def set_password_hash(name: str, password_hash: str, *, session: Session, now: datetime) -> User:
    """Give ``name`` a new password (its hash) and end their sessions: whoever had logged in
    with the old one is logged out. A model judge's account is refused: it has no password,
    so that no one logs in as it and grades in its name."""
    user = get_user(name, session=session)
    if user.kind != "human":
        raise LocalizedError("password_for_model", name=name)
    user.password_hash = password_hash
    session.add(user)
    revoke_sessions(user.id, session=session, now=now)
    return user


def set_language(user_id: int, language: str, *, session: Session) -> None:
    """Remember the language ``user_id`` chose for the app; ``Refused`` unless they may act."""
    if language not in LANGUAGES:
        raise LocalizedError("bad_choice", value=language, choices=", ".join(LANGUAGES))
    acting(user_id, session=session)
    session.execute(update(User).where(User.id == user_id).values(language=language))


def set_pool(user_id: int, pool: str, *, session: Session) -> None:
    """Remember the pool ``user_id`` chose in the app; ``Refused`` unless they may act."""
    acting(user_id, session=session)
    session.execute(update(User).where(User.id == user_id).values(pool=pool))


def session_key(session_id: str) -> str:
    """What the table keeps of a session id: its sha256."""
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def open_session(
    user_id: int, session_id: str, *, session: Session, now: datetime, expires_at: datetime
) -> None:
    """Record a login session of ``user_id`` under ``session_id`` (kept only as its hash)."""
    session.add(
        LoginSession(
            id_sha256=session_key(session_id),
            user_id=user_id,
            created_at=now,
            expires_at=expires_at,
        )
    )


def session_user(session_id: str, *, session: Session, now: datetime) -> User | None:
    """The account of a live session (not expired, not revoked) that may still act; None
    otherwise. One statement: every render of the app asks it."""
    return session.exec(
        select(User)
        .join(LoginSession, LoginSession.user_id == User.id)
        .where(
            LoginSession.id_sha256 == session_key(session_id),
            LoginSession.revoked_at.is_(None),
            LoginSession.expires_at > now,
            User.disabled.is_(False),
            User.password_hash.is_not(None),
        )
    ).first()


def revoke_session(session_id: str, *, session: Session, now: datetime) -> None:
    """End one session (a logout): its cookie is refused from now on."""
    session.execute(
        update(LoginSession)
        .where(LoginSession.id_sha256 == session_key(session_id), LoginSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )


def revoke_sessions(user_id: int, *, session: Session, now: datetime) -> int:
    """End every live session of ``user_id``; how many there were."""
    ended = session.execute(
        update(LoginSession)
        .where(LoginSession.user_id == user_id, LoginSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    return ended.rowcount


def _name_key(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()


def count_login_attempt(
    name: str, *, session: Session, now: datetime, forget_before: datetime
) -> int:
    """Count an attempt to log in as ``name`` as a failure until ``clear_login_failures``
    says it succeeded; returns how many failures were counted before it (those last seen
    before ``forget_before`` forgotten). One atomic statement (an upsert), so that parallel
    attempts each get their own count and none is lost."""
    table = LoginThrottle.__table__
    statement = (
        upsert_insert(table, session=session)
        .values(name_sha256=_name_key(name), failures=1, last_attempt=now)
        .on_conflict_do_update(
            index_elements=[table.c.name_sha256],
            set_={
                "failures": case(
                    (table.c.last_attempt < forget_before, 1), else_=table.c.failures + 1
                ),
                "last_attempt": now,
            },
        )
        .returning(table.c.failures)
    )
    return session.execute(statement).scalar_one() - 1


def clear_login_failures(name: str, *, session: Session, forget_before: datetime) -> None:
    """A login as ``name`` succeeded: forget its failures, and every name's last seen
    before ``forget_before`` (so that names tried once do not pile up)."""
    table = LoginThrottle.__table__
    session.execute(
        delete(table).where(
            or_(table.c.name_sha256 == _name_key(name), table.c.last_attempt < forget_before)
        )
    )


def list_users(*, session: Session) -> list[User]:
    return list(session.exec(select(User).order_by(User.name)).all())
