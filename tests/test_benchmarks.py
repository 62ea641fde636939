"""benchmarks/model_estimates.py scores runs in numpy; its per-query nDCG@10 and Recall@100
equal the project's metrics (pooling.metrics through ir_measures, i.e. trec_eval), on a
random case (one set of grades or several at once) and on Cranfield with the collection's
grades and with a simulated judge's."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

from pooling.metrics import Metric
from pooling.qrels import Qrels
from pooling.run import Run
from tests.conftest import benchmark_module

METRICS = {"ndcg@10": Metric("ndcg", 10), "recall@100": Metric("recall", 100)}


@pytest.fixture(scope="module")
def bench_module():
    yield benchmark_module("model_estimates")
    sys.modules.pop("model_estimates", None)


def measured(runs: dict[str, Run], qrels: dict, query_ids: list[str]) -> dict[str, np.ndarray]:
    """Per metric ``[S, Q]`` from ir_measures, as annotator.evaluation scores a run (a
    query a run ranks nothing for scores 0)."""
    import ir_measures

    values = {name: np.zeros((len(runs), len(query_ids))) for name in METRICS}
    position = {q: i for i, q in enumerate(query_ids)}
    judged = {q: qrels[q] for q in query_ids}
    for s, run in enumerate(runs.values()):
        scores = {q: dict(run.ranking(q, 100)) for q in query_ids if run.scores.get(q)}
        measures = {str(m.measure()): name for name, m in METRICS.items()}
        for row in ir_measures.iter_calc([m.measure() for m in METRICS.values()], judged, scores):
            values[measures[str(row.measure)]][s, position[row.query_id]] = row.value
    return values


def random_case(rng: np.random.Generator) -> tuple[dict[str, Run], dict, list[str]]:
    """Three systems ranking 120 of 150 documents for 8 queries, and graded qrels."""
    documents = [f"d{i}" for i in range(150)]
    query_ids = [f"q{i}" for i in range(8)]
    runs = {
        f"s{s}": Run(
            {
                q: {d: float(rng.integers(0, 5)) for d in rng.choice(documents, 120, False)}
                for q in query_ids
                if not (s == 2 and q == "q3")  # a query one system ranks nothing for
            },
            f"s{s}",
        )
        for s in range(3)
    }
    grades = {
        q: {d: int(rng.integers(0, 4)) for d in rng.choice(documents, 40, False)} for q in query_ids
    }
    return runs, grades, query_ids


def test_the_numpy_metrics_equal_ir_measures_on_a_random_case(bench_module):
    rng = np.random.default_rng(0)
    runs, grades, _ = random_case(rng)
    bench = bench_module.prepare("random", runs, Qrels(grades))
    expected = measured(runs, grades, bench.query_ids)
    for name in METRICS:
        np.testing.assert_allclose(bench.truth[name], expected[name], atol=1e-9)
    # Several sets of grades at once (the calibrated draws) score as each set alone.
    drawn = rng.integers(0, 4, (3, len(bench.truth_pair))).astype(np.int8)
    together = bench_module.model_figures(bench, drawn)
    for d in range(3):
        alone = bench_module.model_figures(bench, drawn[d].astype(np.int64))
        for name in METRICS:
            np.testing.assert_allclose(together[name][d], alone[name], atol=1e-12)


def test_the_uncertainty_design_draws_as_qrels_sample_does_from_the_model_s_grades(
    bench_module,
):
    from pooling import query_sampling

    rng = np.random.default_rng(1)
    runs, grades, _ = random_case(rng)
    bench = bench_module.prepare("random", runs, Qrels(grades))
    model = rng.integers(0, 4, len(bench.truth_pair))
    sampled, pi = bench_module.uncertainty_sample(bench, model, 0.5, seed=5)
    # the product's uncertainty: the share of a query's candidates graded 1 or 2
    borderline = np.bincount(bench.pair_query, weights=np.isin(model, (1, 2)))
    unsure = dict(zip(bench.query_ids, borderline / np.bincount(bench.pair_query), strict=True))
    expected = query_sampling.inclusion_probabilities(unsure, 4)
    np.testing.assert_allclose(pi, [expected[q] for q in bench.query_ids])
    assert pi.sum() == pytest.approx(4)  # the expected size
    drawn = {m.query_id for m in query_sampling.by_uncertainty(unsure, 4, 5)}
    assert [q for q, s in zip(bench.query_ids, sampled, strict=True) if s] == sorted(drawn)
    # no truth in the design: other true grades draw the same sample
    other = dataclasses.replace(bench, truth_pair=np.zeros_like(bench.truth_pair))
    again, pi_again = bench_module.uncertainty_sample(other, model, 0.5, seed=5)
    assert (again == sampled).all() and (pi_again == pi).all()


@pytest.mark.datasets
def test_the_numpy_metrics_equal_ir_measures_on_cranfield(
    bench_module, datasets, tmp_path, monkeypatch
):
    from pooling.collection import read_collection
    from pooling.fusion import rrf
    from pooling.retrievers import BM25Retriever, VectorRetriever

    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    collection = read_collection(datasets / "cranfield", allow_empty=True)
    corpus = collection.retrieval_corpus("test-cranfield")
    queries = {q.query_id: q.text for q in collection.queries}
    qrels = Qrels.from_file(datasets / "cranfield" / "qrels.tsv")
    bm25 = BM25Retriever(corpus).search(queries, 100)
    vector = VectorRetriever(corpus).search(queries, 100)
    runs = {"bm25": bm25, "vector": vector, "rrf": Run(rrf([bm25, vector]).top(100).scores)}
    bench = bench_module.prepare("cranfield", runs, qrels)
    expected = measured(runs, qrels, bench.query_ids)
    for name in METRICS:
        np.testing.assert_allclose(bench.truth[name], expected[name], atol=1e-9)
    # A simulated judge's grades of the pool, as qrels of their own.
    grades = bench_module.judge(bench, 0.4, np.random.default_rng(1))
    model_qrels: dict[str, dict[str, int]] = {}
    for q, doc, grade in zip(bench.pair_query, bench.pair_doc, grades, strict=True):
        model_qrels.setdefault(bench.query_ids[q], {})[doc] = int(grade)
    model = bench_module.model_figures(bench, grades)
    expected = measured(runs, model_qrels, bench.query_ids)
    for name in METRICS:
        np.testing.assert_allclose(model[name], expected[name], atol=1e-9)
