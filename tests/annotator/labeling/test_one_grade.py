"""One grade per person per (query, chunk), on SQLite and PostgreSQL (issue 36, item 5).

Two pools over the same queries and corpus version: a pair a person graded in one is never
handed to them by the other, it fills one of the other's judgment slots (its overlap) and
counts in its progress; ``qrels status``, the app's progress and "nothing left", and the
Team progress page agree; both pools' releases hold each person's one current grade."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import select

from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.quality.kept import figures as kept_figures
from annotator.quality.progress import counted_team_figures, my_progress, team_figures
from annotator.releases.releases import create_release
from storage import tallies
from storage.db import read_connection, session_scope
from storage.models import Assignment, Judgment
from storage.pool_records import get_pool
from storage.status import status
from tests.annotator.labeling.test_keypress import CHUNKS as KEYPRESS_CHUNKS
from tests.annotator.labeling.test_keypress import (  # noqa: F401  (second_engine: a fixture)
    counted,
    grade,
    make_pool,
    second_engine,
)
from tests.conftest import N_CHUNKS, N_QUERIES, import_grades

CANDIDATES = N_QUERIES * N_CHUNKS


def grade_all(engine, pool_name: str, user_id: int, grade: int = 1) -> list[tuple[str, str]]:
    """Grade everything the app hands ``user_id`` in ``pool_name``; the pairs handed."""
    handed = []
    while (item := assignment.next_item(engine, pool_name, user_id)) is not None:
        handed.append((item.query_id, item.chunk_id))
        assert assignment.submit(engine, item, user_id, grade=grade)
        assert len(handed) <= CANDIDATES, "handed more than the pool holds"
    return handed


def second_pool(engine) -> None:
    build_pool(engine, "p2", systems="run:r", depth=N_CHUNKS, overlap=2)


def assert_all_agree(engine, db_url, pool_name: str, people) -> None:
    """``qrels status``, every annotator's progress and next item, and both Team progress
    counts say the same about ``pool_name``: complete exactly when nothing is handed out."""
    with read_connection(db_url) as connection:
        summary = next(p for p in status(connection).pools if p.name == pool_name)
    left = {name: assignment.next_item(engine, pool_name, user) for name, user in people.items()}
    nothing_left = all(item is None for item in left.values())
    assert (summary.complete == summary.candidates) == nothing_left, (summary, left)
    for name, user in people.items():
        bars = assignment.progress(engine, pool_name, user, None)
        assert (bars.pool_done == bars.pool_total) == (left[name] is None), (name, bars)
    for figures in (team_figures(engine, pool_name), counted_team_figures(engine, pool_name)):
        assert (figures.summary.candidates, figures.summary.complete) == (
            summary.candidates,
            summary.complete,
        )
    with session_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)


@pytest.mark.parametrize("built", ["before", "after"])
def test_a_pair_graded_in_one_pool_is_not_handed_again_by_the_other(engine, db_url, pool, built):
    if built == "before":
        second_pool(engine)
    first = grade_all(engine, "p", pool["a1"])
    assert len(first) == CANDIDATES
    if built == "after":
        second_pool(engine)
    assert assignment.next_item(engine, "p2", pool["a1"]) is None  # all graded already
    bars = assignment.progress(engine, "p2", pool["a1"], None)
    assert (bars.pool_done, bars.pool_total) == (CANDIDATES, CANDIDATES)
    # a2 is handed each pair once, in p2; then p holds nothing for them either: both pools
    # have their two people on every pair.
    assert sorted(grade_all(engine, "p2", pool["a2"], grade=2)) == sorted(first)
    assert assignment.next_item(engine, "p", pool["a2"]) is None
    for name in ("p", "p2"):
        assert assignment.next_item(engine, name, pool["a3"]) is None  # overlap 2 reached
        assert_all_agree(engine, db_url, name, pool)
    with session_scope(engine) as session:
        graded = session.exec(select(Judgment.user_id, Judgment.query_id, Judgment.chunk_id))
        assert len(list(graded)) == 2 * CANDIDATES  # one grade per person per pair


def test_status_the_app_and_team_progress_agree_while_work_goes_on(engine, db_url, pool):
    second_pool(engine)
    for _ in range(N_CHUNKS + 2):
        assert assignment.submit(
            engine, assignment.next_item(engine, "p", pool["a1"]), pool["a1"], grade=1
        )
    people = {name: pool[name] for name in ("a1", "a2", "a3")}
    for name in ("p", "p2"):
        assert_all_agree(engine, db_url, name, people)  # part done: both say "not yet"
    grade_all(engine, "p2", pool["a2"])
    grade_all(engine, "p2", pool["a3"])
    for name in ("p", "p2"):
        assert_all_agree(engine, db_url, name, people)  # a1 still holds what it drew
    for user in people.values():
        for name in ("p2", "p"):
            grade_all(engine, name, user)
    for name in ("p", "p2"):
        assert_all_agree(engine, db_url, name, people)
    with read_connection(db_url) as connection:
        assert {p.name: p.complete for p in status(connection).pools} == {
            "p": CANDIDATES,
            "p2": CANDIDATES,
        }


def test_a_held_item_graded_in_the_other_pool_is_not_counted_twice(engine, db_url, pool):
    second_pool(engine)
    held = assignment.next_item(engine, "p2", pool["a1"])  # in another tab
    while (item := assignment.next_item(engine, "p", pool["a1"])) is not None:
        assert assignment.submit(engine, item, pool["a1"], grade=3)
    # The tab's grade is refused (the item was graded meanwhile), not a second judge.
    assert not assignment.submit(engine, held, pool["a1"], grade=0)
    assert assignment.next_item(engine, "p2", pool["a1"]) is None
    assert assignment.judged_count(engine, "p2", pool["a1"]) == CANDIDATES
    assert_all_agree(engine, db_url, "p2", pool)


def test_both_releases_hold_each_persons_one_current_grade(engine, pool, tmp_path):
    second_pool(engine)
    grade_all(engine, "p", pool["a1"], grade=1)
    grade_all(engine, "p2", pool["a2"], grade=1)
    # a1 changes one grade from p2's history (the pair they graded in p): their one grade
    # of it changes, in both pools' releases.
    earlier = assignment.judged_item(engine, "p2", pool["a1"], 0)
    assert (earlier.grade, earlier.judged) == (1, True)
    assert assignment.submit(engine, earlier, pool["a1"], grade=3)
    mine = assignment.judged_items(engine, "p", pool["a1"])
    assert [
        i.grade for i in mine if i.chunk_id == earlier.chunk_id and i.query_id == earlier.query_id
    ] == [3]
    released = {}
    for name in ("p", "p2"):
        create_release(engine, f"v-{name}", name, tmp_path, allow_unresolved=True)
        released[name] = _current_grades(tmp_path / f"v-{name}" / "judgments.jsonl")
    assert released["p"] == released["p2"]
    assert sorted(set(released["p"].values())) == [1, 3]
    with session_scope(engine) as session:
        rows = session.exec(select(Assignment).where(Assignment.user_id == pool["a1"])).all()
        assert {a.pool_id for a in rows} == {
            get_pool("p", session=session).id,
            get_pool("p2", session=session).id,
        }


def _current_grades(path: Path) -> dict[tuple[str, str, str], int]:
    """(annotator, query, chunk) -> current grade, from a release's judgments.jsonl (its
    lines oldest first: the last of each person and pair is their current one)."""
    current = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["type"] == "judgment":
            current[row["annotator"], row["query_id"], row["chunk_id"]] = row["grade"]
    return current


def test_imported_grades_count_in_every_pool_as_the_apps_do(engine, db_url, pool, tmp_path):
    second_pool(engine)
    held = assignment.next_item(engine, "p", pool["a1"])  # then a1's grades are imported
    lines = [
        {"query_id": f"q{q}", "chunk_id": f"c{c}", "grade": 2}
        for q in range(N_QUERIES)
        for c in range(N_CHUNKS)
    ]
    import_grades(engine, tmp_path, "a1", lines)
    for name in ("p", "p2"):
        left = assignment.next_item(engine, name, pool["a1"])
        # What a1 held before stays theirs to finish (showing their imported grade).
        assert left is None or (left.assignment_id, left.grade) == (held.assignment_id, 2)
    assert len(grade_all(engine, "p2", pool["a2"])) == CANDIDATES
    assert assignment.next_item(engine, "p2", pool["a3"]) is None
    assert_all_agree(engine, db_url, "p2", pool)


def test_a_grade_counted_in_another_pool_costs_the_same_at_two_sizes(
    engine,
    second_engine,  # noqa: F811
    tmp_path,
):
    """A first grade of a pair another pool holds writes its row there too: statements that
    do not grow with the pools or the annotator's history (``test_keypress``'s counts)."""

    def cost(engine, folder, queries: int, history: int) -> int:
        busy = make_pool(engine, folder, queries, KEYPRESS_CHUNKS)["busy"]
        build_pool(engine, "p2", systems="run:r", depth=KEYPRESS_CHUNKS, overlap=2)
        grade(engine, busy, history)
        item = assignment.next_item(engine, "p", busy)
        return counted(engine, lambda: assignment.submit(engine, item, busy, grade=2))[1]

    small = cost(engine, tmp_path, queries=2, history=KEYPRESS_CHUNKS)
    (tmp_path / "l").mkdir()
    large = cost(second_engine, tmp_path / "l", queries=30, history=5 * KEYPRESS_CHUNKS)
    assert large == small <= 30


def _grades_of(distribution, name: str) -> dict[str, int]:
    mine = distribution[distribution["annotator"] == name]
    counts = zip(mine["grade"], mine["count"], strict=True)
    return {grade: count for grade, count in counts if count}


def test_a_grade_changed_from_the_other_pool_shows_in_team_progress(engine, pool):
    """a1 grades every pair in p, then changes one from p2's history: p's Team progress
    (kept and counted afresh, after a catch-up and after a restart) and a1's own progress
    there show the new grade, as p's release does; p2 counts the item its app changed."""
    second_pool(engine)
    grade_all(engine, "p", pool["a1"], grade=1)
    team_figures(engine, "p"), team_figures(engine, "p2")  # kept before the change
    earlier = assignment.judged_item(engine, "p2", pool["a1"], 0)
    assert assignment.submit(engine, earlier, pool["a1"], grade=3)
    for restart in (False, True):
        if restart:
            kept_figures.forget()
        for figures in (team_figures(engine, "p"), counted_team_figures(engine, "p")):
            assert _grades_of(figures.distribution, "a1") == {"1": CANDIDATES - 1, "3": 1}
            assert figures.table.set_index("annotator")["judged"]["a1"] == CANDIDATES
        for figures in (team_figures(engine, "p2"), counted_team_figures(engine, "p2")):
            assert _grades_of(figures.distribution, "a1") == {"3": 1}
    assert _grades_of(my_progress(engine, "p", "a1").distribution, "a1") == {
        "1": CANDIDATES - 1,
        "3": 1,
    }
