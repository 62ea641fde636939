"""Pooling strategies, provenance, shuffle order, and the systems a pool is built from."""

from __future__ import annotations

import pytest

from pooling.pool import Source, budget_pool, depth_pool, pool, shuffle_key
from pooling.run import Run
from pooling.systems import RetrievalOptions, build_candidates, parse_systems, run_systems

A = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}, "A")
B = Run({"q1": {"c": 9.0, "d": 8.0, "a": 0.5}}, "B")


def test_depth_pool_is_the_union_of_top_k_with_provenance():
    candidates = depth_pool({"A": A, "B": B}, 2)
    by_key = {(c.query_id, c.chunk_id): c.sources for c in candidates}
    assert set(by_key) == {("q1", "a"), ("q1", "b"), ("q1", "c"), ("q1", "d"), ("q2", "x")}
    assert by_key[("q1", "c")] == [Source("B", 1, 9.0)]  # rank 3 in A: beyond the depth
    assert by_key[("q1", "a")] == [Source("A", 1, 3.0)]


def test_budget_pool_takes_the_best_by_fusion_and_keeps_every_rank():
    candidates = budget_pool({"A": A, "B": B}, 2, fusion="rrf")
    q1 = {c.chunk_id: c.sources for c in candidates if c.query_id == "q1"}
    # Found by both systems, with equal fused scores: the tie goes as in trec_eval, to the
    # higher id.
    assert set(q1) == {"a", "c"}
    assert q1["c"] == [
        Source("rrf", 1, pytest.approx(1 / 63 + 1 / 61)),
        Source("A", 3, 1.0),
        Source("B", 1, 9.0),
    ]
    assert [c.chunk_id for c in candidates if c.query_id == "q2"] == ["x"]


def test_shuffle_key_is_seeded_and_stable():
    assert shuffle_key("p", "q1", "a") == shuffle_key("p", "q1", "a")
    assert shuffle_key("p", "q1", "a") != shuffle_key("other", "q1", "a")
    keys = [shuffle_key("pool", "q", f"c{i}") for i in range(50)]
    assert sorted(keys) != keys and min(keys) >= 0 and max(keys) < 2**62


@pytest.mark.parametrize("size", [0, -3, 1.5, True])
def test_sizes_must_be_positive_integers(size):
    with pytest.raises(ValueError, match="must be a whole number of at least 1"):
        depth_pool({"A": A}, size)


def test_unknown_strategy():
    with pytest.raises(ValueError, match="unknown pooling strategy 'random'; valid: depth, budget"):
        pool({"A": A}, "random", 5)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "bm25,splade",
            "unknown system 'splade'; valid: bm25, vector, rrf, combsum, combmnz, run:<name>",
        ),
        ("", "no systems given"),
        ("bm25,bm25", "system listed twice: bm25"),
        ("bm25,rrf", "a fusion method needs at least two other systems"),
        ("run:", "unknown system 'run:'"),
    ],
)
def test_bad_system_lists(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_systems(spec)


def test_system_kinds():
    specs = parse_systems("bm25, vector ,rrf,run:my-ret")
    assert [(s.name, s.kind) for s in specs] == [
        ("bm25", "lexical"),
        ("vector", "vector"),
        ("rrf", "fusion"),
        ("run:my-ret", "external_run"),
    ]
    assert specs[3].run_name == "my-ret"


def test_systems_run_and_fuse_with_external_runs(corpus):
    queries = {"q1": "brake pads", "q2": "绿茶冷藏"}
    external = {"mine": Run({"q1": {"plant-1": 1.0, "bike-2": 0.5}}, "mine")}
    runs, configs = run_systems(
        parse_systems("bm25,vector,rrf,run:mine"),
        corpus,
        queries,
        external,
        RetrievalOptions(depth=3),
    )
    assert list(runs) == ["bm25", "vector", "rrf", "run:mine"]
    assert runs["bm25"].ranking("q1")[0][0] == "bike-1"
    assert configs["rrf"] == {
        "kind": "fusion",
        "method": "rrf",
        "k": 60,
        "over": ["bm25", "vector", "run:mine"],
    }
    assert "plant-1" in runs["rrf"].scores["q1"]  # the external run takes part in fusion
    assert configs["run:mine"] == {"kind": "external_run", "run": "mine"}


def test_unknown_run_is_named(corpus):
    with pytest.raises(ValueError, match="unknown run 'nope'.*imported runs: mine"):
        run_systems(parse_systems("bm25,run:nope"), corpus, {"q": "x"}, {"mine": Run()})


def test_budget_mode_takes_fusion_from_its_own_option(corpus):
    with pytest.raises(ValueError, match=r"in active pooling\) the candidates are fused with"):
        build_candidates(
            parse_systems("bm25,vector,rrf"), corpus, {"q": "tea"}, {}, strategy="budget", size=3
        )
    candidates, config = build_candidates(
        parse_systems("bm25,vector"),
        corpus,
        {"q": "brake pads"},
        {},
        strategy="budget",
        size=3,
        fusion="combmnz",
    )
    assert len(candidates) == 3 and config["fusion"] == "combmnz" and config["strategy"] == "budget"
    assert all(c.sources[0].system == "combmnz" for c in candidates)
