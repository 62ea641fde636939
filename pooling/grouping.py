"""Judgments or queries by group: all of them, each slice (a query's tags; a query counts in
every slice it has) or each split (``dev``, ``test``). Agreement and evaluation report their
figures per group alike."""

from __future__ import annotations

import pandas as pd

from pooling.i18n import check_name

GROUPINGS = ("slice", "split")


def groups(frame: pd.DataFrame, by: str | None) -> dict[str, pd.DataFrame]:
    """The frame whole, or split by ``slice`` (an item counts in each of its query's
    slices) or by ``split``."""
    if by is None:
        return {"all": frame}
    check_name(by, GROUPINGS, "what_grouping")
    if by == "split":
        return {f"split:{name}": part for name, part in frame.groupby("split")}
    exploded = frame.explode("slices")
    return {
        f"slice:{name}": part.drop(columns="slices")
        for name, part in exploded.dropna(subset=["slices"]).groupby("slices")
    }
