"""Resampling over queries, for figures that are means of per-query values: a 95% bootstrap
interval of a mean, and a paired randomization test of a difference. Plain numpy, seeded,
so the same input always gives the same interval and p-value."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TEST_NAME = "paired randomization test (sign flips), two-sided"
INTERVAL_NAME = "95% bootstrap percentile interval over queries"


def bootstrap_interval(
    values: Sequence[float], rounds: int = 1000, seed: int = 0
) -> tuple[float | None, float | None]:
    """The 2.5th and 97.5th percentiles of the mean of ``values`` over ``rounds`` resamplings
    of the queries (with replacement). ``(None, None)`` with no values or no rounds."""
    data = np.asarray(values, dtype=float)
    if not len(data) or rounds <= 0:
        return None, None
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(rounds, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def randomization_test(differences: Sequence[float], rounds: int = 1000, seed: int = 0) -> float:
    """Two-sided p-value of the mean of paired ``differences`` (candidate - baseline, one
    per query) under the hypothesis that the two systems are exchangeable: each round flips
    the sign of every difference at random. The observed mean counts as one of the rounds,
    so p is never 0. Returns 1.0 with no differences or no rounds."""
    data = np.asarray(differences, dtype=float)
    if not len(data) or rounds <= 0:
        return 1.0
    observed = abs(data.mean())
    rng = np.random.default_rng(seed)
    signs = rng.choice((-1.0, 1.0), size=(rounds, len(data)))
    flipped = np.abs((signs * data).mean(axis=1))
    # A tolerance, so that a round equal to the observed mean up to rounding counts as one.
    extreme = int(np.count_nonzero(flipped >= observed - 1e-12))
    return (extreme + 1) / (rounds + 1)
