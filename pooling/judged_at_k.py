"""Can a release fairly score a run it was not built from? Judged@k per query, and the
unjudged chunks in the run's top k, from the release's qrels and the run alone: evaluation
reports it beside the scores, and ``qrels coverage`` (``annotator.pools.judged``) adds the
unjudged chunks to a pool."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from pooling.pool import Candidate, Source
from pooling.run import Run


@dataclass
class CoverageReport:
    """``per_query``: query_id, k, judged (in the top k), retrieved (up to k), judged_at_k;
    ``overall``: k -> mean Judged@k over the release's queries (one the run misses
    counts 0);
    ``unjudged``: (query_id, chunk_id, rank, score) in the top max(k), not in the release."""

    per_query: pd.DataFrame
    overall: dict[int, float]
    unjudged: list[tuple[str, str, int, float]]


def coverage(qrels: Mapping[str, Mapping[str, int]], run: Run, ks: list[int]) -> CoverageReport:
    """Judged@k: the judged share of the top k of each of the release's queries (a shorter
    ranking on its own length), the top k being the ranking every metric reads,
    trec_eval's: score descending, ties by id *descending* (``Run.ranking``). That is
    ir_measures' ``Judged@k`` of the run in that order (``run_files.trec_order``, as
    evaluate hands runs to ir_measures), and it differs from ir_measures' ``Judged@k`` of
    the raw run in exactly two ways: ir_measures breaks ties by id *ascending* (its
    ``JudgedProvider``; so where tied scores straddle k, the two count different items),
    and it passes over a query the run ranks nothing for, which counts 0 here."""
    rows, unjudged = [], []
    for query_id in sorted(q for q in qrels if qrels[q]):
        ranking = run.ranking(query_id, max(ks))
        for k in ks:
            top = ranking[:k]
            judged = sum(chunk in qrels[query_id] for chunk, _ in top)
            rows.append((query_id, k, judged, len(top), judged / len(top) if top else 0.0))
        for rank, (chunk, score) in enumerate(ranking, start=1):
            if chunk not in qrels[query_id]:
                unjudged.append((query_id, chunk, rank, score))
    frame = pd.DataFrame(rows, columns=["query_id", "k", "judged", "retrieved", "judged_at_k"])
    overall = {k: float(frame[frame["k"] == k]["judged_at_k"].mean()) for k in ks} if rows else {}
    return CoverageReport(frame, overall, unjudged)


def topup_candidates(report: CoverageReport, system: str) -> list[Candidate]:
    """The unjudged chunks as pool candidates, with the run as their provenance."""
    return [
        Candidate(query_id, chunk_id, [Source(system, rank, score)])
        for query_id, chunk_id, rank, score in report.unjudged
    ]
