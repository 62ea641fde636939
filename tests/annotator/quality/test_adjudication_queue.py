"""The Adjudication page's statuses chart: counts per query and status, and the queries a
large pool's chart draws (``adjudication.status_counts``, ``most_needing``)."""

from __future__ import annotations

import pandas as pd

from annotator.quality import adjudication


def table(rows: list[tuple[str, str]], categorical: bool = False) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["query_id", "status"])
    if categorical:  # as a kept queue holds them
        frame = frame.astype({"query_id": "category", "status": "category"})
    return frame


ROWS = [
    ("q2", "agreed"),
    ("q1", "disagree"),
    ("q1", "agreed"),
    ("q1", "disagree"),
    ("q3", "unsure"),
    ("q2", "gold"),
    ("q10", "incomplete"),
]


def test_status_counts_per_query_the_statuses_needing_a_lead_first():
    for categorical in (False, True):
        counts = adjudication.status_counts(table(ROWS, categorical))
        assert counts.to_dict("records") == [
            {"query": "q1", "status": "disagree", "candidates": 2},
            {"query": "q1", "status": "agreed", "candidates": 1},
            {"query": "q10", "status": "incomplete", "candidates": 1},
            {"query": "q2", "status": "gold", "candidates": 1},
            {"query": "q2", "status": "agreed", "candidates": 1},
            {"query": "q3", "status": "unsure", "candidates": 1},
        ]


def test_most_needing_draws_the_queries_with_most_to_decide_then_most_judged():
    counts = adjudication.status_counts(table(ROWS))
    assert adjudication.most_needing(counts, 2)["query"].unique().tolist() == ["q1", "q3"]
    # No query needs a decision beyond those: the most judged come next (q2, two).
    assert adjudication.most_needing(counts, 3)["query"].unique().tolist() == ["q1", "q2", "q3"]
    assert adjudication.most_needing(counts, 10).equals(counts)
