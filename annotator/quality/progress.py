"""Progress figures for the progress pages, as data frames. No Streamlit in here.

Every figure comes from a few grouped counts: an annotator's items are counted with their
current grade, at the hour it was given, so the figures of one pool agree with each other
(an annotator's items over time add up to their ``judged``, and their grade distribution
to the same). The Team progress figures count them from the judgments kept up to date by
``annotator.quality.kept.figures`` (a view costs what changed since the last one);
``counted_team_figures`` counts them from scratch in the database (``storage.counts``),
which the tests pin equal. Times are UTC. A chart and the table behind it are drawn from
the same frame.

The per-annotator table is keyed by ``annotator``: further per-annotator figures (such as
accuracy on gold items) join it on that column.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
from sqlalchemy.engine import Engine

from annotator.quality.kept import figures as kept_figures
from annotator.quality.kept.progress_rows import completions_by_hour
from pooling.grades import GRADES
from pooling.i18n import check_name
from pooling.pool_config import is_active
from storage import catalog, counts, figure_records
from storage.counts import current_counts, median_seconds
from storage.db import referenced, snapshot_scope
from storage.models import CorpusVersion, QuerySet
from storage.pool_records import get_pool, query_texts

PERIODS = {"hour": "h", "day": "D"}  # what a timeline groups by: pandas' frequency
UNSURE = "unsure"
GRADE_LABELS = (*(str(g) for g in GRADES), UNSURE)  # a distribution's grades, in order
PACE_WINDOW = timedelta(days=7)  # the pace of the last week projects the finish
COUNT_COLUMNS = ["annotator", "hour", "grade", "count"]


@dataclass(frozen=True)
class TeamFigures:
    """A pool's progress, per annotator and as a team. Frames and their columns:

    - ``table``, one row per annotator: ``annotator``, ``judged`` (items), ``unsure`` (of
      them), ``seconds`` (median per judgment), ``per_hour`` (items per hour in which they
      judged anything).
    - ``timeline``: ``annotator``, ``time`` (start of the hour or day), ``judged``.
    - ``distribution``: ``annotator`` (missing for the whole team), ``grade`` (``"0"``-``"3"``
      or ``"unsure"``), ``count``, ``share`` (of that annotator's items).
    - ``drift``: ``annotator`` (missing for the team), ``time``, ``graded`` (items graded,
      unsure ones left out), ``mean_grade``.
    - ``completion``: ``time``, ``completed`` (candidates that got their last judgment
      then), ``complete`` (so far), ``projected`` (False; True for the two rows of the
      projection: now, and ``finish`` when every candidate is complete).
    """

    summary: catalog.PoolSummary
    table: pd.DataFrame
    timeline: pd.DataFrame
    distribution: pd.DataFrame
    drift: pd.DataFrame
    completion: pd.DataFrame
    finish: datetime | None  # projected; None when no pace to go by, or nothing left
    pace: float  # candidates completed per day over the last PACE_WINDOW
    active: bool = False  # an active pool: its candidates are chosen as it goes


def team_figures(
    engine: Engine, pool_name: str, per: str = "hour", now: datetime | None = None
) -> TeamFigures:
    """The progress of pool ``pool_name``, its timelines grouped ``per`` hour or day,
    its finish projected from ``now`` (default: the current time). Raises ``NotFound``
    for an unknown pool and ``LocalizedError`` for an unknown ``per``."""
    check_name(per, PERIODS, "what_period")
    kept = kept_figures.kept_grades(engine, pool_name)
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        names = figure_records.user_names(session=session)
        active = is_active(pool.config)
        # Nobody is asked to judge a gold item, nor an active pool's candidate not chosen
        # yet: the kept gold items, and for an active pool those of the database.
        unasked = figure_records.unasked(pool, session=session) if active else []
        with kept.lock:
            rows = kept.app.current_counts(names)
            seconds = kept.app.median_seconds(names)
            asked = ~kept.gold
            asked[kept.positions(np.array(unasked, np.int64))] = False
            completions = completions_by_hour(kept.completed[asked])
        summary = catalog.PoolSummary(  # as catalog.pool_summary, from what is kept
            name=pool.name,
            query_set=referenced(QuerySet, pool.query_set_id, session=session).name,
            corpus_version=referenced(CorpusVersion, pool.corpus_version_id, session=session).name,
            candidates=int(asked.sum()),
            overlap=pool.overlap,
            complete=sum(n for _, n in completions),
            pooled=int(asked.size),  # every candidate kept, asked about or not
        )
    return _team(rows, seconds, completions, summary, active, per, now)


def counted_team_figures(
    engine: Engine, pool_name: str, per: str = "hour", now: datetime | None = None
) -> TeamFigures:
    """``team_figures`` counted from scratch by the database (``storage.counts``)."""
    check_name(per, PERIODS, "what_period")
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        rows = current_counts(pool, tuple(COUNT_COLUMNS[:3]), session=session)
        seconds = median_seconds(pool, session=session)
        completions = counts.completions_by_hour(pool, session=session)
        complete = sum(n for _, n in completions)
        summary = catalog.pool_summary(pool, session, complete=complete)
        active = is_active(pool.config)
    return _team(rows, seconds, completions, summary, active, per, now)


def _team(
    rows: list[tuple],
    seconds: dict[str, float],
    completions: list[tuple[int, int]],
    summary: catalog.PoolSummary,
    active: bool,
    per: str,
    now: datetime | None,
) -> TeamFigures:
    now = now or datetime.now(UTC)
    counts = _counts(rows)
    finish, pace = project_finish(completions, summary.candidates - summary.complete, now)
    return TeamFigures(
        summary=summary,
        table=_per_annotator(counts, seconds),
        timeline=_timeline(counts, per),
        distribution=distribution(counts, team=True),
        drift=_drift(counts, per),
        completion=_completion(completions, per, summary, now, finish),
        finish=finish,
        pace=pace,
        active=active,
    )


def by_period(figures: TeamFigures, per: str) -> TeamFigures:
    """``figures`` counted per hour, their timelines grouped ``per`` hour or day without
    counting again: a display choice on the Team progress page. Raises
    ``LocalizedError`` for an unknown ``per``."""
    check_name(per, PERIODS, "what_period")
    if per == "hour":
        return figures
    timeline = figures.timeline.assign(time=figures.timeline["time"].dt.floor(PERIODS[per]))
    drift = figures.drift.assign(
        time=figures.drift["time"].dt.floor(PERIODS[per]),
        points=figures.drift["mean_grade"] * figures.drift["graded"],
    )
    drift = drift.groupby(["annotator", "time"], dropna=False, as_index=False).agg(
        graded=("graded", "sum"), points=("points", "sum")
    )
    drift["mean_grade"] = drift["points"] / drift["graded"]
    done = figures.completion[~figures.completion["projected"]]
    done = (
        done.assign(time=done["time"].dt.floor(PERIODS[per]))
        .groupby("time", as_index=False)
        .agg(completed=("completed", "sum"))
    )
    done["complete"] = done["completed"].cumsum()
    done["projected"] = False
    completion = pd.concat(
        [done, figures.completion[figures.completion["projected"]]], ignore_index=True
    )
    return replace(
        figures,
        timeline=timeline.groupby(["annotator", "time"], as_index=False).agg(
            judged=("judged", "sum")
        ),
        drift=drift[["annotator", "time", "graded", "mean_grade"]].astype({"graded": int}),
        completion=completion.astype({"completed": "Int64", "complete": int}),
    )


def _counts(rows: list[tuple]) -> pd.DataFrame:
    """``storage.counts.current_counts`` rows as a frame, hours as UTC times."""
    frame = pd.DataFrame(rows, columns=COUNT_COLUMNS)
    return frame.assign(hour=_times(frame["hour"]))


def _times(seconds: pd.Series) -> pd.Series:
    return pd.to_datetime(seconds.astype("int64"), unit="s", utc=True)


def _per_annotator(counts: pd.DataFrame, seconds: dict[str, float]) -> pd.DataFrame:
    table = (
        _unsure(counts)
        .groupby("annotator", as_index=False)
        .agg(judged=("count", "sum"), unsure=("unsure", "sum"), hours=("hour", "nunique"))
    )
    table["seconds"] = table["annotator"].map(seconds).astype(float)
    table["per_hour"] = table["judged"] / table["hours"]
    return table[["annotator", "judged", "unsure", "seconds", "per_hour"]].astype(
        {"judged": int, "unsure": int}
    )


def _unsure(counts: pd.DataFrame) -> pd.DataFrame:
    """``counts`` with a column ``unsure``: the count where the grade is unsure, else 0."""
    return counts.assign(unsure=counts["count"].where(counts["grade"].isna(), 0))


def _timeline(counts: pd.DataFrame, per: str) -> pd.DataFrame:
    return (
        counts.assign(time=counts["hour"].dt.floor(PERIODS[per]))
        .groupby(["annotator", "time"], as_index=False)
        .agg(judged=("count", "sum"))
    )


def distribution(counts: pd.DataFrame, team: bool = False) -> pd.DataFrame:
    """Each annotator's items per grade (every grade listed, 0 included) and their share;
    with ``team``, the whole team's after them, with the annotator missing. ``counts`` has
    columns ``annotator``, ``grade`` (None for unsure) and ``count``."""
    labelled = counts.assign(grade=counts["grade"].map(_label, na_action="ignore"))
    labelled["grade"] = labelled["grade"].fillna(UNSURE)
    parts = [labelled]
    if team:
        parts.append(labelled.assign(annotator=None))
    rows = []
    for part in parts:
        for annotator, mine in part.groupby("annotator", dropna=False, sort=True):
            given = mine.groupby("grade")["count"].sum()
            total = int(given.sum())
            for grade in GRADE_LABELS:
                count = int(given.get(grade, 0))
                rows.append((annotator, grade, count, count / total if total else 0.0))
    return pd.DataFrame(rows, columns=["annotator", "grade", "count", "share"])


def _label(grade: float) -> str:
    return str(int(grade))


def _drift(counts: pd.DataFrame, per: str) -> pd.DataFrame:
    graded = counts.dropna(subset=["grade"])
    graded = graded.assign(
        time=graded["hour"].dt.floor(PERIODS[per]), points=graded["grade"] * graded["count"]
    )
    parts = [graded, graded.assign(annotator=None)]
    frame = pd.concat(
        [
            part.groupby(["annotator", "time"], dropna=False, as_index=False).agg(
                graded=("count", "sum"), points=("points", "sum")
            )
            for part in parts
        ],
        ignore_index=True,
    )
    frame["mean_grade"] = frame["points"] / frame["graded"]
    return frame[["annotator", "time", "graded", "mean_grade"]].astype({"graded": int})


def project_finish(
    completions: list[tuple[int, int]], remaining: int, now: datetime
) -> tuple[datetime | None, float]:
    """When the pool would be complete at the pace of the last ``PACE_WINDOW``: the
    finish (None when nothing is left, or nothing completed in the window) and the pace
    in candidates per day. ``completions`` are ``(hour_start, candidates)`` rows of
    ``storage.counts.completions_by_hour``; the window starts no earlier than the first
    completion's hour."""
    if not completions:
        return None, 0.0
    start = max(now - PACE_WINDOW, _time(completions[0][0]))
    recent = sum(n for hour, n in completions if _time(hour) + timedelta(hours=1) > start)
    span = max(now - start, timedelta(hours=1))
    pace = recent / (span / timedelta(days=1))
    if remaining <= 0 or pace == 0:
        return None, pace
    return now + timedelta(days=remaining / pace), pace


def _time(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _completion(
    completions: list[tuple[int, int]],
    per: str,
    summary: catalog.PoolSummary,
    now: datetime,
    finish: datetime | None,
) -> pd.DataFrame:
    frame = pd.DataFrame(completions, columns=["time", "completed"])
    frame["time"] = _times(frame["time"]).dt.floor(PERIODS[per])
    frame = frame.groupby("time", as_index=False).agg(completed=("completed", "sum"))
    frame["complete"] = frame["completed"].cumsum()
    frame["projected"] = False
    if finish is not None:
        ahead = pd.DataFrame(
            {
                "time": pd.to_datetime([now, finish], utc=True),
                "completed": [None, None],
                "complete": [summary.complete, summary.candidates],
                "projected": [True, True],
            }
        )
        frame = pd.concat([frame, ahead], ignore_index=True)
    return frame.astype({"completed": "Int64", "complete": int})


@dataclass(frozen=True)
class MyFigures:
    """An annotator's own progress: ``table`` per query (``query``, ``judged``,
    ``unsure``) and the ``distribution`` of their grades (as in ``TeamFigures``, for
    them alone)."""

    table: pd.DataFrame
    distribution: pd.DataFrame


def my_progress(engine: Engine, pool_name: str, user_name: str) -> MyFigures:
    """What ``user_name`` judged in pool ``pool_name``, per query (its id and its text: an
    annotator knows a query by what it asks) and per grade."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        rows = current_counts(pool, ("query", "grade"), session=session, annotator=user_name)
        texts = query_texts(
            referenced(QuerySet, pool.query_set_id, session=session), session=session
        )
    counts = pd.DataFrame(rows, columns=["query", "grade", "count"])
    table = (
        _unsure(counts)
        .groupby("query", as_index=False)
        .agg(judged=("count", "sum"), unsure=("unsure", "sum"))
        .astype({"judged": int, "unsure": int})
    )
    table.insert(1, "query_text", table["query"].map(texts))
    return MyFigures(table=table, distribution=distribution(counts.assign(annotator=user_name)))


def data_version(engine: Engine) -> tuple[int, ...]:
    """What the lead's figures are counted from, as it stands (``storage.counts``): the
    same tuple until a judgment, decision, candidate, gold item or release is added."""
    with snapshot_scope(engine) as session:
        return counts.data_version(session=session)
