"""p-values adjusted for many tests at once: Holm's step-down (the family-wise error rate:
the chance of any false "significant") and Benjamini-Hochberg's step-up (the false
discovery rate: the expected share of false ones among those called significant). When an
evaluation compares every candidate with the baseline on every metric and slice, a raw
p-value below 0.05 somewhere is expected by chance alone. Plain numpy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ADJUSTMENT_NAME = (
    "Holm (family-wise) and Benjamini-Hochberg (false discovery rate), over every comparison "
    "in the table at once"
)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values, in the order given: the i-th smallest p times (m - i + 1),
    made non-decreasing in that order, at most 1."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (len(p) - np.arange(len(p)))
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return adjusted.tolist()


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the order given: the i-th
    smallest p times m / i, made non-decreasing from the largest down, at most 1."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * len(p) / np.arange(1, len(p) + 1)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return adjusted.tolist()
