"""The progress figures the team and annotator pages draw, on SQLite and PostgreSQL,
against a hand count of judgments made at known times; and the projected finish."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from annotator.pools.pool_building import build_pool
from annotator.quality.progress import my_progress, project_finish, team_figures
from pooling.i18n import LocalizedError
from storage.catalog import pool_summary
from storage.db import session_scope
from storage.pool_records import get_pool
from tests.conftest import judge

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, 2, hour, minute, tzinfo=UTC)


@pytest.fixture
def judged(engine, two_runs, clock):
    """x: grades 0 and 2 at 9:00-9:59, unsure at 10:30; y: 3 at 10:10, 1 at 11:05 and
    11:06. Seconds: x 10, 20, 60; y 5, 7, 9."""
    x, y = two_runs["x"], two_runs["y"]
    for moment, user, grade, seconds in [
        (at(9, 5), x, 0, 10.0),
        (at(9, 59), x, 2, 20.0),
        (at(10, 30), x, None, 60.0),
        (at(10, 10), y, 3, 5.0),
        (at(11, 5), y, 1, 7.0),
        (at(11, 6), y, 1, 9.0),
    ]:
        clock.now = moment
        judge(engine, user, grade, seconds)
    return engine


def rows(frame: pd.DataFrame) -> list[tuple]:
    return [tuple(None if pd.isna(v) else v for v in row) for row in frame.itertuples(False)]


def test_per_annotator_judged_unsure_median_seconds_and_pace(judged):
    table = team_figures(judged, "p", now=NOW).table
    assert rows(table) == [
        ("x", 3, 1, 20.0, 1.5),  # three items in two hours of work
        ("y", 3, 0, 7.0, 1.5),
    ]


def test_items_over_time_per_hour_and_per_day(judged):
    hourly = team_figures(judged, "p", "hour", now=NOW).timeline
    assert rows(hourly) == [
        ("x", pd.Timestamp(at(9)), 2),
        ("x", pd.Timestamp(at(10)), 1),
        ("y", pd.Timestamp(at(10)), 1),
        ("y", pd.Timestamp(at(11)), 2),
    ]
    daily = team_figures(judged, "p", "day", now=NOW).timeline
    assert rows(daily) == [("x", pd.Timestamp(at(0)), 3), ("y", pd.Timestamp(at(0)), 3)]


def test_grade_distribution_beside_the_team(judged):
    frame = team_figures(judged, "p", now=NOW).distribution
    mine = {(r.annotator, r.grade): (r.count, r.share) for r in frame.itertuples()}
    assert [mine[("x", g)] for g in ("0", "1", "2", "3", "unsure")] == [
        (1, pytest.approx(1 / 3)),
        (0, 0.0),
        (1, pytest.approx(1 / 3)),
        (0, 0.0),
        (1, pytest.approx(1 / 3)),
    ]
    team = frame[frame["annotator"].isna()]
    assert team["count"].tolist() == [1, 2, 1, 1, 1]  # grades 0, 1, 2, 3, unsure
    assert team["share"].sum() == pytest.approx(1.0)


def test_drift_is_the_mean_grade_per_period_unsure_left_out(judged):
    frame = team_figures(judged, "p", now=NOW).drift
    drift = {(a, time.hour): (n, mean) for a, time, n, mean in rows(frame)}
    assert drift == {
        ("x", 9): (2, 1.0),
        ("y", 10): (1, 3.0),
        ("y", 11): (2, 1.0),
        (None, 9): (2, 1.0),
        (None, 10): (1, 3.0),
        (None, 11): (2, 1.0),
    }


def test_completion_over_time_adds_up_to_the_summary(judged):
    figures = team_figures(judged, "p", now=NOW)
    done = figures.completion[~figures.completion["projected"]]
    assert done["complete"].tolist() == done["completed"].cumsum().tolist()
    assert (done["complete"].iloc[-1] if len(done) else 0) == figures.summary.complete
    with session_scope(judged) as session:  # counted by the summary's own definition
        assert pool_summary(get_pool("p", session=session), session) == figures.summary


def test_an_unknown_period_is_refused(judged):
    with pytest.raises(LocalizedError, match="unknown period 'week'"):
        team_figures(judged, "p", "week")


def test_the_finish_is_projected_from_the_last_weeks_pace():
    start = int(datetime(2026, 3, 1, 12, tzinfo=UTC).timestamp())
    hours = [(start, 4), (start + 3600, 2)]  # 6 candidates complete since yesterday noon
    finish, pace = project_finish(hours, remaining=12, now=NOW)
    assert pace == pytest.approx(6.0)  # one day since the first completion's hour
    assert finish == NOW + timedelta(days=2)
    # A completion older than the week does not count towards the pace.
    old = int((NOW - timedelta(days=30)).timestamp())
    finish, pace = project_finish([(old, 50), *hours], remaining=12, now=NOW)
    assert pace == pytest.approx(6 / 7) and finish == NOW + timedelta(days=14)
    assert project_finish([(old, 50)], remaining=12, now=NOW) == (None, 0.0)
    assert project_finish(hours, remaining=0, now=NOW)[0] is None
    assert project_finish([], remaining=3, now=NOW) == (None, 0.0)


def test_the_projection_is_drawn_from_now_to_the_finish(engine, two_runs, clock):
    x, y = two_runs["x"], two_runs["y"]
    for _ in range(6):  # both judge all six candidates, two a day, over three days
        clock.advance(hours=12)
        judge(engine, x, 1)
        judge(engine, y, 1)
    figures = team_figures(engine, "p", now=clock.now)
    assert figures.summary.complete == figures.summary.candidates == 6
    assert figures.finish is None and not figures.completion["projected"].any()


def test_my_progress_counts_only_mine(judged):
    mine = my_progress(judged, "p", "x")
    assert mine.table["judged"].sum() == 3 and mine.table["unsure"].sum() == 1
    assert set(mine.table["query"]) <= {"q0", "q1"}
    # An annotator knows a query by what it asks (issue 25): its text beside its id.
    assert all(text == f"query {q[1:]}" for q, text in mine.table[["query", "query_text"]].values)
    counts = dict(zip(mine.distribution["grade"], mine.distribution["count"], strict=True))
    assert counts == {"0": 1, "1": 0, "2": 1, "3": 0, "unsure": 1}
    assert set(mine.distribution["annotator"]) == {"x"}
    nobody = my_progress(judged, "p", "boss")
    assert nobody.table.empty and nobody.distribution.empty


def test_an_active_pool_says_so(engine, two_runs):
    build_pool(engine, "act", systems="run:a", budget=2, active=True)
    assert team_figures(engine, "act").active and not team_figures(engine, "p").active


def test_a_day_grouped_from_the_hours_is_the_days_count(judged):
    """The Team progress page counts per hour once and groups hours into days for the
    choice of a day: the same figures as counting per day."""
    from annotator.quality.progress import by_period

    hourly = team_figures(judged, "p", "hour", now=NOW)
    daily = team_figures(judged, "p", "day", now=NOW)
    grouped = by_period(hourly, "day")
    pd.testing.assert_frame_equal(grouped.timeline, daily.timeline)
    pd.testing.assert_frame_equal(grouped.drift, daily.drift, check_exact=False, check_dtype=False)
    pd.testing.assert_frame_equal(grouped.completion, daily.completion)
    assert by_period(hourly, "hour") is hourly
