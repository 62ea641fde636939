"""The grouped counts behind the lead's charts, on SQLite and PostgreSQL, against counts
made by hand: hours in UTC, an item counted once at its current grade, medians, when
candidates complete, what each system found and how much of it is relevant."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime

import pytest

from annotator.labeling import assignment
from storage import counts, gold_records
from storage.accounts import get_user
from storage.catalog import pool_summary
from storage.db import session_scope
from storage.history import adjudicate
from storage.pool_records import get_pool, pool_report
from tests.conftest import import_grades, judge


def epoch(*moment: int) -> int:
    return int(datetime(*moment, tzinfo=UTC).timestamp())


def counted(engine, by, annotator=None) -> list[tuple]:
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        return sorted(
            counts.current_counts(pool, by, session=session, annotator=annotator),
            key=lambda row: tuple((v is None, v) for v in row),
        )


def test_items_are_counted_by_the_utc_hour_of_their_current_grade(engine, two_runs, clock):
    x, y = two_runs["x"], two_runs["y"]
    clock.now = datetime(2026, 3, 2, 9, 0, 1, tzinfo=UTC)
    first = judge(engine, x, 2)
    clock.now = datetime(2026, 3, 2, 9, 59, 59, tzinfo=UTC)
    judge(engine, x, 0)
    clock.now = datetime(2026, 3, 2, 10, 0, 0, tzinfo=UTC)
    judge(engine, x, None)
    judge(engine, y, 3)
    # x changes the first grade an hour later: it counts once, at its new grade and hour.
    clock.now = datetime(2026, 3, 2, 11, 30, tzinfo=UTC)
    again = assignment.reload(engine, first)
    assert assignment.submit(engine, again, x, grade=1, seconds=4.0)

    nine, ten, eleven = epoch(2026, 3, 2, 9), epoch(2026, 3, 2, 10), epoch(2026, 3, 2, 11)
    assert counted(engine, ("annotator", "hour", "grade")) == [
        ("x", nine, 0, 1),
        ("x", ten, None, 1),
        ("x", eleven, 1, 1),
        ("y", ten, 3, 1),
    ]
    assert counted(engine, ("annotator",)) == [("x", 3), ("y", 1)]
    assert counted(engine, ("grade",), annotator="y") == [(3, 1)]
    by_query = counted(engine, ("query", "grade"), annotator="x")
    assert sum(n for _, _, n in by_query) == 3
    assert {q for q, _, _ in by_query} <= {"q0", "q1"}


def test_imported_judgments_are_not_work_done_in_the_app(engine, two_runs, tmp_path):
    import_grades(engine, tmp_path, "x", [{"query_id": "q0", "chunk_id": "c0", "grade": 2}])
    assert counted(engine, ("annotator",)) == []


@pytest.mark.parametrize("seconds", [[7.0, 1.0, 30.0], [7.0, 1.0, 30.0, 2.0]])
def test_median_seconds_is_the_statistics_median(engine, two_runs, seconds):
    for value in seconds:
        judge(engine, two_runs["x"], 1, seconds=value)
    judge(engine, two_runs["y"], 1, seconds=5.0)
    with session_scope(engine) as session:
        medians = counts.median_seconds(get_pool("p", session=session), session=session)
    assert medians == {"x": pytest.approx(statistics.median(seconds)), "y": 5.0}


def test_a_candidate_completes_in_the_hour_of_its_last_judge(engine, two_runs, clock):
    x, y = two_runs["x"], two_runs["y"]
    done = {}
    for hour in range(9, 15):  # six hours, six candidates: each judges every candidate
        clock.now = datetime(2026, 3, 2, hour, 15, tzinfo=UTC)
        for user in (x, y):
            item = judge(engine, user, 1)
            done.setdefault((item.query_id, item.chunk_id), []).append(hour)
    expected: dict[int, int] = {}
    for hours in done.values():
        if len(hours) == 2:  # the pool's overlap
            hour = epoch(2026, 3, 2, max(hours))
            expected[hour] = expected.get(hour, 0) + 1
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        rows = counts.completions_by_hour(pool, session=session)
        summary = pool_summary(pool, session)
    assert rows == sorted(expected.items())
    assert sum(n for _, n in rows) == summary.complete == 6


def test_what_each_system_found_and_how_much_of_it_is_relevant(engine, two_runs, tmp_path):
    def line(query, chunk, grade):
        if grade is None:
            return {"query_id": query, "chunk_id": chunk, "unsure": True, "note": "?"}
        return {"query_id": query, "chunk_id": chunk, "grade": grade}

    import_grades(
        engine,
        tmp_path,
        "x",
        [line("q0", "c0", 0), line("q0", "c1", 1), line("q0", "c2", 3), line("q0", "c3", 0)]
        + [line("q1", "c4", None)],
    )
    import_grades(
        engine, tmp_path, "y", [line("q0", "c0", 2), line("q0", "c1", 2), line("q1", "c0", 2)]
    )
    with session_scope(engine) as session:
        pool, boss = get_pool("p", session=session), get_user("boss", session=session)
        adjudicate(pool, "q0", "c3", 2, "the table answers it", boss, "any", session=session)
        adjudicate(pool, "q1", "c0", 3, "first thought", boss, "any", session=session)
        adjudicate(pool, "q1", "c0", 0, "on reflection, no", boss, "any", session=session)
    # By hand: q0 c0 grades 0,2 (median down 0: not relevant); q0 c1 1,2 (relevant);
    # q0 c2 3 (relevant); q0 c3 0 then decided 2 (relevant); q1 c0 2 then decided 3, then
    # 0 (not relevant); q1 c4 only unsure (not judged).
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        relevance = counts.combination_relevance(pool, session=session)
        report = pool_report(pool, session=session)
    assert relevance == {
        ("run:a",): (3, 3, 1),  # q0 c0 (not relevant), q0 c1 (relevant), q1 c0 (not)
        ("run:a", "run:b"): (1, 1, 1),  # q0 c2
        ("run:b",): (2, 1, 1),  # q0 c3 (decided relevant), q1 c4 (only unsure: not judged)
    }
    assert report.combinations == {("run:a",): 3, ("run:a", "run:b"): 1, ("run:b",): 2}
    assert report.found == {"run:a": 4, "run:b": 3}
    assert report.unique == {"run:a": 3, "run:b": 2}
    assert report.shared == {"run:a": {"run:b": 1}, "run:b": {"run:a": 1}}
    assert report.sizes == {"q0": 4, "q1": 2}


def test_a_gold_grade_stands_unless_a_lead_decided(engine, two_runs, tmp_path):
    """``pooling.resolution.merged``'s order: people's grades < a gold grade < a decision."""
    lines = [("q0", "c0", 0), ("q0", "c1", 2), ("q1", "c0", 2)]
    rows = [{"query_id": q, "chunk_id": c, "grade": g} for q, c, g in lines]
    import_grades(engine, tmp_path, "x", rows)
    with session_scope(engine) as session:
        pool, boss = get_pool("p", session=session), get_user("boss", session=session)
        adjudicate(pool, "q1", "c0", 0, "no", boss, "any", session=session)
        settled = {("q0", "c0"): (3, "yes"), ("q1", "c0"): (3, "yes"), ("q1", "c4"): (2, "yes")}
        gold_records.add(pool, settled, source="adjudication", user_id=None, session=session)
    with session_scope(engine) as session:
        relevance = counts.combination_relevance(get_pool("p", session=session), session=session)
    # A gold item is found by its source too. q0 c0: gold 3 over a 0, relevant; q1 c0:
    # decided 0 over gold 3, not; q1 c4: gold 2, nobody graded it: judged, relevant.
    gold = "gold:adjudication"
    assert relevance == {
        ("run:a",): (1, 1, 1),  # q0 c1
        (gold, "run:a"): (2, 2, 1),  # q0 c0, q1 c0
        (gold, "run:b"): (1, 1, 1),  # q1 c4
        ("run:a", "run:b"): (1, 0, 0),  # q0 c2
        ("run:b",): (1, 0, 0),  # q0 c3
    }


def test_a_higher_threshold_counts_fewer_relevant(engine, two_runs, tmp_path):
    import_grades(
        engine, tmp_path, "x", [{"query_id": "q0", "chunk_id": c, "grade": 1} for c in ("c0", "c2")]
    )
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        at_one = counts.combination_relevance(pool, session=session)
        at_two = counts.combination_relevance(pool, session=session, threshold=2)
    assert at_one == {("run:a",): (3, 1, 1), ("run:a", "run:b"): (1, 1, 1), ("run:b",): (2, 0, 0)}
    assert at_two == {("run:a",): (3, 1, 0), ("run:a", "run:b"): (1, 1, 0), ("run:b",): (2, 0, 0)}
