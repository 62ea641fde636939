"""The table of login sessions, beside ``storage.models`` (which imports it into the
schema) to keep that module readable in one sitting."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime
from sqlmodel import Field, SQLModel


def _now() -> datetime:
    return datetime.now(UTC)


class LoginSession(SQLModel, table=True):
    """A login kept by the server and carried by a cookie; only its id's sha256 is stored.
    It ends at ``expires_at`` or when revoked (logout, account disabled, new password)."""

    __tablename__ = "login_session"

    id_sha256: str = Field(primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True)
    created_at: datetime = Field(
        default_factory=_now, sa_column=Column(DateTime(timezone=True), nullable=False)
    )
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    revoked_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
