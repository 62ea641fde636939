"""Which queries people judge completely, drawn at random so that metric estimates stay
unbiased (``pooling.estimates``): uniformly, stratified by slice, or with unequal
probabilities set by a model judge's uncertainty. Pure: ids in, members out; seeded, so one
seed always draws the same queries.

- ``uniform``: the first n of a seeded permutation of the queries (a larger n with the same
  seed draws a superset: a sample can grow without losing what people judged).
- ``stratified``: each stratum (``stratum_of``: a query's slices, sorted and joined) gets
  its proportional share of n (largest remainders), at least ``MIN_PER_STRATUM`` where it
  holds that many, drawn uniformly within it.
- ``uncertainty``: Poisson sampling, each query drawn independently with probability
  π = n·(½/N + ½·u/Σu), u its uncertainty, capped at 1 (the excess spread over the rest):
  half of the budget is spread evenly so that no weight 1/π is extreme (Zrnic & Candès
  2024 mix with the uniform rule for the same reason). n is the expected size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pooling.estimates import MIN_PER_STRATUM
from pooling.i18n import LocalizedError

NO_SLICE = "(no slice)"
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class Member:
    """A drawn query: its id, its probability of being drawn, its stratum (or None)."""

    query_id: str
    probability: float
    stratum: str | None = None


def sample_size(text: str, population: int) -> int:
    """``"50"`` (queries) or ``"20%"`` (of ``population``, rounded) as a number of queries;
    raises ``LocalizedError`` for anything else, for none, or for more than there are."""
    found = _SIZE.match(str(text))
    if found is None:
        raise LocalizedError("sample_size_syntax", value=text)
    number, percent = float(found.group(1)), found.group(2) == "%"
    if not percent and not number.is_integer():
        raise LocalizedError("sample_size_syntax", value=text)
    size = round(number * population / 100) if percent else int(number)
    if size < 1 or size > population:
        raise LocalizedError("sample_size_range", value=text, size=size, population=population)
    return size


def stratum_of(slices: Sequence[str]) -> str:
    """A query's stratum: its slices sorted and joined with ``+``, so that every query is in
    exactly one (a query counts in each of its slices when evaluated, but a stratum must be
    a partition)."""
    return "+".join(sorted(set(slices))) or NO_SLICE


def _permutation(query_ids: Sequence[str], seed: int, salt: str = "") -> list[str]:
    rng = np.random.default_rng([seed, *map(ord, salt)])
    ordered = sorted(query_ids)
    return [ordered[i] for i in rng.permutation(len(ordered))]


def uniform(query_ids: Sequence[str], size: int, seed: int) -> list[Member]:
    """``size`` queries drawn uniformly at random (each with probability size/N)."""
    probability = size / len(query_ids)
    return [Member(q, probability) for q in _permutation(query_ids, seed)[:size]]


def allocation(sizes: Mapping[str, int], size: int) -> dict[str, int]:
    """Queries to draw per stratum: proportional to its size, largest remainders first,
    raised to ``MIN_PER_STRATUM`` (or all it holds) where the share is smaller, taken back
    from the largest strata. Raises ``LocalizedError`` when ``size`` cannot give every
    stratum its minimum."""
    total = sum(sizes.values())
    floors = {s: min(MIN_PER_STRATUM, n) for s, n in sizes.items()}
    if size < sum(floors.values()):
        raise LocalizedError(
            "sample_strata_small", size=size, needed=sum(floors.values()), strata=len(sizes)
        )
    exact = {s: size * n / total for s, n in sizes.items()}
    chosen = {s: int(v) for s, v in exact.items()}
    by_remainder = sorted(exact, key=lambda s: (-(exact[s] - chosen[s]), s))
    for s in by_remainder[: size - sum(chosen.values())]:
        chosen[s] += 1
    for s in sizes:
        while chosen[s] < floors[s]:
            donor = max((d for d in sizes if chosen[d] > floors[d]), key=lambda d: (chosen[d], d))
            chosen[donor] -= 1
            chosen[s] += 1
    return chosen


def stratified(strata: Mapping[str, str], size: int, seed: int) -> list[Member]:
    """``size`` queries, ``allocation``'s share of each stratum (``strata``: query id ->
    stratum) drawn uniformly within it; each with probability n_h/N_h."""
    groups: dict[str, list[str]] = {}
    for query_id, stratum in strata.items():
        groups.setdefault(stratum, []).append(query_id)
    shares = allocation({s: len(q) for s, q in groups.items()}, size)
    members = []
    for stratum in sorted(groups):
        drawn = _permutation(groups[stratum], seed, stratum)[: shares[stratum]]
        probability = shares[stratum] / len(groups[stratum])
        members += [Member(q, probability, stratum) for q in drawn]
    return members


def inclusion_probabilities(uncertainty: Mapping[str, float], size: int) -> dict[str, float]:
    """π per query: half of the expected ``size`` spread evenly, half in proportion to the
    uncertainty (all of it evenly when no query is uncertain), capped at 1 with the excess
    spread again over the uncapped queries."""
    ids = sorted(uncertainty)
    total = len(ids)
    weights = np.array([max(float(uncertainty[q]), 0.0) for q in ids])
    share = weights / weights.sum() if weights.sum() > 0 else np.full(total, 1 / total)
    pi = size * (0.5 / total + 0.5 * share)
    capped = np.zeros(total, dtype=bool)
    while (pi > 1).any():
        capped |= pi >= 1
        rest = ~capped
        pi[capped] = 1.0
        left = size - capped.sum()
        pi[rest] = left * pi[rest] / pi[rest].sum()
    return dict(zip(ids, pi.tolist(), strict=True))


def by_uncertainty(uncertainty: Mapping[str, float], size: int, seed: int) -> list[Member]:
    """Each query drawn independently with its ``inclusion_probabilities`` (Poisson
    sampling; ``size`` is the expected number)."""
    pi = inclusion_probabilities(uncertainty, size)
    ids = sorted(pi)
    draws = np.random.default_rng(seed).random(len(ids))
    return [Member(q, pi[q]) for q, u in zip(ids, draws, strict=True) if u < pi[q]]
