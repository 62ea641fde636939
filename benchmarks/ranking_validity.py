"""Whether a pool's human judgments rank retrieval systems as the full judgments do.

On Cranfield and CMRC 2018 dev the collection's own grades are the full judgments and
stand in for people. The systems are the 24 configurations of
``benchmarks/model_estimates.py`` (BM25 variants, TF-IDF, the TF-IDF + SVD vector system at
four sizes, fusions), each ranking 100 documents per query. For each pooling strategy and
budget B (5, 10, 20 judgments per query) the pool's qrels are the true grades of the
chunks it put before people, every other chunk counting 0; each system's mean nDCG@10
under those qrels is set against its mean under the full qrels (Kendall's tau-b over the
systems). Strategies, as ``benchmarks/pool_recall.py`` runs them over the union of bm25's
and the vector system's rankings:

- ``fused``: the B best by reciprocal rank fusion of bm25 and vector;
- ``active``: active pooling, people's (the truth's) judgments teaching it;
- ``guided``: active pooling guided by a simulated model judge (``independent`` or
  ``lenient``, at quadratic kappa 0.3, 0.5, 0.7), as ``pool_recall.py`` draws it.

nDCG@10 as trec_eval's ndcg_cut (gain = grade); a query counts when it has a relevant
document under the full qrels, and scores 0 under a pool's qrels where the pool found
nothing relevant for it.

    python benchmarks/ranking_validity.py [--only cranfield] [--json F] [--every N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

# the simulated judge and the strategies of this folder's other benchmarks (on sys.path when run)
from model_estimates import COLLECTIONS, DATASETS, KAPPAS, build_systems  # noqa: E402
from pool_recall import (  # noqa: E402
    JUDGES,
    active_candidates,
    active_judging,
    guided_judging,
    simulated_chances,
)
from scipy import stats

from annotator.pools.pool_building import ACTIVE_REACH
from pooling.collection import read_collection
from pooling.fusion import rrf
from pooling.learner import StoppingRule
from pooling.qrels import Qrels
from pooling.retrievers import BM25Retriever, VectorRetriever
from pooling.run import Run
from pooling.systems import ACTIVE_PRIOR_DEPTH
from pooling.tokenize import Tokenizer

BUDGETS = (5, 10, 20)
DISCOUNT = 1 / np.log2(np.arange(2, 12))


def mean_ndcg(run: Run, qrels: dict[str, dict[str, int]], query_ids: list[str]) -> float:
    """Mean nDCG@10 of ``run`` over ``query_ids`` under ``qrels`` (0 where nothing known
    relevant)."""
    values = []
    for query_id in query_ids:
        grades = qrels.get(query_id, {})
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:10]
        if not ideal:
            values.append(0.0)
            continue
        gains = [grades.get(doc, 0) for doc, _ in run.ranking(query_id, 10)]
        dcg = float(np.dot(gains, DISCOUNT[: len(gains)]))
        values.append(dcg / float(np.dot(ideal, DISCOUNT[: len(ideal)])))
    return float(np.mean(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(COLLECTIONS), help="one collection")
    parser.add_argument("--json", type=Path, help="write the rows to this file as JSON")
    parser.add_argument("--every", type=int, default=1, help="every n-th query only (quicker)")
    parser.add_argument("--judges", default=",".join(JUDGES), help="simulated judges ('': none)")
    parser.add_argument("--kappas", default=",".join(map(str, KAPPAS)), help="the judges' kappas")
    args = parser.parse_args()
    if not DATASETS.is_dir():
        print(f"skipped: no real collections at {DATASETS}")
        return
    os.environ.setdefault("QRELS_CACHE_DIR", tempfile.mkdtemp(prefix="qrels-bench-"))
    rows: list[dict] = []
    print("| collection | strategy | judge | kappa | budget | tau | systems | queries |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for short in [args.only] if args.only else list(COLLECTIONS):
        folder = DATASETS / COLLECTIONS[short]
        collection = read_collection(folder, allow_empty=True)
        corpus = collection.retrieval_corpus(f"bench-{short}")
        truth = Qrels.from_file(folder / "qrels.tsv")
        relevant = collection.relevant
        query_ids = sorted(relevant)[:: args.every]
        relevant = {q: relevant[q] for q in query_ids}
        texts = {q.query_id: q.text for q in collection.queries}
        queries = {q: texts[q] for q in query_ids}
        systems = build_systems(corpus, queries, chinese=short == "cmrc")
        full = {q: dict(truth[q]) for q in query_ids}
        true_means = np.array([mean_ndcg(run, full, query_ids) for run in systems.values()])

        reach = ACTIVE_REACH * max(BUDGETS)
        depth = ACTIVE_PRIOR_DEPTH * reach
        bm25 = BM25Retriever(corpus).search(queries, depth)
        vector = VectorRetriever(corpus).search(queries, depth)
        fused = rrf([bm25, vector])
        prepared = active_candidates(corpus, queries, [bm25, vector], reach)
        asked: dict[tuple[str, str, float | None], dict[str, list[str]]] = {
            ("fused", "none", None): {
                q: [c for c, _ in fused.ranking(q, max(BUDGETS))] for q in query_ids
            },
            ("active", "none", None): active_judging(
                prepared, queries, relevant, StoppingRule(budget=max(BUDGETS), below=0), False
            ),
        }
        tokenizer = Tokenizer().resolved(corpus.texts)
        tokens = dict(zip(corpus.ids, tokenizer(corpus.texts), strict=True))
        for judge in args.judges.split(",") if args.judges else ():
            for kappa in [float(k) for k in args.kappas.split(",")]:
                chances, _ = simulated_chances(
                    prepared, queries, truth, judge, kappa, tokenizer, tokens
                )
                asked["guided", judge, kappa] = guided_judging(
                    prepared, relevant, chances, max(BUDGETS)
                )
        for (strategy, judge, kappa), chunks in asked.items():
            for budget in BUDGETS:
                pooled = {
                    q: {c: full[q].get(c, 0) for c in chunks.get(q, [])[:budget]} for q in query_ids
                }
                means = [mean_ndcg(run, pooled, query_ids) for run in systems.values()]
                tau = float(stats.kendalltau(means, true_means).statistic)
                rows.append(
                    {
                        "collection": short,
                        "strategy": strategy,
                        "judge": judge,
                        "kappa": kappa,
                        "budget": budget,
                        "tau": tau,
                        "systems": len(systems),
                        "queries": len(query_ids),
                    }
                )
                print(
                    f"| {short} | {strategy} | {judge} | {kappa or '-'} | {budget} | {tau:.3f} "
                    f"| {len(systems)} | {len(query_ids)} |"
                )
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
