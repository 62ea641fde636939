"""Unanswerable queries, evaluated apart from the metrics: does a run's top score tell them
from the answerable ones? No Streamlit in here."""

from __future__ import annotations

import numpy as np
import pandas as pd


def unanswerable_figures(per_query: pd.DataFrame, query_sets: dict[str, set[str]]) -> pd.DataFrame:
    """Per run and group, whether the run's top score tells unanswerable queries from the
    counted answerable ones: ``auroc`` (the chance that an answerable query's top score is
    above an unanswerable one's; 0.5 is no better than chance) and ``above_median`` (the
    share of unanswerable queries whose top score is above the answerable median). A query
    the run ranks nothing for has the lowest score of all. ``undefined`` says why a group
    has no figure: ``no_unanswerable`` or ``no_answerable`` queries in it."""
    from sklearn.metrics import roc_auc_score

    rows = []
    for run, frame in per_query.groupby("run", sort=False):
        lowest = frame["top_score"].min()
        scores = frame["top_score"].fillna(lowest - 1 if pd.notna(lowest) else 0.0)
        for group, members in query_sets.items():
            inside = frame["query_id"].isin(members)
            answerable = scores[inside & (frame["status"] == "counted")].to_numpy(dtype=float)
            unanswerable = scores[inside & (frame["status"] == "unanswerable")].to_numpy(
                dtype=float
            )
            row = {
                "run": run,
                "group": group,
                "answerable": len(answerable),
                "unanswerable": len(unanswerable),
                "auroc": np.nan,
                "above_median": np.nan,
                "undefined": None,
            }
            if not len(unanswerable):
                row["undefined"] = "no_unanswerable"
            elif not len(answerable):
                row["undefined"] = "no_answerable"
            else:
                labels = [1] * len(answerable) + [0] * len(unanswerable)
                row["auroc"] = float(
                    roc_auc_score(labels, np.concatenate([answerable, unanswerable]))
                )
                row["above_median"] = float((unanswerable > np.median(answerable)).mean())
            rows.append(row)
    return pd.DataFrame(rows)
