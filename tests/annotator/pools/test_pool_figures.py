"""What the Pools page draws: each system's candidates and share of the relevant ones,
the combinations of systems (every annotator's search as one), an active pool's queries."""

from __future__ import annotations

from annotator.labeling.active_pooling import QueryStatus
from annotator.pools.pool_building import build_pool
from annotator.pools.pool_figures import active_frame, active_queries, pool_figures
from storage.db import session_scope
from storage.pool_records import add_manual_candidate, get_pool
from tests.conftest import import_grades


def test_systems_found_unique_judged_relevant_and_share(engine, two_runs, tmp_path):
    # x grades q0's c0 and c2 relevant and c1 not: run:a found all three, run:b only c2.
    grades = {"c0": 2, "c1": 0, "c2": 3}
    import_grades(
        engine,
        tmp_path,
        "x",
        [{"query_id": "q0", "chunk_id": c, "grade": g} for c, g in grades.items()],
    )
    systems = pool_figures(engine, "p").systems
    assert systems.to_dict("records") == [
        {"system": "run:a", "found": 4, "unique": 3, "judged": 3, "relevant": 2, "share": 1.0},
        {"system": "run:b", "found": 3, "unique": 2, "judged": 1, "relevant": 1, "share": 0.5},
    ]


def test_no_share_while_nothing_relevant_is_known(engine, two_runs):
    assert pool_figures(engine, "p").systems["share"].tolist() == [0.0, 0.0]


def test_combinations_most_first_every_annotators_search_as_one(engine, two_runs):
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        add_manual_candidate(pool, "q1", "c5", "x", session=session)  # new: manual only
        add_manual_candidate(pool, "q1", "c0", "y", session=session)  # run:a's, now manual too
        add_manual_candidate(pool, "q1", "c0", "x", session=session)
    combinations = pool_figures(engine, "p").combinations
    assert combinations.to_dict("records") == [
        {"systems": "run:a", "size": 1, "candidates": 2},
        {"systems": "run:b", "size": 1, "candidates": 2},
        {"systems": "manual:*", "size": 1, "candidates": 1},
        {"systems": "manual:* + run:a", "size": 2, "candidates": 1},
        {"systems": "run:a + run:b", "size": 2, "candidates": 1},
    ]
    assert combinations["candidates"].sum() == 7  # every candidate once


def test_active_frame_one_row_per_query():
    status = [
        QueryStatus("q1", 40, 7, 7, 3, 0.4, "budget", target=7),
        QueryStatus("q2", 40, 2, 1, 0, None, None, target=7),
        QueryStatus("q3", 40, 9, 9, 1, None, None, target=40, sampled=True),
    ]
    frame = active_frame(status)
    assert frame.drop(columns="estimate").to_dict("records") == [
        {"query": "q1", "chosen": "7/7", "judged": 7, "relevant": 3, "state": "budget"},
        {"query": "q2", "chosen": "2/7", "judged": 1, "relevant": 0, "state": "open"},
        # a sampled query is judged completely: its progress is against every candidate
        {"query": "q3", "chosen": "9/40", "judged": 9, "relevant": 1, "state": "open"},
    ]
    assert frame["estimate"].isna().tolist() == [False, True, True]
    assert frame["estimate"].iloc[0] == 0.4


def test_an_active_pools_queries_against_its_budget(engine, two_runs):
    build_pool(engine, "act", systems="run:a,run:b", budget=2, active=True)
    frame = active_queries(engine, "act")
    assert frame["query"].tolist() == ["q0", "q1"]
    assert frame["chosen"].tolist() == ["0/2", "0/2"] and set(frame["state"]) == {"open"}
