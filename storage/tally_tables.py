"""Counts kept as the data changes, so that what runs often reads a few rows instead of
counting a million: the tallies of judgment slots a keypress reads (``storage.tallies``
keeps them), and the counts of the judgment history that ``qrels status`` reads, which the
database keeps itself (migration 0017's triggers on ``judgment``: every insert, from any
code or hand-written SQL, is counted in its own transaction)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, Index, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel


def counted() -> Any:
    """A count column that rows made before it was kept hold as 0 until a migration fills it."""
    return Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))


class JudgmentTally(SQLModel, table=True):
    """A person's judgments of a query set: every row of the history, changes of grade too."""

    __tablename__ = "judgment_tally"

    query_set_id: int = Field(foreign_key="query_set.id", primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", primary_key=True)
    judgments: int = 0


class JudgedQuery(SQLModel, table=True):
    """A query that has a judgment, from anyone."""

    __tablename__ = "judged_query"

    query_id: int = Field(foreign_key="query.id", primary_key=True)


class QueryTally(SQLModel, table=True):
    """One query of a pool, counted as slots change (``storage.tallies``): candidates,
    candidates asked about (an active pool's chosen ones), judgment slots needed and held,
    candidates with a free slot, and complete ones (asked, with ``overlap`` human judges)."""

    __tablename__ = "query_tally"
    __table_args__ = (
        UniqueConstraint("pool_id", "query_id"),
        Index("ix_query_tally_pool_open", "pool_id", "open"),
    )

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id")
    query_id: int = Field(foreign_key="query.id")
    candidates: int = 0
    asked: int = 0
    slots: int = 0
    held: int = 0
    open: int = 0
    complete: int = counted()


class AnnotatorTally(SQLModel, table=True):
    """One annotator in a pool, counted as slots change: items judged, items they hold or
    judged whose candidate still has a free slot (open to others, not to them), and the
    query of the item they took last."""

    __tablename__ = "annotator_tally"
    __table_args__ = (UniqueConstraint("pool_id", "user_id"),)

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id")
    user_id: int = Field(foreign_key="app_user.id")
    done: int = 0
    waiting: int = 0
    last_query_id: int | None = Field(default=None, foreign_key="query.id")
    # No longer kept: gold checks are part of an annotator's work from the start
    # (storage.gold_records.own_gold), not due by a count. Left for old databases.
    gold_seen: int = counted()
