"""Fusion equals ranx on the same runs; the registry names the valid methods."""

from __future__ import annotations

import random
import warnings

import pytest

from pooling.fusion import combmnz, combsum, fuse, rrf
from pooling.run import Run

ranx = pytest.importorskip("ranx")


def random_runs(seed: int, n_runs: int = 3) -> list[Run]:
    rng = random.Random(seed)
    runs = []
    for r in range(n_runs):
        scores = {}
        for q in range(5):
            chunks = rng.sample([f"c{i}" for i in range(30)], rng.randint(2, 15))
            # Distinct scores: ties are ordered by id here and by insertion in ranx.
            values = rng.sample(range(1, 1000), len(chunks))
            scores[f"q{q}"] = {c: v / 10 for c, v in zip(chunks, values, strict=True)}
        runs.append(Run(scores, f"r{r}"))
    return runs


def ranx_fuse(runs: list[Run], method: str, norm: str | None) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_runs = [ranx.Run(r.to_dict(), name=r.name) for r in runs]
        return {
            q: dict(d) for q, d in ranx.fuse(ranx_runs, method=method, norm=norm).to_dict().items()
        }


def assert_same(ours: Run, theirs: dict) -> None:
    assert set(ours.scores) == set(theirs)
    for query_id, docs in theirs.items():
        assert ours.scores[query_id] == pytest.approx(docs, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rrf_equals_ranx(seed):
    runs = random_runs(seed)
    assert_same(rrf(runs), ranx_fuse(runs, "rrf", None))


@pytest.mark.parametrize(("ours", "method"), [(combsum, "sum"), (combmnz, "mnz")])
def test_combsum_and_combmnz_equal_ranx(ours, method):
    runs = random_runs(4)
    assert_same(ours(runs), ranx_fuse(runs, method, "min-max"))


def test_rrf_by_hand():
    a = Run({"q": {"x": 3.0, "y": 2.0}})
    b = Run({"q": {"y": 5.0}})
    fused = rrf([a, b], k=60)
    assert fused.scores["q"] == pytest.approx({"x": 1 / 61, "y": 1 / 62 + 1 / 61})


def test_a_run_with_equal_scores_counts_as_found():
    fused = combmnz([Run({"q": {"x": 2.0}}), Run({"q": {"x": 1.0, "y": 0.5}})])
    assert fused.scores["q"] == {"x": 4.0, "y": 0.0}


def test_registry_names_the_valid_methods(monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    with pytest.raises(
        ValueError, match="unknown fusion method 'borda'; valid: rrf, combsum, combmnz"
    ):
        fuse([Run()], "borda")
    with pytest.raises(ValueError, match="nothing to fuse"):
        fuse([], "rrf")
