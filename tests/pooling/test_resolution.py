"""What several grades of a candidate come to: the lower median in its two forms (on a
series, and counted, as SQL has it), and the one order in which kinds of grade overrule
each other."""

from __future__ import annotations

import random

import pandas as pd

from pooling.grades import GRADES, lower_median, lower_median_reaches
from pooling.resolution import final_grades, merged, statuses


def test_the_lower_median_counted_is_the_lower_median():
    rng = random.Random(11)
    for _ in range(500):
        grades = pd.Series([rng.choice(GRADES) for _ in range(rng.randint(1, 7))])
        for threshold in GRADES:
            below = int((grades < threshold).sum())
            assert lower_median_reaches(below, len(grades)) == (lower_median(grades) >= threshold)


def test_the_lower_median_of_an_even_count_is_the_lower_middle_grade():
    assert lower_median(pd.Series([0, 3])) == 0
    assert lower_median(pd.Series([1, 2, 2, 3])) == 2
    assert lower_median(pd.Series([1, 2, 3])) == 2


def test_later_kinds_of_grade_overrule_earlier_ones():
    a, b, c, d = ("q", "a"), ("q", "b"), ("q", "c"), ("q", "d")
    grades = merged(
        carried={a: 0, b: 0, c: 0, d: 0},
        agreed={b: 1, c: 1, d: 1},
        gold={c: 2, d: 2},
        adjudicated={d: 3},
    )
    assert grades == {a: 0, b: 1, c: 2, d: 3}


def test_final_grades_keep_the_order_and_leave_the_rest_unresolved():
    frame = pd.DataFrame(
        {
            "annotator": ["x", "y", "x", "y", "x", "y"],
            "query_id": ["q"] * 6,
            "chunk_id": ["a", "a", "b", "b", "c", "c"],
            "grade": pd.array([1, 1, 0, 3, 0, 3], dtype="Int64"),
        }
    )
    table = statuses(frame, "threshold", 2)
    grades, unresolved = final_grades(
        table, {("q", "a"): (3,)}, gold={("q", "a"): 2, ("q", "b"): 2}, carried={("q", "z"): 1}
    )
    assert grades == {("q", "a"): 3, ("q", "b"): 2, ("q", "z"): 1}
    assert unresolved == [("q", "c")]
