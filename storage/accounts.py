"""Login accounts in the database. Password hashing and the login policy are in
``annotator.auth``; this module only reads and writes users."""

from __future__ import annotations

from sqlmodel import Session, select

from pooling.i18n import LocalizedError, NotFound, Refused
from storage.models import ROLES, User, utcnow


def acting(user_id: int | None, role: str | None = None, *, session: Session) -> User | None:
    """The account ``user_id`` as the database has it in this transaction, if it may act
    (enabled, able to log in, and a lead when ``role`` is ``"lead"``); ``Refused``
    otherwise. ``None`` stands for the command line: whoever holds the database URL holds
    every right there is, so there is nothing to check. Every domain function that writes
    calls this first, so that disabling an account or changing a role takes effect at the
    account's next click, in every app process."""
    if user_id is None:
        return None
    user = session.get(User, user_id)
    if user is None or user.disabled or user.password_hash is None:
        raise Refused("account_cannot_act")
    if role is not None and user.role != role:
        raise Refused("role_needed", role=f"@role_{role}", name=user.name)
    return user


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
    if not name.strip():
        raise LocalizedError("user_name_empty")
    if find_user(name, session=session) is not None:
        raise LocalizedError("user_exists", name=name)
    user = User(name=name, role=role, kind="human", password_hash=password_hash)
    session.add(user)
    session.flush()
    return user


def disable_user(name: str, *, session: Session) -> User:
    """Stop ``name`` from logging in; their judgments stay."""
    user = get_user(name, session=session)
    user.disabled = True
    session.add(user)
    return user


def record_login(user: User, succeeded: bool, *, session: Session) -> None:
    """Count a failed login (the count drives the delay), or clear the count on success."""
    if succeeded:
        user.failed_logins, user.last_failed_login = 0, None
    else:
        user.failed_logins += 1
        user.last_failed_login = utcnow()
    session.add(user)


def list_users(*, session: Session) -> list[User]:
    return list(session.exec(select(User).order_by(User.name)).all())
