"""The lead's kept figures, persisted (``annotator.quality.kept.figures``): per pool, the
current human grades its figures are counted from and how far into the judgments they
reach, so that the first view after a restart reads one row and the judgments since, not a
million. Imported by ``storage.models`` (a module of its own: that one is near its 500
lines). Derived data: a row that no longer matches the judgments is counted again.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, LargeBinary
from sqlmodel import Field, SQLModel


class FigureCheckpoint(SQLModel, table=True):
    """One pool's kept grades: ``payload`` (numpy arrays, no pickles) as they stood at
    judgment id ``judgment_mark``, when ``judgments_seen`` judgments had ids up to
    ``judgment_mark - lag`` (what a later count checks before trusting it)."""

    __tablename__ = "figure_checkpoint"

    pool_id: int = Field(foreign_key="pool.id", primary_key=True)
    judgment_mark: int
    judgments_seen: int
    adjudication_mark: int
    payload: bytes = Field(sa_column=Column(LargeBinary(), nullable=False))
    saved_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
