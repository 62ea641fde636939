"""Active pools in the database: chosen as judgments arrive, stopped by the budget,
overlap and concurrency as in fixed pools, and what a release says of them; on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections import Counter

import pytest
from click.testing import CliRunner
from sqlmodel import select

from annotator.auth import add_user
from annotator.cli import cli
from annotator.labeling import assignment
from annotator.labeling.active_pooling import pool_status
from annotator.pools.pool_building import build_pool, topup_pool
from annotator.releases.releases import create_release
from pooling.query_sampling import Member
from pooling.release_folder import read_pool_unjudged
from storage.db import session_scope
from storage.imports import import_corpus, import_queries, import_run
from storage.models import Judgment
from storage.pool_records import get_pool
from storage.sample_records import record_sample
from tests.conftest import together, write
from tests.pooling.test_active import PEROVSKITE, QUERY, TEXTS
from tests.storage.test_imports import jsonl

BUDGET = 4


@pytest.fixture
def users(engine, tmp_path, monkeypatch):
    """The solar corpus, two queries ranked by one run in the corpus's order, and
    annotators a1..a4."""
    monkeypatch.setenv("QRELS_LANG", "en")
    corpus = [{"_id": f"c{i}", "text": text} for i, text in enumerate(TEXTS)]
    queries = [{"_id": "q1", "text": QUERY}, {"_id": "q2", "text": "energy storage"}]
    run = "".join(
        f"{q} Q0 c{i} {i + 1} {20 - i} r\n" for q in ("q1", "q2") for i in range(len(TEXTS))
    )
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
        return {
            f"a{i}": add_user(f"a{i}", "annotator", "password-1", session=session).id
            for i in range(1, 5)
        }


def oracle(item) -> int:
    """Perovskite chunks are the relevant ones, for both queries."""
    return 3 if "perovskite" in item.chunk_text else 0


def judge_all(engine, user_id, grade=oracle, pool="p") -> list[tuple[str, str]]:
    seen = []
    while (item := assignment.next_item(engine, pool, user_id)) is not None:
        assert assignment.submit(engine, item, user_id, grade=grade(item))
        seen.append((item.query_id, item.chunk_id))
    return seen


def test_only_chosen_candidates_are_asked_until_the_budget(engine, users):
    result = build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    assert result.added == 2 * len(TEXTS)  # every candidate it may reach is stored
    seen = judge_all(engine, users["a1"])
    assert Counter(q for q, _ in seen) == {"q1": BUDGET, "q2": BUDGET}
    status = {s.query_id: s for s in pool_status(engine, "p")}
    assert status["q1"].chosen == status["q1"].judged == BUDGET
    assert status["q1"].stopped == "budget"
    assert status["q1"].candidates == len(TEXTS)


def sample(engine, *query_ids: str, pool: str = "p") -> None:
    """Record a sample of ``query_ids`` (of the two) in ``pool``, as ``qrels sample`` does."""
    with session_scope(engine) as session:
        record_sample(
            get_pool(pool, session=session),
            [Member(q, 0.5) for q in query_ids],
            design="uniform",
            requested=str(len(query_ids)),
            population=2,
            seed=1,
            session=session,
        )


def test_a_sampled_query_is_judged_completely_past_the_budget(engine, users, db_url):
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    sample(engine, "q2")
    seen = judge_all(engine, users["a1"])
    # the sampled query's every candidate, however many the budget; the other stops at it
    assert Counter(q for q, _ in seen) == {"q1": BUDGET, "q2": len(TEXTS)}
    status = {s.query_id: s for s in pool_status(engine, "p")}
    assert (status["q2"].chosen, status["q2"].target, status["q2"].state) == (
        len(TEXTS),
        len(TEXTS),
        "complete",
    )
    assert (status["q1"].chosen, status["q1"].target, status["q1"].state) == (
        BUDGET,
        BUDGET,
        "budget",
    )
    shown = CliRunner().invoke(cli, ["--db", db_url, "pool", "show", "p", "--per-query"])
    assert shown.exit_code == 0, shown.output
    assert f"q2\t{len(TEXTS)}/{len(TEXTS)}\t{len(TEXTS)}\t3\t" in shown.output
    assert "sampled: every candidate asked about" in shown.output
    assert "sampled queries (judged completely, past the budget) 1, 1 of them complete" in (
        shown.output
    )


def test_a_sampled_query_under_way_counts_against_all_its_candidates(engine, users):
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    sample(engine, "q1")
    for _ in range(BUDGET + 1):  # q1 first: the sample's queries are handed out first
        item = assignment.next_item(engine, "p", users["a1"])
        assert item.query_id == "q1" and assignment.submit(engine, item, users["a1"], grade=0)
    status = {s.query_id: s for s in pool_status(engine, "p")}["q1"]
    assert (status.chosen, status.target, status.state) == (BUDGET + 1, len(TEXTS), "open")


def queries_asked(monkeypatch) -> list:
    """From now on, the arguments of every call to active pooling's choice of a query's
    next candidate."""
    asked, choose = [], assignment.choose_next
    monkeypatch.setattr(
        assignment, "choose_next", lambda *a, **k: asked.append(a) or choose(*a, **k)
    )
    return asked


def test_queries_that_spent_their_budget_are_passed_over_unasked(engine, users, monkeypatch):
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    judge_all(engine, users["a1"])
    asked = queries_asked(monkeypatch)
    assert assignment.next_item(engine, "p", users["a2"]) is None
    assert asked == []  # at the end of a large pool, asking each query took seconds


def test_the_order_follows_the_judgments(engine, users):
    """The run ranks c5, c6, c7 before the perovskite chunks c8 and c9; once one perovskite
    chunk is judged relevant, the other two come before those."""
    build_pool(engine, "p", systems="run:r", budget=7, active=True, overlap=1)
    asked = [int(c[1:]) for q, c in judge_all(engine, users["a1"]) if q == "q1"]
    first = min(asked.index(c) for c in PEROVSKITE if c in asked)
    after = asked[first + 1 :]
    assert PEROVSKITE - {asked[first]} <= set(after)
    assert not {5, 6, 7} & set(after[:2])


def test_overlap_holds_and_concurrent_annotators_never_overrun(engine, users):
    build_pool(engine, "p", systems="run:r", budget=3, active=True, overlap=2)
    together(lambda user_id: judge_all(engine, user_id), users.values())
    with session_scope(engine) as session:
        rows = session.exec(select(Judgment.query_id, Judgment.chunk_id, Judgment.user_id)).all()
    per_candidate = Counter((q, c) for q, c, _ in rows)
    assert len(rows) == len(set(rows))  # nobody judged a candidate twice
    assert set(per_candidate.values()) == {2}  # each chosen candidate judged by two
    assert Counter(q for q, _ in per_candidate) == {1: 3, 2: 3}  # budget 3 per query


def test_a_release_leaves_out_what_was_never_chosen(engine, users, tmp_path):
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    judge_all(engine, users["a1"])
    release = create_release(engine, "v1", "p", tmp_path, policy="any")
    counts = release.manifest["counts"]
    assert counts["judged_candidates"] == 2 * BUDGET
    assert counts["not_chosen_by_active_pooling"] == 2 * (len(TEXTS) - BUDGET)
    unjudged = read_pool_unjudged(release.folder)  # infAP reads them as sampled out
    assert (
        sum(len(c) for c in unjudged.values())
        == counts["pooled_unjudged"]
        == 2 * (len(TEXTS) - BUDGET)
    )
    assert {why for c in unjudged.values() for why in c.values()} == {"not_chosen"}
    assert counts["unresolved_left_out"] == 0
    assert release.manifest["pool"]["config"]["active"] == {"budget": BUDGET, "stop_below": 1.0}


def test_a_topup_is_asked_outright_and_counts_toward_the_budget(engine, users, monkeypatch):
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, reach=3, overlap=1)
    added = topup_pool(engine, "p", systems="run:r", depth=BUDGET + 2)
    assert added.added == 2 * (BUDGET - 1)
    asked = [c for q, c in judge_all(engine, users["a1"]) if q == "q1"]
    # The three added ones, then one that active pooling chose: the budget is spent.
    assert len(asked) == BUDGET and {"c3", "c4", "c5"} <= set(asked)
    status = {s.query_id: s for s in pool_status(engine, "p")}
    assert (status["q1"].chosen, status["q1"].stopped) == (BUDGET, "budget")
    asked = queries_asked(monkeypatch)
    assert assignment.next_item(engine, "p", users["a2"]) is None
    assert asked == []  # the added ones count toward the budget here too


def test_added_candidates_all_relevant_leave_nothing_to_learn_against(engine, users, tmp_path):
    """Added candidates sort last; judged relevant, they fill the lower half the classifier
    draws its non-relevant examples from."""
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, reach=3, overlap=1)
    run = "".join(
        f"{q} Q0 c{c} {i} 1 r2\n" for q in ("q1", "q2") for i, c in enumerate(PEROVSKITE, 1)
    )
    with session_scope(engine) as session:
        import_run(write(tmp_path, "r2.trec", run), session=session, system="r2")
    topup_pool(engine, "p", systems="run:r2", depth=3)
    assert Counter(q for q, _ in judge_all(engine, users["a1"])) == {"q1": BUDGET, "q2": BUDGET}


def test_cli_builds_and_shows_an_active_pool(db_url, users):
    runner = CliRunner()
    args = ["--db", db_url, "pool", "build", "p", "--systems", "run:r"]
    built = runner.invoke(cli, [*args, "--strategy", "active", "--budget", "3", "--reach", "5"])
    assert built.exit_code == 0, built.output
    shown = runner.invoke(cli, ["--db", db_url, "pool", "show", "p", "--per-query"])
    assert shown.exit_code == 0, shown.output
    assert "active pooling (budget 3 per query" in shown.output
    assert "q1\t0/3\t0\t0\t-\tgoing on" in shown.output
    missing = runner.invoke(cli, [*args, "--strategy", "active", "--depth", "3"])
    assert missing.exit_code != 0 and "--strategy active takes --budget" in missing.output
    negative = runner.invoke(
        cli,
        [*args[:4], "p2", *args[5:], "--strategy", "active", "--budget", "3", "--stop-below", "-1"],
    )
    assert negative.exit_code != 0 and "--stop-below" in negative.output
