"""Progress figures for the progress pages, as data frames. No Streamlit in here."""

from __future__ import annotations

import pandas as pd
from sqlalchemy.engine import Engine

from storage import catalog, history
from storage.db import session_scope
from storage.pool_records import get_pool

COLUMNS = ["annotator", "query", "grade", "unsure", "seconds"]


def _judgments(engine: Engine, pool_name: str) -> tuple[pd.DataFrame, catalog.PoolSummary]:
    with session_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        rows = history.pool_judgments(pool, session=session)
        summary = catalog.pool_summary(pool, session)
    return pd.DataFrame(rows, columns=COLUMNS), summary


def my_progress(engine: Engine, pool_name: str, user_name: str) -> pd.DataFrame:
    """Per query: how many passages ``user_name`` judged, and how many of them unsure."""
    frame, _ = _judgments(engine, pool_name)
    mine = frame[frame["annotator"] == user_name]
    return (
        mine.groupby("query")
        .agg(judged=("grade", "size"), unsure=("unsure", "sum"))
        .astype(int)
        .reset_index()
    )


def team_progress(engine: Engine, pool_name: str) -> tuple[pd.DataFrame, catalog.PoolSummary]:
    """Per annotator: judged, unsure, median seconds per item; and the pool's completeness."""
    frame, summary = _judgments(engine, pool_name)
    table = (
        frame.groupby("annotator")
        .agg(judged=("grade", "size"), unsure=("unsure", "sum"), seconds=("seconds", "median"))
        .reset_index()
    )
    table["unsure"] = table["unsure"].astype(int)
    return table, summary
