"""Rank fusion: several runs in, one run out. One function per method, one signature.

``rrf`` is reciprocal rank fusion (Cormack et al. 2009): sum of 1 / (k + rank), ranks
from 1; it equals ranx's ``rrf``. ``combsum`` and ``combmnz`` (Fox & Shaw 1994) add min-max
normalised scores, the latter multiplied by how many runs found the chunk; they equal
ranx's ``sum`` and ``mnz`` with ``norm="min-max"``, except where all of a query's scores in
a run are equal: ranx then gives every chunk 0, here every chunk gets 1 (each was found,
and none was found less well).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pooling.i18n import LocalizedError, check_name
from pooling.run import Run

RRF_K = 60


def rrf(runs: Sequence[Run], k: int = RRF_K) -> Run:
    """Reciprocal rank fusion of ``runs`` with constant ``k``."""
    fused: dict[str, dict[str, float]] = {}
    for run in runs:
        for query_id in run.scores:
            scores = fused.setdefault(query_id, {})
            for rank, (chunk_id, _) in enumerate(run.ranking(query_id), start=1):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + rank)
    return Run(fused, "rrf")


def _min_max(scores: dict[str, float]) -> dict[str, float]:
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 1.0) if high > 0 else dict.fromkeys(scores, 0.0)
    return {chunk: (score - low) / (high - low) for chunk, score in scores.items()}


def _comb(runs: Sequence[Run], weigh_by_hits: bool, name: str) -> Run:
    fused: dict[str, dict[str, float]] = {}
    hits: dict[str, dict[str, int]] = {}
    for run in runs:
        for query_id, scores in run.scores.items():
            if not scores:
                continue
            total, count = fused.setdefault(query_id, {}), hits.setdefault(query_id, {})
            for chunk_id, score in _min_max(scores).items():
                total[chunk_id] = total.get(chunk_id, 0.0) + score
                count[chunk_id] = count.get(chunk_id, 0) + 1
    if weigh_by_hits:
        fused = {q: {c: s * hits[q][c] for c, s in docs.items()} for q, docs in fused.items()}
    return Run(fused, name)


def combsum(runs: Sequence[Run], k: int = RRF_K) -> Run:
    """CombSUM over min-max normalised scores (``k`` is unused; same signature as ``rrf``)."""
    return _comb(runs, weigh_by_hits=False, name="combsum")


def combmnz(runs: Sequence[Run], k: int = RRF_K) -> Run:
    """CombMNZ: CombSUM times the number of runs that found the chunk."""
    return _comb(runs, weigh_by_hits=True, name="combmnz")


FUSION: dict[str, Callable[..., Run]] = {"rrf": rrf, "combsum": combsum, "combmnz": combmnz}


def fuse(runs: Sequence[Run], method: str = "rrf", k: int = RRF_K) -> Run:
    """Fuse ``runs`` with the method called ``method``; raises ``ValueError`` naming the
    valid methods when it is unknown, or when there is nothing to fuse."""
    check_name(method, FUSION, "what_fusion")
    if not runs:
        raise LocalizedError("nothing_to_fuse")
    return FUSION[method](runs, k=k)
