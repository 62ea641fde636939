"""What the lead's Pools page draws, as data frames: each system's candidates and what
they turned out to be worth, the combinations of systems that found the same candidates,
and where each query of an active pool stands. No Streamlit in here.

The figures are drawn from the grades ``annotator.quality.kept.figures`` keeps up to date
(a view costs what changed since the last one) and the systems that found each candidate,
read once per pool until a candidate or a source is added; ``counted_pool_figures``
counts them from scratch in the database, which the tests pin equal.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sqlalchemy.engine import Engine

from annotator.labeling.active_pooling import QueryStatus, pool_status
from annotator.quality.kept import figures as kept_figures
from annotator.quality.kept.current_grades import SIZE, Kept, Systems
from pooling.grades import RELEVANT, lower_median_reaches
from storage import figure_records, gold_records, pool_records
from storage.counts import combination_relevance
from storage.db import snapshot_scope

MANUAL = f"{pool_records.MANUAL_PREFIX}*"  # every annotator's finds, as one set in a chart
JOINER = " + "


@dataclass(frozen=True)
class PoolFigures:
    """``report`` (``storage.pool_records.PoolReport``), and two frames:

    - ``systems``, one row per system: ``system``, ``found`` (candidates it put in the
      pool), ``unique`` (found by no other system), ``judged`` (of its candidates),
      ``relevant`` (of those: grade 1 or more, see ``storage.counts.combination_relevance``),
      ``share`` (of all the pool's relevant candidates, the part it found; 0 while none is
      known).
    - ``combinations``, one row per set of systems that found the same candidates, most
      candidates first: ``systems`` (names joined by `` + ``; every ``manual:<user>`` as
      ``manual:*``), ``size`` (how many systems) and ``candidates``.
    """

    report: pool_records.PoolReport
    systems: pd.DataFrame
    combinations: pd.DataFrame


@dataclass(frozen=True)
class _MadeUp:
    """A pool's report, and which systems found each candidate position of its kept
    grades."""

    report: pool_records.PoolReport
    systems: Systems


_MADE_UP: dict[tuple, _MadeUp] = {}  # by database, pool, candidates and newest source
_MADE_UP_LOCK = threading.Lock()


def pool_figures(engine: Engine, pool_name: str) -> PoolFigures:
    """How pool ``pool_name`` is made up and what its systems found. Raises ``NotFound``
    for an unknown pool."""
    kept = kept_figures.kept_grades(engine, pool_name)
    with snapshot_scope(engine) as session:
        pool = pool_records.get_pool(pool_name, session=session)
        where = (engine.url.render_as_string(hide_password=True), pool.id)
        key = (*where, len(kept.candidate_ids), figure_records.newest_source(session=session))
        with _MADE_UP_LOCK:
            made_up = _MADE_UP.get(key)
        if made_up is None:
            made_up = _made_up(kept, pool, session)
            with _MADE_UP_LOCK:
                for old in [k for k in _MADE_UP if k[:2] == where]:
                    del _MADE_UP[old]
                _MADE_UP[key] = made_up
        gold = {
            (g.query_id, g.chunk_id): g.grade for g in gold_records.items(pool, session=session)
        }
    return _figures(made_up.report, _relevance(kept, made_up.systems, gold))


def _made_up(kept: Kept, pool, session) -> _MadeUp:
    systems = kept_figures.current_systems(kept, pool, session)
    found_by = systems.found_by
    sizes = np.bincount(found_by[found_by >= 0], minlength=len(systems.sets)).tolist()
    counted = dict(zip(systems.sets, sizes, strict=True))
    return _MadeUp(pool_records.pool_report(pool, session=session, counted=counted), systems)


def _relevance(
    kept: Kept, systems: Systems, gold: dict[tuple[str, str], int]
) -> dict[tuple[str, ...], tuple[int, ...]]:
    """``storage.counts.combination_relevance`` from the kept grades and decisions and the
    pool's ``gold`` grades (a few, read with each view)."""
    with kept.lock:
        graded = kept.counts[:, :SIZE].sum(axis=1)
        low = kept.counts[:, :RELEVANT].sum(axis=1)
        decision = np.full(len(kept.candidate_ids), -1, np.int64)
        settled = np.full(len(kept.candidate_ids), -1, np.int64)
        decided_grades = {key: made[0] for key, made in kept.decisions.items()}
        for grades, given in ((decision, decided_grades), (settled, gold)):
            for key, grade in given.items():
                place = kept.position_of.get(key)
                if place is not None:
                    grades[place] = grade
    decided, golden = decision >= 0, settled >= 0
    judged = decided | golden | (graded > 0)
    # ``pooling.resolution.merged``'s order: a decision, else the gold grade, else people's.
    by_people = lower_median_reaches(low, graded)
    relevant = judged & np.where(
        decided, decision >= RELEVANT, np.where(golden, settled >= RELEVANT, by_people)
    )
    has = systems.found_by >= 0
    found_by, n = systems.found_by[has], len(systems.sets)
    columns = [
        np.bincount(found_by, weights=column[has], minlength=n).astype(np.int64).tolist()
        for column in (np.ones(len(has)), judged, relevant)
    ]
    return {
        names: tuple(column[i] for column in columns)
        for i, names in enumerate(systems.sets)
        if columns[0][i]
    }


def forget() -> None:
    """Drop what this process read of every pool's systems (as a restart would)."""
    with _MADE_UP_LOCK:
        _MADE_UP.clear()


def counted_pool_figures(engine: Engine, pool_name: str) -> PoolFigures:
    """``pool_figures`` counted from scratch by the database."""
    with snapshot_scope(engine) as session:
        pool = pool_records.get_pool(pool_name, session=session)
        report = pool_records.pool_report(pool, session=session)
        relevance = combination_relevance(pool, session=session)
    return _figures(report, relevance)


def _figures(
    report: pool_records.PoolReport, relevance: dict[tuple[str, ...], tuple[int, ...]]
) -> PoolFigures:
    relevant_total = sum(relevant for _, _, relevant in relevance.values())
    systems = pd.DataFrame(
        [
            (name, found, report.unique[name], *_judged_relevant(relevance, name))
            for name, found in report.found.items()
        ],
        columns=["system", "found", "unique", "judged", "relevant"],
    )
    systems["share"] = systems["relevant"] / relevant_total if relevant_total else 0.0
    return PoolFigures(report, systems, _combinations(report.combinations))


def _judged_relevant(
    relevance: dict[tuple[str, ...], tuple[int, ...]], system: str
) -> tuple[int, int]:
    """A system's judged and relevant candidates: those of every combination it is in."""
    counts = [
        (judged, relevant) for key, (_, judged, relevant) in relevance.items() if system in key
    ]
    return sum(j for j, _ in counts), sum(r for _, r in counts)


def _combinations(combinations: dict[tuple[str, ...], int]) -> pd.DataFrame:
    merged: dict[tuple[str, ...], int] = {}
    for systems, count in combinations.items():
        key = tuple(sorted({_set_name(name) for name in systems}))
        merged[key] = merged.get(key, 0) + count
    frame = pd.DataFrame(
        [(JOINER.join(key), len(key), count) for key, count in merged.items()],
        columns=["systems", "size", "candidates"],
    )
    return frame.sort_values(["candidates", "systems"], ascending=[False, True], ignore_index=True)


def _set_name(system: str) -> str:
    return MANUAL if system.startswith(pool_records.MANUAL_PREFIX) else system


def active_queries(engine: Engine, pool_name: str) -> pd.DataFrame:
    """Where each query of active pool ``pool_name`` stands: ``active_frame``."""
    return active_frame(pool_status(engine, pool_name))


def active_frame(status: list[QueryStatus]) -> pd.DataFrame:
    """An active pool's queries (``annotator.labeling.active_pooling.pool_status``), one row each:
    ``query``, ``chosen`` (``"chosen/target"``: the budget, or every candidate for a sampled
    query, which is judged completely), ``judged``, ``relevant``, ``estimate``
    (relevant ones estimated left; missing while it cannot be estimated) and ``state``
    (``open``, or why the query stopped)."""
    return pd.DataFrame(
        {
            "query": [s.query_id for s in status],
            "chosen": [f"{s.chosen}/{s.target}" for s in status],
            "judged": [s.judged for s in status],
            "relevant": [s.relevant for s in status],
            "estimate": pd.array([s.estimate for s in status], dtype="Float64"),
            "state": [s.state for s in status],
        }
    )
