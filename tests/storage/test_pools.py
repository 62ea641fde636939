"""Pools in the database, on SQLite and PostgreSQL: build, provenance, top-up, report,
export and manual additions."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from annotator.pools.pool_building import build_pool, topup_pool
from storage.catalog import NotFound
from storage.db import session_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.models import PoolCandidate
from storage.pool_records import (
    add_manual_candidate,
    export_pool,
    get_pool,
    pool_candidates,
    pool_report,
)
from tests.conftest import import_grades, snapshot, write
from tests.storage.test_imports import CORPUS, QUERIES, jsonl

RUN_OLD = "q1 Q0 tea 1 5 old\nq2 Q0 bike 1 4 old\n"
RUN_NEW = "q1 Q0 tea 1 9 new\nq1 Q0 bike-2 2 8 new\nq1 Q0 bike-3 3 7 new\nq2 Q0 bike-3 1 3 new\n"


@pytest.fixture
def loaded(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version="c1")
        import_queries(write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="qs1")
        import_run(write(tmp_path, "old.run", RUN_OLD), session=session, system="old")
        import_run(write(tmp_path, "new.run", RUN_NEW), session=session, system="new")
    return engine


def candidates_of(engine, name):
    with session_scope(engine) as session:
        return {
            (c.query_id, c.chunk_id): c.sources
            for c in pool_candidates(get_pool(name, session=session), session=session)
        }


def test_build_stores_candidates_provenance_and_config(loaded):
    result = build_pool(loaded, "p", systems="bm25,run:old", depth=1, overlap=3)
    assert result.added >= 2
    candidates = candidates_of(loaded, "p")
    assert [(s.system, s.rank, s.score) for s in candidates[("q1", "tea")]][-1] == (
        "run:old",
        1,
        5.0,
    )
    assert {s.system for s in candidates[("q1", "tea")]} == {"bm25", "run:old"}
    with session_scope(loaded) as session:
        pool = get_pool("p", session=session)
        assert pool.overlap == 3
        assert pool.config["strategy"] == "depth" and pool.config["size"] == 1
        assert pool.config["systems"]["bm25"]["kind"] == "lexical"
        assert pool.config["retrieval"]["tokenizer"]["chinese"] == "jieba"


def test_order_is_a_seeded_shuffle_not_the_rank(loaded):
    build_pool(loaded, "p", systems="run:new", depth=3)
    with session_scope(loaded) as session:
        pool = get_pool("p", session=session)
        order = [c.chunk_id for c in pool_candidates(pool, session=session) if c.query_id == "q1"]
        keys = session.exec(
            select(PoolCandidate.shuffle_key).where(PoolCandidate.pool_id == pool.id)
        ).all()
    assert sorted(order) == ["bike-2", "bike-3", "tea"]
    assert len(set(keys)) == len(keys)
    build_pool(loaded, "p2", systems="run:new", depth=3)
    with session_scope(loaded) as session:
        again = [
            c.chunk_id
            for c in pool_candidates(get_pool("p2", session=session), session=session)
            if c.query_id == "q1"
        ]
    assert sorted(again) == sorted(order)  # same candidates; each pool has its own seed


def test_topup_adds_only_new_unjudged_candidates(loaded, tmp_path):
    build_pool(loaded, "p", systems="run:old", depth=5)
    with session_scope(loaded) as session:
        import_judgments(
            write(tmp_path, "j.trec", "q1 0 bike-2 2\n"),
            session=session,
            annotator="ann",
            rubric_version="v1",
        )
    before = candidates_of(loaded, "p")
    result = topup_pool(loaded, "p", systems="run:new", depth=5)
    after = candidates_of(loaded, "p")
    assert (result.added, result.already_in_pool, result.already_judged) == (2, 1, 1)
    assert set(after) - set(before) == {("q1", "bike-3"), ("q2", "bike-3")}  # bike-2 was judged
    # The candidate that was there keeps its provenance and gains the new system's.
    assert [s.system for s in after[("q1", "tea")]] == ["run:old", "run:new"]
    with session_scope(loaded) as session:
        assert get_pool("p", session=session).config["topups"][0]["systems_spec"] == "run:new"


def test_a_topup_that_changes_nothing_is_not_recorded(loaded):
    build_pool(loaded, "p", systems="run:old,run:new", depth=5)
    before = candidates_of(loaded, "p")
    result = topup_pool(loaded, "p", systems="run:new", depth=5)  # all there, provenance too
    assert (result.added, result.sources_added, result.changed) == (0, 0, False)
    assert result.already_in_pool == 4
    assert candidates_of(loaded, "p") == before
    with session_scope(loaded) as session:
        assert "topups" not in get_pool("p", session=session).config


def test_a_topup_that_adds_provenance_alone_is_recorded(loaded, tmp_path):
    build_pool(loaded, "p", systems="run:new", depth=5)
    import_grades(loaded, tmp_path, "ann", [{"query_id": "q2", "chunk_id": "bike", "grade": 1}])
    # run:old's q1 tea is in the pool (it gains run:old's provenance), q2 bike judged
    result = topup_pool(loaded, "p", systems="run:old", depth=5)
    assert (result.added, result.sources_added, result.changed) == (0, 1, True)
    with session_scope(loaded) as session:
        assert get_pool("p", session=session).config["topups"][0]["systems_spec"] == "run:old"


def test_report_counts_unique_contribution_and_overlap(loaded):
    build_pool(loaded, "p", systems="run:old,run:new", depth=5)
    with session_scope(loaded) as session:
        report = pool_report(get_pool("p", session=session), session=session)
    assert report.sizes == {"q1": 3, "q2": 2, "q3": 0}
    assert report.found == {"run:new": 4, "run:old": 2}
    assert report.unique == {"run:new": 3, "run:old": 1}
    assert report.shared == {"run:new": {"run:old": 1}, "run:old": {"run:new": 1}}


def test_export_jsonl(loaded, tmp_path):
    build_pool(loaded, "p", systems="run:old,run:new", depth=5)
    path = tmp_path / "pool.jsonl"
    with session_scope(loaded) as session:
        assert export_pool(get_pool("p", session=session), path, session=session) == 5
    records = [json.loads(line) for line in path.read_text().splitlines()]
    tea = next(r for r in records if (r["query_id"], r["chunk_id"]) == ("q1", "tea"))
    assert tea["provenance"] == [
        {"system": "run:old", "rank": 1, "score": 5.0},
        {"system": "run:new", "rank": 1, "score": 9.0},
    ]


def test_manual_candidates_carry_the_users_name(loaded):
    build_pool(loaded, "p", systems="run:old", depth=5)
    with session_scope(loaded) as session:
        pool = get_pool("p", session=session)
        assert add_manual_candidate(pool, "q3", "bike", "alice", session=session) is True
        assert add_manual_candidate(pool, "q1", "tea", "bob", session=session) is False
    candidates = candidates_of(loaded, "p")
    assert [(s.system, s.rank) for s in candidates[("q3", "bike")]] == [("manual:alice", None)]
    assert [s.system for s in candidates[("q1", "tea")]] == ["run:old", "manual:bob"]
    with session_scope(loaded) as session, pytest.raises(NotFound, match="chunk id 'nope'"):
        add_manual_candidate(get_pool("p", session=session), "q1", "nope", "alice", session=session)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"systems": "bm25", "depth": 0}, ValueError, "depth must be a whole number of at least 1"),
        ({"systems": "bm25,splade", "depth": 5}, ValueError, "unknown system 'splade'"),
        (
            {"systems": "run:nope", "depth": 5},
            NotFound,
            "unknown run 'nope'.*imported runs: new, old",
        ),
        (
            {"systems": "bm25", "depth": 5, "budget": 5},
            ValueError,
            "give exactly one of --depth and --budget",
        ),
        ({"systems": "bm25"}, ValueError, "give exactly one of --depth and --budget"),
        ({"systems": "bm25", "depth": 5, "overlap": 0}, ValueError, "overlap must be at least 1"),
        (
            {"systems": "bm25", "depth": 5, "query_set": "zz"},
            NotFound,
            "query set 'zz' does not exist",
        ),
    ],
)
def test_bad_parameters_are_refused_before_anything_is_written(loaded, kwargs, error, message):
    before = snapshot(loaded)
    with pytest.raises(error, match=message):
        build_pool(loaded, "p", **kwargs)
    assert snapshot(loaded) == before


def test_a_pool_name_is_never_reused(loaded):
    build_pool(loaded, "p", systems="run:old", depth=1)
    before = snapshot(loaded)
    with pytest.raises(ValueError, match="pool 'p' already exists"):
        build_pool(loaded, "p", systems="run:new", depth=1)
    with pytest.raises(NotFound, match="pool 'zz' does not exist"):
        topup_pool(loaded, "zz", systems="run:new", depth=1)
    assert snapshot(loaded) == before


def test_manual_search_finds_and_adds_with_the_users_provenance(loaded):
    from annotator.auth import add_user
    from annotator.labeling.search import ManualSearch

    build_pool(loaded, "p", systems="run:old", depth=5)
    with session_scope(loaded) as session:
        carol = add_user("carol", "annotator", "password-1", session=session).id
    search = ManualSearch(loaded, "p")
    hits = search.search("brake pads")
    assert hits[0].chunk_id == "bike" and "brake pads" in hits[0].text
    assert not hasattr(hits[0], "score")
    assert search.search("   ") == []
    search.add("q3", hits[0].chunk_id, carol)
    search.add("q3", hits[0].chunk_id, carol)  # in the pool now: the same, no answer
    assert [s.system for s in candidates_of(loaded, "p")[("q3", "bike")]] == ["manual:carol"]
