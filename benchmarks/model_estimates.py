"""Metric estimates from a simulated model judge and a human sample of queries
(``pooling.estimates``: PPI++ with the power-tuned weight) against the truth, on Cranfield
and CMRC 2018 dev.

The truth is each collection's own grades (unjudged = 0, as evaluation does); a system's
true figure is its mean over every query with a relevant document. The systems are 24
retrieval configurations built with the project's retrievers and fusions (BM25 with other
k1, b, stemming, stopwords or Chinese segmenter; TF-IDF cosine over the project's tokens;
the TF-IDF + SVD vector system at four sizes; RRF, CombSUM and CombMNZ fusions), each
ranking 100 documents per query; the pool a model judges is the union of their rankings.

The model judge is a SIMULATION, never a real model's quality: a noisy ordinal judge,

    model grade = clip(floor(true grade + 0.3 + u_q + e_qd + 0.5), 0, top grade)

with a lenient bias of +0.3 grade (judges of the UMBRELA kind grade higher than NIST
assessors), a per-query leniency u_q ~ N(0, σ²/4) (a judge that misreads a query misgrades
all its candidates) and a per-candidate error e_qd ~ N(0, 3σ²/4); σ is found by bisection so
that the quadratic weighted kappa between model and truth over the pool reaches 0.3, 0.5 and
0.7 (measured again on every draw and printed). The top grade is the collection's (3 on
Cranfield, 1 on CMRC, whose grades are binary).

Each repetition draws a new judge at each kappa and, for each share (10%, 20%, 30% of the
queries), a sample of queries that people judge completely (the truth), by ``--design``:

- ``uniform`` (the default): a uniform random sample of that size, estimated by PPI++
  (``pooling.estimates.uniform``);
- ``uncertainty``: drawn as ``qrels sample --by uncertainty`` draws it, from the judge's raw
  grades of the pool alone (``annotator.labeling.sampling.uncertainty``, then
  ``pooling.query_sampling.by_uncertainty``: Poisson sampling with the recorded inclusion
  probabilities, that share of the queries expected), and estimated as ``qrels evaluate
  --estimate`` estimates such a sample (``pooling.estimates.weighted``, inverse probability
  weights), with the same calibrated predictor (fitted on the sampled queries unweighted,
  cross-fitted, as the product does). ``width_ratio``'s denominator stays the people-only
  interval of a UNIFORM sample of the expected size (what a team without a model would
  draw), and so does ``human_only_tau``; ``ipw_width_ratio`` and ``ipw_human_only_tau`` set
  it against people's grades alone on the same unequal sample (λ = 0).

The estimate's predictor is what ``qrels evaluate --estimate`` uses by default: the metric
under the judge's grades calibrated on people's (``pooling.grade_calibration``: P(human grade |
model grade) on the sampled queries, cross-fitted over 5 folds, mean of 10 drawn grade
sets); the ``raw_`` figures beside it use the judge's grades as they are (``--raw-grades``).
Per system, metric (nDCG@10, Recall@100) and setting it reports over the repetitions:

- ``coverage``: how often the 95% interval holds the true figure (all systems pooled); the
  default interval is for the query population's mean and wider than one for these exact
  queries by the s²/N term, so ``coverage_queries`` gives that narrower interval's. Where
  people's values on the sample are all equal no interval is given (``no_interval``: the
  share of system-samples so; CMRC's Recall@100 is 1 on all but a few queries);
- ``width_ratio``: the mean interval width over the human-only interval's (people's grades
  on a uniform sample, no model), at the same human budget;
- ``raw_coverage``, ``raw_width_ratio``, ``raw_tau``: the same with the raw grades;
- ``tau``, ``human_only_tau``, ``model_only_tau``: Kendall's τ-b of the systems ranked by the
  estimate, by the human-only mean on the sample and by the model's mean over every query,
  against the ranking by the truth (mean over repetitions).

Per-query metrics are computed here in numpy (equal to ``pooling.metrics`` through
ir_measures: tests/test_benchmarks.py).

    python benchmarks/model_estimates.py [--only cranfield|cmrc] [--json F] [--reps 200]
        [--design uniform|uncertainty]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotator.labeling.sampling import uncertainty  # noqa: E402
from annotator.quality.agreement import kappa_of  # noqa: E402
from pooling import estimates, grade_calibration, query_sampling  # noqa: E402
from pooling.collection import read_collection  # noqa: E402
from pooling.fusion import fuse  # noqa: E402
from pooling.qrels import Qrels  # noqa: E402
from pooling.retrievers import BM25Retriever, Corpus, TfidfSvdEncoder, VectorRetriever  # noqa: E402
from pooling.run import Run  # noqa: E402
from pooling.tokenize import Tokenizer, TokenizerConfig, pretokenized  # noqa: E402

DATASETS = Path(
    os.environ.get("QRELS_DATASETS") or Path(__file__).resolve().parents[2] / "shared" / "datasets"
)
COLLECTIONS = {"cranfield": "cranfield", "cmrc": "cmrc2018-dev"}
KAPPAS = (0.3, 0.5, 0.7)
SHARES = (0.1, 0.2, 0.3)
METRICS = ("ndcg@10", "recall@100")
DESIGNS = ("uniform", "uncertainty")
# the intervals tallied: the estimate, on raw grades, people-only on a uniform sample,
# people-only on the design's sample, the estimate for exactly these queries
INTERVALS = ("ppi", "raw", "human", "ipw", "exact")
DEPTH = 100
LENIENCY = 0.3  # grades
QUERY_SHARE = 0.25  # of the judge's noise variance, shared by a query's candidates
SEED = 24
DISCOUNT = 1 / np.log2(np.arange(2, 12))  # ranks 1..10


# -- the systems ------------------------------------------------------------------------------


def tfidf_run(corpus: Corpus, queries: dict[str, str], tokenizer: Tokenizer, sublinear: bool):
    """TF-IDF cosine over the project's tokens (scikit-learn), top ``DEPTH``."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(analyzer=pretokenized, sublinear_tf=sublinear)
    documents = vectorizer.fit_transform(tokenizer(corpus.texts))
    similarity = (vectorizer.transform(tokenizer(list(queries.values()))) @ documents.T).toarray()
    scores = {}
    for query_id, row in zip(queries, similarity, strict=True):
        top = np.argsort(-row, kind="stable")[:DEPTH]
        scores[query_id] = {corpus.ids[i]: float(row[i]) for i in top if row[i] > 0}
    return Run(scores, "tfidf" + ("-sublinear" if sublinear else ""))


def build_systems(corpus: Corpus, queries: dict[str, str], chinese: bool) -> dict[str, Run]:
    """The 24 configurations, by name, each ranking ``DEPTH`` documents per query."""
    language = "zh" if chinese else "en"
    base = TokenizerConfig(language=language)
    plain = TokenizerConfig(language=language, stem=False, stopwords=False)
    variant = (
        {"bm25 bigram": TokenizerConfig(language=language, chinese="bigram")}
        if chinese
        else {"bm25 no stem": TokenizerConfig(language=language, stem=False)}
    )
    lexical = {
        "bm25": (base, 1.5, 0.75),
        "bm25 k1=0.9 b=0.4": (base, 0.9, 0.4),
        "bm25 k1=1.2": (base, 1.2, 0.75),
        "bm25 k1=2.0": (base, 2.0, 0.75),
        "bm25 b=0.3": (base, 1.5, 0.3),
        "bm25 b=1.0": (base, 1.5, 1.0),
        "bm25 k1=0.3": (base, 0.3, 0.75),
        **{name: (config, 1.5, 0.75) for name, config in variant.items()},
        "bm25 stopwords kept": (TokenizerConfig(language=language, stopwords=False), 1.5, 0.75),
        "bm25 plain tokens": (plain, 1.5, 0.75),
    }
    runs: dict[str, Run] = {}
    for name, (config, k1, b) in lexical.items():
        retriever = BM25Retriever(corpus, config, k1=k1, b=b, name=name)
        runs[name] = retriever.search(queries, DEPTH)
    tokenizer = Tokenizer(base)
    for sublinear in (False, True):
        run = tfidf_run(corpus, queries, tokenizer, sublinear)
        runs[run.name] = run
    for dim in (32, 64, 128, 256):
        name = f"vector {dim}"
        runs[name] = VectorRetriever(corpus, TfidfSvdEncoder(base, dim), name=name).search(
            queries, DEPTH
        )
    fusions = {
        "rrf(bm25, vector)": ("rrf", ["bm25", "vector 256"], 60),
        "rrf k=10 (bm25, vector)": ("rrf", ["bm25", "vector 256"], 10),
        "combsum(bm25, vector)": ("combsum", ["bm25", "vector 256"], 60),
        "combmnz(bm25, vector)": ("combmnz", ["bm25", "vector 256"], 60),
        "rrf(bm25 variants)": ("rrf", list(lexical), 60),
        "rrf(bm25, tfidf, vector)": ("rrf", ["bm25", "tfidf", "vector 256"], 60),
        "rrf(bm25 plain, vector 64)": ("rrf", ["bm25 plain tokens", "vector 64"], 60),
        "combsum(bm25 k1=0.9, tfidf)": ("combsum", ["bm25 k1=0.9 b=0.4", "tfidf"], 60),
    }
    for name, (method, over, k) in fusions.items():
        fused = fuse([runs[n] for n in over], method, k=k).top(DEPTH)
        runs[name] = Run(fused.scores, name)
    return runs


# -- per-query metrics, vectorised ------------------------------------------------------------


@dataclass
class Bench:
    """One collection ready to score: ``ranked[s, q, r]`` is the pool pair (query, document)
    at rank r of system s on query q (-1: nothing there); ``pair_query`` and ``pair_doc``
    the query (position) and document of each pair; ``truth_pair`` the collection's grade
    of each pair; ``truth`` per metric the true per-query values ``[S, Q]``."""

    name: str
    systems: list[str]
    query_ids: list[str]
    ranked: np.ndarray
    pair_query: np.ndarray
    pair_doc: list[str]
    truth_pair: np.ndarray
    top_grade: int
    truth: dict[str, np.ndarray]


def per_query(
    ranked_grades: np.ndarray, ideal_counts: np.ndarray, relevant: np.ndarray
) -> dict[str, np.ndarray]:
    """nDCG@10 (gain = grade, discount log2(rank + 1), as trec_eval's ndcg_cut) and
    Recall@100 (grade >= 1) from ``ranked_grades[..., S, Q, 100]`` (the grade at each rank),
    ``ideal_counts[..., Q, 4]`` (how many judged documents have each grade) and
    ``relevant[..., Q]`` (how many have grade >= 1). 0 where a query has nothing relevant."""
    dcg = (ranked_grades[..., :10] * DISCOUNT).sum(-1)
    # The ideal top 10 from the counts: 3s first, then 2s, then 1s.
    above = np.cumsum(ideal_counts[..., ::-1], axis=-1)[..., :3]  # >=3, >=2, >=1
    ranks = np.arange(10)
    ideal_gain = (ranks[:, None] < above[..., None, :]).sum(-1)  # [..., Q, 10]
    idcg = (ideal_gain * DISCOUNT).sum(-1)[..., None, :]
    found = (ranked_grades[..., :DEPTH] >= 1).sum(-1)
    rel = relevant[..., None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        ndcg = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)
        recall = np.where(rel > 0, found / np.where(rel > 0, rel, 1), 0.0)
    return {"ndcg@10": ndcg, "recall@100": recall}


def prepare(name: str, runs: dict[str, Run], qrels: Qrels) -> Bench:
    """The pool of ``runs`` over the queries with a relevant document, and the truth."""
    query_ids = sorted(q for q in qrels.relevant() if any(q in run for run in runs.values()))
    systems = list(runs)
    index: dict[tuple[int, str], int] = {}
    ranked = np.full((len(systems), len(query_ids), DEPTH), -1, dtype=np.int64)
    for s, run in enumerate(runs.values()):
        for q, query_id in enumerate(query_ids):
            for r, (doc, _) in enumerate(run.ranking(query_id, DEPTH)):
                ranked[s, q, r] = index.setdefault((q, doc), len(index))
    pair_query = np.array([q for q, _ in index], dtype=np.int64)
    truth_pair = np.array([qrels[query_ids[q]].get(doc, 0) for q, doc in index], dtype=np.int64)
    counts = np.zeros((len(query_ids), 4), dtype=np.int64)
    for q, query_id in enumerate(query_ids):
        for grade in qrels[query_id].values():
            counts[q, grade] += 1
    grades = np.append(truth_pair, 0)[ranked]  # -1 (nothing ranked) reads the appended 0
    truth = per_query(grades, counts, counts[:, 1:].sum(-1))
    top = max(g for judged in qrels.grades.values() for g in judged.values())
    pair_doc = [doc for _, doc in index]
    return Bench(name, systems, query_ids, ranked, pair_query, pair_doc, truth_pair, top, truth)


def model_figures(bench: Bench, grades: np.ndarray) -> dict[str, np.ndarray]:
    """Per-query metrics ``[..., S, Q]`` under a judge's ``grades[..., pairs]`` of the
    pool's pairs (the model's qrels hold the pool only)."""
    queries = len(bench.query_ids)
    flat = grades.reshape(-1, grades.shape[-1])
    offsets = np.arange(len(flat))[:, None] * queries + bench.pair_query[None, :]
    counts = np.stack(
        [
            np.bincount(offsets.ravel(), weights=(flat == g).ravel(), minlength=len(flat) * queries)
            for g in range(4)
        ],
        axis=-1,
    ).reshape(*grades.shape[:-1], queries, 4)
    padded = np.concatenate([grades, np.zeros((*grades.shape[:-1], 1), grades.dtype)], -1)
    ranked = padded[..., bench.ranked]  # -1 (nothing ranked) reads the appended 0
    return per_query(ranked, counts, counts[..., 1:].sum(-1))


def calibrated_figures(
    bench: Bench, grades: np.ndarray, sampled: np.ndarray, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Per-query metrics ``[S, Q]`` under the judge's grades calibrated on people's on the
    ``sampled`` queries (``pooling.grade_calibration``, cross-fitted): the mean over the draws."""
    drawn = grade_calibration.calibrated_grades(
        bench.pair_query, grades, bench.truth_pair, sampled, rng
    )
    # int8: the draws x systems x queries x 100 grades fit in memory on CMRC too
    return {m: v.mean(0) for m, v in model_figures(bench, drawn.astype(np.int8)).items()}


# -- the simulated judge ----------------------------------------------------------------------


def judge(bench: Bench, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """One draw of the noisy ordinal judge's grades of the pool (see the module docstring)."""
    return noisy_grades(
        bench.truth_pair, bench.pair_query, len(bench.query_ids), bench.top_grade, sigma, rng
    )


def noisy_grades(
    truth: np.ndarray,
    pair_query: np.ndarray,
    queries: int,
    top_grade: int,
    sigma: float,
    rng: np.random.Generator,
    overlap: np.ndarray | None = None,
    lean: float = 0.0,
) -> np.ndarray:
    """The judge's grades of pairs of true grade ``truth`` and query ``pair_query`` (a
    position among ``queries``). With ``overlap`` (each pair's word overlap with its query,
    standardised) the per-candidate error correlates ``lean`` with it: a judge swayed by
    shared words (``benchmarks/pool_recall.py``'s ``lenient`` judge)."""
    per_query_shift = rng.normal(0, sigma * math.sqrt(QUERY_SHARE), queries)
    error = rng.normal(0, sigma * math.sqrt(1 - QUERY_SHARE), len(truth))
    if overlap is not None:
        error = math.sqrt(1 - lean**2) * error + lean * sigma * math.sqrt(1 - QUERY_SHARE) * overlap
    noisy = truth + LENIENCY + per_query_shift[pair_query] + error
    return np.clip(np.floor(noisy + 0.5), 0, top_grade).astype(np.int64)


def quadratic_kappa(truth: np.ndarray, grades: np.ndarray) -> float:
    confusion = np.bincount(truth * 4 + grades, minlength=16).reshape(4, 4)
    return float(kappa_of(confusion, "quadratic").value)


def calibrate(bench: Bench, target: float, draws: int = 8) -> float:
    """The σ at which the judge's quadratic kappa against the truth, averaged over ``draws``
    fixed draws of the normals (so that kappa falls steadily as σ grows), is ``target``."""
    return calibrate_sigma(bench.truth_pair, lambda s, rng: judge(bench, s, rng), target, draws)


def calibrate_sigma(truth: np.ndarray, draw, target: float, draws: int = 8) -> float:
    """``calibrate`` for any judge: ``draw(sigma, rng)`` gives its grades of ``truth``'s pairs."""
    low, high = 0.0, 8.0
    for _ in range(30):
        sigma = (low + high) / 2
        kappa = np.mean(
            [quadratic_kappa(truth, draw(sigma, np.random.default_rng(d))) for d in range(draws)]
        )
        low, high = (sigma, high) if kappa > target else (low, sigma)
    return (low + high) / 2


# -- the experiment ---------------------------------------------------------------------------


def kendall(values: np.ndarray, truth: np.ndarray) -> float:
    return float(stats.kendalltau(values, truth).statistic)


def uniform_sample(rng: np.random.Generator, queries: int, share: float) -> np.ndarray:
    sampled = np.zeros(queries, dtype=bool)
    sampled[rng.permutation(queries)[: round(share * queries)]] = True
    return sampled


def uncertainty_sample(
    bench: Bench, grades: np.ndarray, share: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(sampled, π)`` per query as ``qrels sample --by uncertainty`` draws them from the
    judge's raw ``grades`` of the pool alone (``annotator.labeling.sampling.uncertainty``,
    ``pooling.query_sampling.by_uncertainty``), ``share`` of the queries expected."""
    ids = bench.query_ids
    counts = np.bincount(bench.pair_query, minlength=len(ids)).tolist()
    candidates = dict(zip(ids, counts, strict=True))
    graded = list(zip([ids[q] for q in bench.pair_query], grades.tolist(), strict=True))
    unsure = uncertainty(candidates, graded, ids)
    size = round(share * len(ids))
    pi = query_sampling.inclusion_probabilities(unsure, size)
    drawn = {m.query_id for m in query_sampling.by_uncertainty(unsure, size, seed)}
    return np.array([q in drawn for q in ids]), np.array([pi[q] for q in ids])


def experiment(bench: Bench, reps: int, design: str = "uniform") -> list[dict]:
    """One row per (kappa, share, metric) over ``reps`` repetitions, the human sample drawn
    by ``design`` (``DESIGNS``). Under either design the width ratio's denominator is the
    people-only interval of a UNIFORM sample of the same size (what a team without a model
    would draw); under ``uncertainty`` the ``ipw_`` figures are the people-only IPW
    estimate on the same unequal sample."""
    queries = len(bench.query_ids)
    truth_mean = {m: bench.truth[m].mean(-1) for m in METRICS}
    sigmas = {k: calibrate(bench, k) for k in KAPPAS}
    keys = [(k, s, m) for k in KAPPAS for s in SHARES for m in METRICS]
    tally: dict[tuple, dict[str, list]] = {key: {} for key in keys}
    measured: dict[float, list[float]] = {k: [] for k in KAPPAS}

    def add(key, name, value):
        tally[key].setdefault(name, []).append(value)

    for rep in range(reps):
        rng = np.random.default_rng([SEED, rep])
        uniform = {share: uniform_sample(rng, queries, share) for share in SHARES}
        # the unequal samples' seeds and calibration draws apart: the uniform rows stay as they were
        design_rng = np.random.default_rng([SEED, rep, 1])
        for kappa in KAPPAS:
            grades = judge(bench, sigmas[kappa], rng)
            measured[kappa].append(quadratic_kappa(bench.truth_pair, grades))
            model = model_figures(bench, grades)
            drawn: dict[float, tuple[np.ndarray, np.ndarray | None]]
            if design == "uniform":
                drawn = {share: (sampled, None) for share, sampled in uniform.items()}
                calibration_rng = rng
            else:
                drawn = {
                    share: uncertainty_sample(bench, grades, share, int(design_rng.integers(2**31)))
                    for share in SHARES
                }
                calibration_rng = design_rng
            # the product calibrates on the sampled queries as they are, unweighted, whatever
            # the design (annotator.evaluation.estimation); cross-fitting keeps it honest
            calibrated = {
                share: calibrated_figures(bench, grades, sampled, calibration_rng)
                for share, (sampled, _) in drawn.items()
            }
            for metric in METRICS:
                truth, human = truth_mean[metric], bench.truth[metric]
                model_only = model[metric].mean(-1)
                for share, (sampled, pi) in drawn.items():
                    key = (kappa, share, metric)
                    predicted = calibrated[share][metric]
                    tuned = estimates.parts(predicted, human, sampled, probabilities=pi)
                    raw = estimates.parts(model[metric], human, sampled, probabilities=pi)
                    exact = estimates.parts(
                        predicted, human, sampled, probabilities=pi, population=False
                    )
                    ipw = estimates.parts(
                        model[metric], human, sampled, probabilities=pi, weight=0.0
                    )
                    alone = estimates.uniform(model[metric], human, uniform[share], weight=0.0)
                    add(key, "given", tuned.varies.mean())
                    add(key, "n", sampled.sum())
                    for name, parts in zip(INTERVALS, (tuned, raw, alone, ipw, exact), strict=True):
                        given = parts.varies  # where people's values vary on the sample
                        low, high = parts.interval()
                        covered = (low <= truth) & (truth <= high)
                        add(key, f"{name}_covered", covered[given].sum())
                        add(key, f"{name}_width", (high - low)[given].sum())
                        add(key, f"{name}_intervals", given.sum())
                    add(key, "tau", kendall(tuned.value, truth))
                    add(key, "raw_tau", kendall(raw.value, truth))
                    add(key, "human_only_tau", kendall(alone.value, truth))
                    add(key, "ipw_human_only_tau", kendall(ipw.value, truth))
                    add(key, "model_only_tau", kendall(model_only, truth))
                    add(key, "weight", tuned.weight.mean())
                    add(key, "model_only_error", (model_only - truth).mean())
    rows = []
    for kappa, share, metric in keys:
        t = {name: float(np.mean(values)) for name, values in tally[(kappa, share, metric)].items()}
        counted = {name: float(np.sum(v)) for name, v in tally[(kappa, share, metric)].items()}

        intervals = {name: max(counted[f"{name}_intervals"], 1) for name in INTERVALS}
        coverage = {name: counted[f"{name}_covered"] / intervals[name] for name in INTERVALS}
        width = {name: counted[f"{name}_width"] / intervals[name] for name in INTERVALS}  # mean

        rows.append(
            {
                "collection": bench.name,
                "design": design,
                "kappa": kappa,
                "kappa_measured": float(np.mean(measured[kappa])),
                "sigma": sigmas[kappa],
                "share": share,
                "human_queries": round(share * queries),
                "mean_human_queries": t["n"],
                "queries": queries,
                "systems": len(bench.systems),
                "reps": reps,
                "metric": metric,
                "coverage": coverage["ppi"],
                "coverage_queries": coverage["exact"],
                "human_only_coverage": coverage["human"],
                "ipw_human_only_coverage": coverage["ipw"],
                "raw_coverage": coverage["raw"],
                "raw_width_ratio": width["raw"] / width["human"],
                "raw_tau": t["raw_tau"],
                "no_interval": 1 - t["given"],
                "width_ratio": width["ppi"] / width["human"],
                "width_ratio_queries": width["exact"] / width["human"],
                "ipw_width_ratio": width["ppi"] / width["ipw"],
                "tau": t["tau"],
                "human_only_tau": t["human_only_tau"],
                "ipw_human_only_tau": t["ipw_human_only_tau"],
                "model_only_tau": t["model_only_tau"],
                "mean_weight": t["weight"],
                "model_only_error": t["model_only_error"],
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(COLLECTIONS), help="one collection")
    parser.add_argument("--json", type=Path, help="write the rows to this file as JSON")
    parser.add_argument("--reps", type=int, default=200, help="repetitions (default 200)")
    parser.add_argument(
        "--design", choices=DESIGNS, default=DESIGNS[0], help="how people's queries are drawn"
    )
    args = parser.parse_args()
    if not DATASETS.is_dir():
        print(f"skipped: no real collections at {DATASETS}")
        return
    os.environ.setdefault("QRELS_CACHE_DIR", tempfile.mkdtemp(prefix="qrels-bench-"))
    print(
        "Simulated judge (not a real model): grade = clip(floor(truth + "
        f"{LENIENCY} + u_q + e_qd + 0.5), 0, top); u_q ~ N(0, {QUERY_SHARE}σ²), "
        f"e_qd ~ N(0, {1 - QUERY_SHARE}σ²); σ set per target kappa (quadratic, over the pool)."
    )
    rows: list[dict] = []
    for short in [args.only] if args.only else list(COLLECTIONS):
        started = time.perf_counter()
        collection = read_collection(DATASETS / COLLECTIONS[short], allow_empty=True)
        corpus = collection.retrieval_corpus(f"bench-{short}")
        queries = {q.query_id: q.text for q in collection.queries}
        qrels = Qrels.from_file(DATASETS / COLLECTIONS[short] / "qrels.tsv")
        runs = build_systems(corpus, queries, chinese=short == "cmrc")
        bench = prepare(short, runs, qrels)
        print(
            f"\n{short}: {len(bench.query_ids)} queries with a relevant document, "
            f"{len(bench.systems)} systems, pool of {len(bench.truth_pair)} pairs "
            f"(built in {time.perf_counter() - started:.0f} s)"
        )
        print(f"systems: {', '.join(bench.systems)}")
        found = experiment(bench, args.reps, args.design)
        rows += found
        print_table(found)
        print(f"({time.perf_counter() - started:.0f} s)")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


def print_table(rows: list[dict]) -> None:
    print(
        "\n| design | κ target | κ measured | human share (n; mean drawn) | metric | coverage "
        "| coverage, these queries | no interval | width ratio | τ estimate | τ human-only "
        "| τ model-only | mean λ | raw grades: coverage | width ratio | τ "
        "| vs people-only IPW on the same sample: width ratio | its τ |"
    )
    print(
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    for r in rows:
        print(
            f"| {r['design']} | {r['kappa']} | {r['kappa_measured']:.3f} | {r['share']:.0%} "
            f"({r['human_queries']}; {r['mean_human_queries']:.1f}) | {r['metric']} "
            f"| {r['coverage']:.3f} | {r['coverage_queries']:.3f} | {r['no_interval']:.1%} "
            f"| {r['width_ratio']:.2f} | {r['tau']:.3f} | {r['human_only_tau']:.3f} "
            f"| {r['model_only_tau']:.3f} | {r['mean_weight']:.2f} "
            f"| {r['raw_coverage']:.3f} | {r['raw_width_ratio']:.2f} | {r['raw_tau']:.3f} "
            f"| {r['ipw_width_ratio']:.2f} | {r['ipw_human_only_tau']:.3f} |"
        )


if __name__ == "__main__":
    main()
