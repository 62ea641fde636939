"""Pooling strategies: from systems' runs to the candidates humans will judge.

Every strategy has the same signature, ``strategy(runs, size, *, fusion) -> candidates``,
and is looked up by name in ``STRATEGIES``:

- ``depth``: the union of each system's top ``size`` per query (TREC depth-k pooling).
- ``budget``: per query, the ``size`` chunks ranked highest by fusing all the systems.
- ``active``: the union of each system's top ``size``, from which active pooling
  (``pooling.learner``) picks what to judge next as judgments arrive.

Each candidate keeps its provenance: every system that ranked it, at which rank (from 1)
and score. The order candidates are shown in comes from ``shuffle_key``, a seeded hash
that carries no hint of rank or system.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pooling.fusion import fuse
from pooling.i18n import LocalizedError, check_name
from pooling.run import Run


@dataclass(frozen=True)
class Source:
    """One system's word on a candidate: the rank (from 1) and score it gave it."""

    system: str
    rank: int | None
    score: float | None


@dataclass
class Candidate:
    """A (query, chunk) to judge, with every system that put it forward."""

    query_id: str
    chunk_id: str
    sources: list[Source] = field(default_factory=list)


def shuffle_key(seed: str, query_id: str, chunk_id: str) -> int:
    """A stable pseudo-random 62-bit key: the order of candidates within a query."""
    digest = hashlib.sha256(f"{seed}\x00{query_id}\x00{chunk_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def check_size(size: int, what: str) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise LocalizedError("size_positive", what=what, value=size)


def _query_ids(runs: Mapping[str, Run]) -> list[str]:
    return sorted({q for run in runs.values() for q in run.scores})


def depth_pool(runs: Mapping[str, Run], size: int, *, fusion: str = "rrf") -> list[Candidate]:
    """The union of each run's top ``size`` chunks per query (``fusion`` is unused)."""
    check_size(size, "depth")
    candidates: dict[tuple[str, str], Candidate] = {}
    for name, run in runs.items():
        for query_id, chunk_id, rank, score in run.entries(size):
            key = (query_id, chunk_id)
            candidate = candidates.setdefault(key, Candidate(query_id, chunk_id))
            candidate.sources.append(Source(name, rank, score))
    return sorted(candidates.values(), key=lambda c: (c.query_id, c.chunk_id))


def budget_pool(runs: Mapping[str, Run], size: int, *, fusion: str = "rrf") -> list[Candidate]:
    """Per query, the ``size`` chunks ranked highest by ``fusion`` over all ``runs``; each
    keeps the fused rank and every run's rank of it as provenance."""
    check_size(size, "budget")
    fused = fuse(list(runs.values()), fusion)
    ranks = {
        name: {(q, c): (rank, score) for q, c, rank, score in run.entries()}
        for name, run in runs.items()
    }
    candidates = []
    for query_id, chunk_id, rank, score in fused.entries(size):
        sources = [Source(fusion, rank, score)]
        for name in runs:
            found = ranks[name].get((query_id, chunk_id))
            if found is not None:
                sources.append(Source(name, *found))
        candidates.append(Candidate(query_id, chunk_id, sources))
    return sorted(candidates, key=lambda c: (c.query_id, c.chunk_id))


def active_pool(runs: Mapping[str, Run], size: int, *, fusion: str = "rrf") -> list[Candidate]:
    """The union of each run's top ``size`` chunks per query: how deep active pooling may
    reach. Each candidate's first source is its rank by ``fusion`` over all ``runs``, the
    order active pooling starts from (``pooling.learner``)."""
    check_size(size, "reach")
    fused = fuse(list(runs.values()), fusion)
    ranks = {(q, c): (rank, score) for q, c, rank, score in fused.entries()}
    candidates = depth_pool(runs, size)
    for candidate in candidates:
        found = ranks[(candidate.query_id, candidate.chunk_id)]
        candidate.sources.insert(0, Source(fusion, *found))
    return candidates


Strategy = Callable[..., list[Candidate]]
STRATEGIES: dict[str, Strategy] = {
    "depth": depth_pool,
    "budget": budget_pool,
    "active": active_pool,
}


def pool(
    runs: Mapping[str, Run], strategy: str, size: int, *, fusion: str = "rrf"
) -> list[Candidate]:
    """Candidates by the strategy called ``strategy``; raises ``ValueError`` naming the valid
    strategies when it is unknown, or when there are no runs."""
    check_name(strategy, STRATEGIES, "what_strategy")
    if not runs:
        raise LocalizedError("no_systems", valid="-")
    return STRATEGIES[strategy](runs, size, fusion=fusion)
