"""The grading scale, and what several grades of one candidate come to.

Grades are 0–3 (``rubrics/``: 0 irrelevant or misleading, 1 on topic but cannot support
the answer, 2 important evidence that needs another chunk, 3 directly contains the facts
and limits the answer needs). Everything that checks, counts or tabulates grades uses
``GRADES``.

A disagreement policy decides whether the grades given to one candidate disagree enough to
need a lead's decision; it is chosen by name from ``POLICIES``: ``any`` (any difference),
``threshold`` (grades on both sides of grade 2: relevant for one annotator, not for another)
or ``gap2`` (a gap of 2 or more). Candidates within the policy resolve to the lower median
of their grades (``lower_median``: when unsure, the lower grade).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

from pooling.i18n import LocalizedError, check_name

GRADES: tuple[int, ...] = (0, 1, 2, 3)
LOWEST, HIGHEST = GRADES[0], GRADES[-1]
EVIDENCE = 2  # a chunk graded this or more is evidence for the answer
RELEVANT = 1  # the default threshold at which a chunk counts as relevant


def is_grade(value: object) -> TypeGuard[int]:
    """True for an ``int`` on the scale (not a bool, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool) and value in GRADES


def check_grade(value: object) -> int:
    """``value`` if it is a grade, else ``LocalizedError`` saying the scale."""
    if not is_grade(value):
        raise LocalizedError("grade_range", value=value)
    return value


def sql_range(column: str) -> str:
    """A CHECK constraint's condition: ``column`` is on the scale."""
    return f"{column} >= {LOWEST} AND {column} <= {HIGHEST}"


# Each policy looks only at a candidate's lowest and highest grade, so that it works on
# single grades and on whole columns of them (numpy arrays, pandas series) alike.
POLICIES: dict[str, Callable] = {
    "any": lambda low, high: high != low,
    "threshold": lambda low, high: (low < EVIDENCE) & (high >= EVIDENCE),
    "gap2": lambda low, high: high - low >= 2,
}
DEFAULT_POLICY = "threshold"


def check_policy(policy: str) -> None:
    """Raise ``LocalizedError`` naming the valid policies unless ``policy`` is one."""
    check_name(policy, POLICIES, "what_policy")


def lower_median(grades: Any) -> Any:
    """The median of ``grades`` rounded down to one of them (of an even count, the lower of
    the middle two): the grade that candidates within the policy resolve to. ``grades`` is a
    pandas series, or a grouping of one (then one median per group)."""
    return grades.quantile(0.5, interpolation="lower")


def lower_median_reaches(below: Any, graded: Any) -> Any:
    """Whether the lower median of ``graded`` grades, ``below`` of which are under some
    threshold, reaches that threshold: fewer than half are under it. Counts only, so that
    the same rule runs on numbers and on SQL columns (``storage.counts``); a test pins it to
    ``lower_median``."""
    return 2 * below < graded


def check_unsure_note(unsure: bool, note: str) -> None:
    """Raise ``LocalizedError`` for an unsure judgment without a note saying why."""
    if unsure and not note.strip():
        raise LocalizedError("unsure_needs_note")
