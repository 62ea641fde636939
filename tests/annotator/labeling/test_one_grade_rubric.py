"""One grade per person per (query, chunk) under one rubric, on SQLite and PostgreSQL.

A pair a person graded under the rubric in force is not handed to them again by another
pool; a grade under an earlier rubric version is not one under the new: a pool built after
the rubric changed asks again, and the new grade then counts in the pools built since. An
imported batch under another version than the one in force fills no pool."""

from __future__ import annotations

import pytest

from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.rubric import current_version, new_rubric
from storage import tallies
from storage.db import read_connection, session_scope
from storage.imports import import_judgments
from storage.pool_records import get_pool
from storage.status import status
from tests.annotator.labeling.test_one_grade import CANDIDATES, assert_all_agree, grade_all
from tests.conftest import N_CHUNKS, N_QUERIES, write
from tests.storage.test_imports import jsonl


@pytest.fixture
def rubrics(tmp_path, monkeypatch):
    """A team's own rubrics, ``v1`` in force; call it with a version to write that one
    (then in force)."""
    folder = tmp_path / "rubrics"

    def write_version(version: str) -> None:
        new_rubric(folder, version)
        assert current_version() == version

    monkeypatch.setenv("QRELS_RUBRIC_DIR", str(folder))
    write_version("v1")
    return write_version


def another_pool(engine, name: str) -> None:
    build_pool(engine, name, systems="run:r", depth=N_CHUNKS, overlap=2)


def kept_as_counted(engine, *names: str) -> None:
    with session_scope(engine) as session:
        for name in names:
            pool = get_pool(name, session=session)
            assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)


def test_a_pool_built_after_the_rubric_changed_asks_again(engine, pool, rubrics):
    first = grade_all(engine, "p", pool["a1"])  # under v1
    another_pool(engine, "old")  # built under v1: a1's grades count in it
    assert assignment.next_item(engine, "old", pool["a1"]) is None
    rubrics("v2")
    another_pool(engine, "p2")
    another_pool(engine, "p3")
    # a1 graded nothing under v2: both new pools ask them for every pair.
    assert assignment.next_item(engine, "p3", pool["a1"]) is not None
    assert sorted(grade_all(engine, "p2", pool["a1"])) == sorted(first)
    # Their first grades under v2 (made in p2) count in p3 built before them, and in a
    # pool built after; p and "old" keep asking nothing of them.
    another_pool(engine, "p4")
    for name in ("p", "old", "p3", "p4"):
        assert assignment.next_item(engine, name, pool["a1"]) is None, name
        assert assignment.judged_count(engine, name, pool["a1"]) == CANDIDATES, name
    kept_as_counted(engine, "p", "old", "p2", "p3", "p4")


def test_status_the_app_and_team_progress_agree_on_a_pool_built_after_a_rubric_change(
    engine, db_url, pool, rubrics
):
    # a1 and a2 grade every pair under v1 in p: complete there. Pool B, built under v2,
    # asks both again: not complete in ``qrels status`` either (it counted their v1 grades).
    grade_all(engine, "p", pool["a1"])
    grade_all(engine, "p", pool["a2"], grade=2)
    rubrics("v2")
    another_pool(engine, "b")
    people = {name: pool[name] for name in ("a1", "a2", "a3")}
    assert_all_agree(engine, db_url, "b", people)
    for _ in range(N_CHUNKS + 2):  # a1 part way: a query done, one item held
        item = assignment.next_item(engine, "b", pool["a1"])
        assert assignment.submit(engine, item, pool["a1"], grade=1)
    assert_all_agree(engine, db_url, "b", people)
    grade_all(engine, "b", pool["a1"])
    assert_all_agree(engine, db_url, "b", people)
    grade_all(engine, "b", pool["a3"], grade=3)  # a3 takes the second slots
    grade_all(engine, "b", pool["a2"])  # nothing left for a2
    for name in ("b", "p"):
        assert_all_agree(engine, db_url, name, people)
    with read_connection(db_url) as connection:
        assert {p.name: p.complete for p in status(connection).pools}["b"] == CANDIDATES


def _all_pairs(grade: int) -> str:
    return jsonl(
        [
            {"query_id": f"q{q}", "chunk_id": f"c{c}", "grade": grade}
            for q in range(N_QUERIES)
            for c in range(N_CHUNKS)
        ]
    )


def test_an_import_under_another_rubric_version_fills_no_pool(engine, pool, rubrics, tmp_path):
    another_pool(engine, "p2")
    rubrics("v2")
    for name, version, grade in (("a1", "v1", 1), ("a2", "v2", 2)):
        with session_scope(engine) as session:
            import_judgments(
                write(tmp_path, f"{name}.jsonl", _all_pairs(grade)),
                session=session,
                annotator=name,
                rubric_version=version,
                rubric_in_force="v2",
            )
    for name in ("p", "p2"):
        # a1's grades under v1 are not theirs in the pools: asked for every pair.
        assert assignment.next_item(engine, name, pool["a1"]) is not None, name
        assert assignment.judged_count(engine, name, pool["a1"]) == 0, name
        # a2's under v2 are.
        assert assignment.next_item(engine, name, pool["a2"]) is None, name
        assert assignment.judged_count(engine, name, pool["a2"]) == CANDIDATES, name
    kept_as_counted(engine, "p", "p2")
