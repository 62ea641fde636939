"""The finder's row under one grade per person per pair, on SQLite and PostgreSQL.

A person whose search added a pair to one pool (``found_at``: never offered to them there)
and who grades the pair in another pool, in the app or by an import, has graded it: in the
finder's pool their grade fills one of its judgment slots, as anyone's grade from another
pool does, so the pool asks one person fewer for it and ``qrels status``, the next item and
the tallies agree. Before, their grade counted as a judge in ``qrels status`` but held no
slot: the pool was "complete" while the app still handed the pair to a third person."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotator.labeling import assignment
from annotator.labeling.search import ManualSearch
from annotator.pools.pool_building import build_pool
from storage.db import session_scope
from storage.models import Chunk, Judgment, Query
from tests.annotator.labeling.test_one_grade import assert_all_agree, grade_all
from tests.conftest import N_CHUNKS, N_QUERIES, import_grades

FOUND = ("q0", "c4")  # in pool "b" (every chunk), not in "a" (the top 3) until found there


@pytest.mark.parametrize("graded", ["app", "import"])
def test_a_finder_who_grades_the_pair_elsewhere_fills_a_slot_of_it(
    engine, db_url, pool, tmp_path, graded
):
    build_pool(engine, "a", systems="run:r", depth=3, overlap=2)
    build_pool(engine, "b", systems="run:r", depth=N_CHUNKS, overlap=2)
    finder, people = pool["a1"], {name: pool[name] for name in ("a1", "a2", "a3")}
    ManualSearch(engine, "a").add(*FOUND, finder)
    before = assignment.progress(engine, "a", finder, None)
    if graded == "app":
        assert FOUND in grade_all(engine, "b", finder)
    else:
        lines = [
            {"query_id": f"q{q}", "chunk_id": f"c{c}", "grade": 1}
            for q in range(N_QUERIES)
            for c in range(N_CHUNKS)
        ]
        import_grades(engine, tmp_path, "a1", lines)
    # Every pair of "a" is theirs, the found one too, and nothing is handed to them.
    assert assignment.next_item(engine, "a", finder) is None
    after = assignment.progress(engine, "a", finder, None)
    assert after.pool_done == after.pool_total == before.pool_total + 1
    # a2 makes the found pair's second judge: nobody else is asked for it.
    handed = grade_all(engine, "a", people["a2"], grade=2)
    assert FOUND in handed
    assert assignment.next_item(engine, "a", people["a3"]) is None
    assert_all_agree(engine, db_url, "a", people)
    assert_all_agree(engine, db_url, "b", people)


def test_a_pair_graded_elsewhere_then_found_counts_as_graded(engine, db_url, pool):
    """The other order: a1 grades the pair in "b", then their search adds it to "a". It
    comes in as a candidate a1 graded (``storage.one_grade.earlier_grades``), not as a
    finder's row: judged by them on a slot, so one more person is asked for it, no more."""
    build_pool(engine, "a", systems="run:r", depth=3, overlap=2)
    build_pool(engine, "b", systems="run:r", depth=N_CHUNKS, overlap=2)
    finder, people = pool["a1"], {name: pool[name] for name in ("a1", "a2", "a3")}
    grade_all(engine, "b", finder)
    ManualSearch(engine, "a").add(*FOUND, finder)
    assert assignment.next_item(engine, "a", finder) is None
    assert FOUND in grade_all(engine, "a", people["a2"])
    assert assignment.next_item(engine, "a", people["a3"]) is None
    assert_all_agree(engine, db_url, "a", people)


def test_a_judgment_of_a_found_pair_says_it_was_found(engine, pool):
    """Why each judgment was asked (``storage.models.ASKED_WHY``): a pair a person's search
    added is asked as ``search``, and the pool's own candidates carry no reason."""
    build_pool(engine, "a", systems="run:r", depth=3, overlap=2)
    ManualSearch(engine, "a").add(*FOUND, pool["a1"])
    handed = grade_all(engine, "a", pool["a2"])
    assert FOUND in handed
    with session_scope(engine) as session:
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, Judgment.reason)
            .join(Query, Query.id == Judgment.query_id)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
        ).all()
    assert {(q, c): why for q, c, why in rows} == {pair: None for pair in handed} | {
        FOUND: "search"
    }
