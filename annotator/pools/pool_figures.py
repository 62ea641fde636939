"""What the lead's Pools page draws, as data frames: each system's candidates and what
they turned out to be worth, the combinations of systems that found the same candidates,
and where each query of an active pool stands. No Streamlit in here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from sqlalchemy.engine import Engine

from annotator.labeling.active_pooling import QueryStatus, pool_status, stopping_rule
from storage import pool_records
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


def pool_figures(engine: Engine, pool_name: str) -> PoolFigures:
    """How pool ``pool_name`` is made up and what its systems found. Raises ``NotFound``
    for an unknown pool."""
    with snapshot_scope(engine) as session:
        pool = pool_records.get_pool(pool_name, session=session)
        report = pool_records.pool_report(pool, session=session)
        relevance = combination_relevance(pool, session=session)
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
    with snapshot_scope(engine) as session:
        budget = stopping_rule(pool_records.get_pool(pool_name, session=session)).budget
    return active_frame(pool_status(engine, pool_name), budget)


def active_frame(status: list[QueryStatus], budget: int) -> pd.DataFrame:
    """An active pool's queries (``annotator.labeling.active_pooling.pool_status``), one row each:
    ``query``, ``chosen`` (``"chosen/budget"``), ``judged``, ``relevant``, ``estimate``
    (relevant ones estimated left; missing while it cannot be estimated) and ``state``
    (``open``, or why the query stopped)."""
    return pd.DataFrame(
        {
            "query": [s.query_id for s in status],
            "chosen": [f"{s.chosen}/{budget}" for s in status],
            "judged": [s.judged for s in status],
            "relevant": [s.relevant for s in status],
            "estimate": pd.array([s.estimate for s in status], dtype="Float64"),
            "state": [s.state for s in status],
        }
    )
