"""What the grades of each candidate come to, on whole frames at once: its status (unsure,
incomplete, or by a disagreement policy of ``pooling.grades`` disagree or agreed), its
agreed grade (the lower median) and, with the leads' decisions, its final grade.

Pure functions over the judgments frame (``frame_of``): one row per (annotator, query,
chunk) with the annotator's current grade, missing when they marked it unsure. The lead's
queue (``annotator.quality.adjudication``) and a release read back from its own files
(``pooling.release_folder.recompute``) both resolve grades with them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pooling.grades import POLICIES, check_policy

KEYS = ["query_id", "chunk_id"]
# One line per candidate, the way every one of them is decided.
STATUS_COLUMNS = ["status", "severity", "auto_grade"]


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
    grades = frame.assign(grade=frame["grade"].astype(float)).groupby(KEYS, sort=True)["grade"]
    table = pd.DataFrame(
        {"judged": grades.size(), "graded": grades.count(), "low": grades.min()}
    ).assign(high=grades.max(), median=grades.quantile(0.5, interpolation="lower"))
    unsure = table["judged"] > table["graded"]
    split = POLICIES[policy](table["low"], table["high"])
    table["status"] = np.select(
        [unsure, table["judged"] < overlap, split], ["unsure", "incomplete", "disagree"], "agreed"
    )
    table["severity"] = np.where(unsure, 4, (table["high"] - table["low"]).fillna(0)).astype(int)
    agreed = table["status"] == "agreed"
    table["auto_grade"] = table["median"].where(agreed).astype("Int64")
    return table[STATUS_COLUMNS]


def final_grades(
    table: pd.DataFrame, decisions: dict[tuple[str, str], tuple]
) -> tuple[dict[tuple[str, str], int], list[tuple[str, str]]]:
    """Each candidate's final grade (a lead's latest decision, else the agreed grade) and
    the candidates still unresolved; ``table`` is ``statuses`` (or a table of candidates
    with its columns and ``query_id``, ``chunk_id``)."""
    if "query_id" in table:
        table = table.set_index(KEYS)
    agreed = (table["status"] == "agreed").to_numpy()
    # Whole columns at once: half a million candidates one row at a time took seconds.
    auto = table["auto_grade"][agreed].astype("int64").tolist()
    grades = dict(zip(table.index[agreed], auto, strict=True))
    grades.update({key: int(d[0]) for key, d in decisions.items() if key in table.index})
    decided = table.index.isin(list(decisions)) if decisions else np.zeros(len(table), bool)
    unresolved = table.index[~agreed & ~decided].tolist()
    return grades, unresolved
