"""Krippendorff's alpha (ordinal) as ``annotator.quality.agreement.krippendorff_alpha``
adds it up over queries: each query's share of the coincidence matrix, the alpha of a sum of
shares, and why one has none. Plain functions over the judgments frame
(``pooling.resolution.frame_of``)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from pooling.grades import GRADES

ALPHA_BLOCK = 1 << 15  # units at a time in ``alpha_parts``


def _as_text(ids: pd.Series) -> pd.Series:
    """``ids`` as text, to be sorted as text; categories of text already in that order (a
    release's frame: ``annotator.releases.release_files.write_history``) as they are, sorted
    by their codes (making text of a million of them took 0.4 s at L)."""
    if isinstance(ids.dtype, pd.CategoricalDtype):
        categories = ids.cat.categories
        if pd.api.types.is_string_dtype(categories) and categories.is_monotonic_increasing:
            return ids
    return ids.astype(str)


def alpha_parts(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each query's share of the coincidence matrix: every unit (a candidate) with two or
    more grades adds its pairs of grades, weighted 1 / (grades - 1)."""
    graded = frame.dropna(subset=["grade"])
    size = len(GRADES)
    if graded.empty:
        return np.array([]), np.zeros((0, size * size))
    # Whole columns of integer codes: a unit is its (query, chunk) pair of codes, its grades
    # counted by one bincount (grouping a million rows by three columns took seconds).
    query_codes, query_names = pd.factorize(_as_text(graded["query_id"]), sort=True)
    chunk_codes, chunk_names = pd.factorize(graded["chunk_id"], sort=True)
    pair = query_codes.astype(np.int64) * max(len(chunk_names), 1) + chunk_codes
    # Units in the order of (query id, chunk id), each query's added in that order: the
    # very sums, to the last bit, of the grouped count this replaces.
    unit_codes, unit_pairs = pd.factorize(pair, sort=True)
    grade = graded["grade"].to_numpy(dtype=np.int64)
    values = np.bincount(unit_codes * size + grade, minlength=len(unit_pairs) * size)
    values = values.reshape(len(unit_pairs), size).astype(float)
    m = values.sum(axis=1)
    keep = m >= 2
    values, m = values[keep], m[keep]
    # Per query, in the order of their ids (``agreement._per_query``'s), only those with a unit.
    unit_queries = unit_pairs[keep] // max(len(chunk_names), 1)
    present, index = np.unique(unit_queries, return_inverse=True)
    sums = np.zeros((len(present), size * size))
    diagonal = np.arange(size)
    # A block of units at a time, added in the same order (``add.at`` adds one after
    # another): the same sums, without arrays of sixteen floats a unit (64 MB each at L,
    # most of the alpha's time spent faulting their pages in).
    for start in range(0, len(values), ALPHA_BLOCK):
        block = slice(start, start + ALPHA_BLOCK)
        part = values[block]
        pairs = part[:, :, None] * part[:, None, :]
        pairs[:, diagonal, diagonal] -= part
        units = (pairs / (m[block] - 1)[:, None, None]).reshape(len(part), size * size)
        np.add.at(sums, index[block], units)
    return np.asarray(query_names, dtype=str)[present], sums


def alphas(totals: np.ndarray) -> np.ndarray:
    """Ordinal alpha of each coincidence matrix in ``totals`` (rows of 16), NaN where no
    item has two grades or only one grade is in use."""
    size = len(GRADES)
    coincidence = totals.reshape(-1, size, size)
    margins = coincidence.sum(axis=2)
    n = margins.sum(axis=1)
    cumulative = np.cumsum(margins, axis=1)
    distance = np.zeros_like(coincidence)
    for c, k in itertools.product(range(size), repeat=2):
        low, high = min(c, k), max(c, k)
        between = cumulative[:, high] - (cumulative[:, low - 1] if low else 0)
        distance[:, c, k] = (between - (margins[:, c] + margins[:, k]) / 2) ** 2
    pairs = margins[:, :, None] * margins[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (coincidence * distance).sum(axis=(1, 2)) / n
        expected = (pairs * distance).sum(axis=(1, 2)) / (n * (n - 1))
        alpha = 1 - observed / expected
    return np.where((n > 0) & (np.count_nonzero(margins, axis=1) >= 2), alpha, np.nan)


def alpha_why(total: np.ndarray) -> str | None:
    """The message key of why one sum of shares (16 numbers) has no alpha: no pairs of
    grades, or one grade in use; None when it has one."""
    margins = total.reshape(len(GRADES), len(GRADES)).sum(axis=1)
    if margins.sum() == 0:
        return "reason_no_pairs"
    return "reason_one_grade" if np.count_nonzero(margins) < 2 else None
