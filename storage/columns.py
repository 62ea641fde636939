"""The kinds of column that several table modules declare alike (``storage.models``,
``storage.judge_tables``): JSON (JSONB on PostgreSQL), the time a row was made, and the
check that a text column holds one of a few values."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Column, DateTime
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field

from storage.clock import utcnow

JSONType = JSON().with_variant(JSONB(), "postgresql")


def json_field(**kwargs: Any) -> Any:
    """A JSON column that is never NULL (``kwargs``: the field's default)."""
    return Field(sa_column=Column(JSONType, nullable=False), **kwargs)


def created_field() -> Any:
    """The time the row was made, with its time zone, set when it is made."""
    return Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def one_of(column: str, values: tuple[str, ...]) -> str:
    """A check constraint's SQL: ``column`` holds one of ``values``."""
    return f"{column} IN ({', '.join(repr(v) for v in values)})"
