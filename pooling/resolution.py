"""What the grades of each candidate come to, on whole frames at once: its status (unsure,
incomplete, or by a disagreement policy of ``pooling.grades`` disagree or agreed), its
agreed grade (the lower median) and, with the leads' decisions, its final grade.

Pure functions over the judgments frame (``frame_of``): one row per (annotator, query,
chunk) with the annotator's current grade, missing when they marked it unsure. The lead's
queue (``annotator.quality.adjudication``) and a release read back from its own files
(``pooling.release_folder.recompute``) both resolve grades with them.

The status rule has two forms, side by side here and pinned equal on random histories of
judgments (``tests/pooling/test_rule_forms.py``): ``statuses``, the **recount** from the
judgments frame, and ``kept_statuses``, the same rule read off the per-candidate grade
counts the lead's views **keep** up to date as judgments are written
(``annotator.quality.kept.current_grades.Kept.counts``, read by ``annotator.quality.kept.views``).
A change to the rule is made to both, here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pooling.grades import GRADES, POLICIES, check_policy, lower_median

KEYS = ["query_id", "chunk_id"]
# One line per candidate, the way every one of them is decided.
STATUS_COLUMNS = ["status", "severity", "auto_grade"]
# A judged candidate's status; ``kept_statuses`` gives each by its place here (-1: nobody
# judged the candidate).
JUDGED_STATUSES = ("agreed", "incomplete", "disagree", "unsure")
AGREED, INCOMPLETE, DISAGREE, UNSURE = range(len(JUDGED_STATUSES))
UNSURE_COUNT = len(GRADES)  # the column of unsure judgments in a candidate's kept counts


def frame_of(rows: list[tuple], columns: list[str]) -> pd.DataFrame:
    """The judgments frame from ``rows`` of ``columns`` (``annotator``, ``query_id``,
    ``chunk_id``, ``grade`` and any others, such as ``storage.history.JUDGMENT_COLUMNS``);
    an unsure judgment has no grade."""
    frame = pd.DataFrame(rows, columns=columns)
    frame["grade"] = frame["grade"].astype("Int64")
    return frame


def statuses(frame: pd.DataFrame, policy: str, overlap: int) -> pd.DataFrame:
    """Per judged candidate (indexed by query id and chunk id): ``status`` (``unsure`` when
    someone marked it so, ``incomplete`` with fewer than ``overlap`` judgments, else
    ``disagree`` or ``agreed`` by ``policy``), ``severity`` (the gap between grades; unsure
    counts as the widest, 4) and ``auto_grade`` (the lower median, for agreed ones).
    Computed on whole columns at once: a million judgments take a second or two."""
    check_policy(policy)
    # ``observed``: ids may be categorical (a release's frame), and only the pairs judged
    # are candidates.
    grades = frame.assign(grade=frame["grade"].astype(float)).groupby(
        KEYS, sort=True, observed=True
    )["grade"]
    table = pd.DataFrame(
        {"judged": grades.size(), "graded": grades.count(), "low": grades.min()}
    ).assign(high=grades.max(), median=lower_median(grades))
    unsure = table["judged"] > table["graded"]
    split = POLICIES[policy](table["low"], table["high"])
    table["status"] = np.select(
        [unsure, table["judged"] < overlap, split], ["unsure", "incomplete", "disagree"], "agreed"
    )
    table["severity"] = np.where(unsure, 4, (table["high"] - table["low"]).fillna(0)).astype(int)
    agreed = table["status"] == "agreed"
    table["auto_grade"] = table["median"].where(agreed).astype("Int64")
    return table[STATUS_COLUMNS]


def kept_statuses(
    counts: np.ndarray, overlap: int, policy: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``statuses`` read off kept counts: ``counts`` has a row per candidate, how many of
    its current judgments give each grade of ``GRADES`` and then how many are unsure
    (``UNSURE_COUNT``). Returns per candidate its status (a place in ``JUDGED_STATUSES``,
    -1 for a candidate nobody judged), its severity and its agreed grade (-1 for none), as
    int8 arrays. A few dozen queries' candidates at a time, with no frame to group."""
    size = len(GRADES)
    grades = counts[:, :size]
    graded = grades.sum(axis=1)
    judged = counts.sum(axis=1)
    unsure = counts[:, UNSURE_COUNT] > 0
    given = grades > 0
    low = np.argmax(given, axis=1)
    high = size - 1 - np.argmax(given[:, ::-1], axis=1)
    # The lower median: the first grade whose running count passes half of the rest.
    median = np.argmax(np.cumsum(grades, axis=1) > ((graded - 1) // 2)[:, None], axis=1)
    split = POLICIES[policy](low, high) & (graded > 0)
    status = np.select([unsure, judged < overlap, split], [UNSURE, INCOMPLETE, DISAGREE]).astype(
        np.int8
    )  # AGREED is 0, np.select's default
    status[judged == 0] = -1
    severity = np.where(unsure, 4, np.where(graded > 0, high - low, 0)).astype(np.int8)
    auto = np.where(status == AGREED, median, -1).astype(np.int8)
    return status, severity, auto


Key = tuple[str, str]  # (query id, chunk id): a candidate


def merged(
    *,
    carried: Mapping[Key, int] | None = None,
    agreed: Mapping[Key, int] | None = None,
    gold: Mapping[Key, int] | None = None,
    adjudicated: Mapping[Key, int] | None = None,
) -> dict[Key, int]:
    """Candidate -> the grade that stands, each later kind overruling the earlier: a grade
    carried from an earlier release < the agreed grade of people's judgments < a gold
    item's settled grade < a lead's latest adjudication. The one place that order is
    written: the lead's queue, carrying and a release read back from its files use it."""
    grades: dict[Key, int] = {}
    for layer in (carried, agreed, gold, adjudicated):
        grades.update(layer or {})
    return grades


def final_grades(
    table: pd.DataFrame,
    decisions: Mapping[Key, tuple],
    *,
    gold: Mapping[Key, int] | None = None,
    carried: Mapping[Key, int] | None = None,
) -> tuple[dict[Key, int], list[Key]]:
    """Each candidate's final grade (in the order of ``merged``: the ``carried`` grade, the
    agreed grade, the ``gold`` grade, a lead's latest decision) and the judged candidates
    still without one; ``table`` is ``statuses`` (or a table of candidates with its columns
    and ``query_id``, ``chunk_id``)."""
    if "query_id" in table:
        table = table.set_index(KEYS)
    agreed = (table["status"] == "agreed").to_numpy()
    # Whole columns at once: no Python loop over a million rows.
    auto = table["auto_grade"][agreed].astype("int64").tolist()
    adjudicated = {key: int(d[0]) for key, d in decisions.items() if key in table.index}
    grades = merged(
        carried=carried,
        agreed=dict(zip(table.index[agreed], auto, strict=True)),
        gold=gold,
        adjudicated=adjudicated,
    )
    # Of the candidates not agreed, those a carried, gold or adjudicated grade settles: a
    # few keys looked up, not the million agreed ones again.
    settled = (carried or {}).keys() | (gold or {}).keys() | adjudicated.keys()
    decided = table.index.isin(list(settled)) if settled else np.zeros(len(table), bool)
    unresolved = table.index[~agreed & ~decided].tolist()
    return grades, unresolved
