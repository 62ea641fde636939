"""The tables of query samples (``qrels sample``): which queries of a pool people are to
judge completely, so that metric estimates can combine a model judge's grades on every
query with people's on a random sample (``pooling.estimates``). Imported by
``storage.models`` (a module of its own: that one is near its 500 lines).

Append-only like judgments (the migration's triggers): a sample is never changed; a new
sample of the same pool (a draw) is recorded beside it, with why and with how many of the
queries of the sample it replaced people had judged, and the newest is the one in force.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, CheckConstraint, Column, DateTime, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel

SAMPLE_DESIGNS = ("uniform", "stratified", "uncertainty")


def _now() -> datetime:
    return datetime.now(UTC)


class QuerySample(SQLModel, table=True):
    """How a sample was drawn: ``design`` (uniform, stratified by slice, or by the model's
    uncertainty with unequal probabilities), what was asked for (``requested``: ``"50"`` or
    ``"20%"``), how many queries it holds of how many (``size``, ``population``), the
    ``seed``, the model judge whose grades set the probabilities, and in ``config`` the
    strata or the rule behind the probabilities; ``judged_before``: how many queries of
    the sample in force before this draw people had judged (None: drawn before this was
    kept), ``reason``: why it was drawn again (``--why``)."""

    __tablename__ = "query_sample"
    __table_args__ = (
        CheckConstraint(
            "design IN ('uniform', 'stratified', 'uncertainty')", name="query_sample_design_valid"
        ),
        CheckConstraint("size >= 0 AND size <= population", name="query_sample_size_valid"),
    )

    id: int = Field(default=None, primary_key=True)  # given at flush (storage.models)
    pool_id: int = Field(foreign_key="pool.id", index=True)
    design: str
    requested: str
    size: int
    population: int
    seed: int
    model: str | None = None
    config: dict = Field(
        default_factory=dict,
        sa_column=Column(JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    )
    user_id: int | None = Field(default=None, foreign_key="app_user.id")  # None: command line
    judged_before: int | None = None
    reason: str | None = None
    created_at: datetime = Field(
        default_factory=_now, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


class QuerySampleMember(SQLModel, table=True):
    """One query of a sample, in the order drawn (``position`` from 0), with the probability
    it had of being drawn and its stratum (stratified samples)."""

    __tablename__ = "query_sample_member"
    __table_args__ = (
        UniqueConstraint("sample_id", "query_id"),
        CheckConstraint(
            "probability > 0 AND probability <= 1", name="query_sample_member_probability"
        ),
    )

    id: int = Field(default=None, primary_key=True)  # given at flush (storage.models)
    sample_id: int = Field(foreign_key="query_sample.id", index=True)
    query_id: int = Field(foreign_key="query.id")
    position: int
    probability: float
    stratum: str | None = None
