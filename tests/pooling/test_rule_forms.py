"""Each rule with a kept form (read off counts kept as judgments are written) and a recount
form (from the judgments themselves) gives the same answer on any history of judgments:
a candidate's status, severity and agreed grade (``pooling.resolution.kept_statuses``
against ``pooling.resolution.statuses``, every policy and overlap), and whether the lower
median reaches a threshold (``pooling.grades.lower_median_reaches``, the counted form
``storage.counts`` runs in SQL, against ``lower_median``; its SQL on both databases:
``tests/storage/test_current_grade.py``). Random histories: people grade, change their
grades and mark candidates unsure, in any order; a person's last judgment is their current
one."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pooling.grades import GRADES, POLICIES, lower_median, lower_median_reaches
from pooling.resolution import (
    JUDGED_STATUSES,
    UNSURE_COUNT,
    frame_of,
    kept_statuses,
    statuses,
)

PEOPLE, QUERIES, CHUNKS = 4, 2, 3
CANDIDATES = [(f"q{q}", f"c{c}") for q in range(QUERIES) for c in range(CHUNKS)]

# A judgment: who, which candidate, and the grade (None: unsure).
judgments = st.tuples(
    st.integers(0, PEOPLE - 1),
    st.sampled_from(CANDIDATES),
    st.one_of(st.none(), st.sampled_from(GRADES)),
)
histories = st.lists(judgments, max_size=40)


def current(history: list[tuple]) -> dict[tuple[int, str, str], int | None]:
    """Each person's current grade per candidate: their last judgment of it."""
    found: dict[tuple[int, str, str], int | None] = {}
    for person, (query, chunk), grade in history:
        found[(person, query, chunk)] = grade
    return found


def kept_counts(grades: dict[tuple[int, str, str], int | None]) -> np.ndarray:
    """Per candidate (``CANDIDATES`` order) the counts a view keeps: how many current
    grades of each grade, then how many unsure, each added as its judgment is written."""
    counts = np.zeros((len(CANDIDATES), UNSURE_COUNT + 1), np.int64)
    place = {key: i for i, key in enumerate(CANDIDATES)}
    for (_, query, chunk), grade in grades.items():
        counts[place[(query, chunk)], UNSURE_COUNT if grade is None else grade] += 1
    return counts


@settings(max_examples=300, deadline=None)
@given(histories, st.sampled_from(sorted(POLICIES)), st.integers(1, PEOPLE))
def test_the_kept_statuses_are_the_recounted_ones(history, policy, overlap):
    grades = current(history)
    rows = [(f"a{p}", q, c, g) for (p, q, c), g in grades.items()]
    recount = statuses(
        frame_of(rows, ["annotator", "query_id", "chunk_id", "grade"]), policy, overlap
    )
    status, severity, auto = kept_statuses(kept_counts(grades), overlap, policy)
    for i, key in enumerate(CANDIDATES):
        if key not in recount.index:
            assert status[i] == -1, key
            continue
        row = recount.loc[key]
        assert JUDGED_STATUSES[status[i]] == row["status"], key
        assert severity[i] == row["severity"], key
        assert (-1 if pd.isna(row["auto_grade"]) else row["auto_grade"]) == auto[i], key


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(GRADES), min_size=1, max_size=12), st.sampled_from(GRADES))
def test_the_counted_lower_median_is_the_lower_median(grades, threshold):
    below = sum(grade < threshold for grade in grades)
    median = lower_median(pd.Series(grades))
    assert lower_median_reaches(below, len(grades)) == (median >= threshold)
