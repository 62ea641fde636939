"""Resampling over queries, for figures that are means of per-query values: a 95% bootstrap
interval of a mean, and a paired randomization test of a difference; and for figures that
add up over queries (agreement's per-query count tables), their totals over resampled
queries. Plain numpy, seeded, so the same input always gives the same interval and
p-value."""

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


def resampled(shares: np.ndarray, rounds: int, seed: int = 0) -> np.ndarray:
    """``rounds`` bootstrap totals of ``shares`` (one row per query): queries drawn with
    replacement, a query drawn twice counting twice. Where many queries share a row (one
    shared item graded 0 by both), drawn as how many of the ``n`` draws fall on each
    distinct row (a multinomial over the rows' multiplicities: the same distribution), so
    that a round costs the distinct rows, not the queries."""
    rng = np.random.default_rng(seed)
    n = len(shares)
    if not n:
        return np.zeros((rounds, shares.shape[1]))
    # The distinct rows by a sort on every column (np.unique on rows is far slower).
    ordered = shares[np.lexsort(shares.T)]
    first = np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)]
    rows = ordered[first]
    if len(rows) * 4 < n:
        weights = np.diff(np.r_[np.flatnonzero(first), n]) / n
        return rng.multinomial(n, weights, size=rounds).astype(float) @ rows
    drawn = rng.integers(0, n, size=(rounds, n))
    # Each round's count of every query, in one bincount over the rounds laid end to end.
    offsets = (drawn + np.arange(rounds)[:, None] * n).ravel()
    return np.bincount(offsets, minlength=rounds * n).reshape(rounds, n).astype(float) @ ordered


def resampled_together(
    places: list[np.ndarray], shares: list[np.ndarray], rounds: int, seed: int = 0
) -> np.ndarray:
    """``rounds`` bootstrap totals of several tables of per-query ``shares`` drawn together
    (``agreement.pairs_of_shares``: a group's pairs), as an array rounds x tables x cells.
    ``shares[i]`` holds one row per query at query indexes ``places[i]`` (one order for
    all tables); each round draws the queries of any table with replacement, once for
    all: each round's count of every query times the tables laid side by side as one
    sparse matrix."""
    from scipy import sparse  # only when an interval is asked for

    cells = shares[0].shape[1] if shares else 0
    queries = np.unique(np.concatenate([np.zeros(0, np.int64), *places]))
    n = len(queries)
    if not n:
        return np.zeros((rounds, len(shares), cells))
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n, size=(rounds, n))
    drawn += np.arange(rounds)[:, None] * n  # each round's counts in one bincount
    counts = np.bincount(drawn.ravel(), minlength=rounds * n).reshape(rounds, n)
    rows, columns, values = [], [], []
    for i, (place, share) in enumerate(zip(places, shares, strict=True)):
        at, cell = np.nonzero(share)
        rows.append(np.searchsorted(queries, place)[at])
        columns.append(i * cells + cell)
        values.append(share[at, cell])
    matrix = sparse.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
        shape=(n, len(shares) * cells),
    )
    # Whole counts: the float sums are exact in any order.
    return (matrix.T @ counts.T.astype(float)).T.reshape(rounds, len(shares), cells)
