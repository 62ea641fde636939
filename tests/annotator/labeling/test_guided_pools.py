"""Active pools guided by a model judge in the database: the model's relevant first, one
choice in five exploring, why each judgment was asked kept in the judgment and the
release, sampled queries unguided, and the commands; on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlmodel import select

from annotator.cli import cli
from annotator.labeling import assignment
from annotator.labeling.guidance import guide_pool
from annotator.pools.pool_building import build_pool
from annotator.releases.releases import create_release
from pooling.guided import EXPLORATION_EVERY
from pooling.i18n import LocalizedError
from pooling.query_sampling import Member
from storage.db import session_scope
from storage.imports import import_judgments
from storage.models import Chunk, Judgment, Query
from storage.pool_records import get_pool
from storage.sample_records import record_sample
from tests.annotator.labeling.test_active_pools import judge_all, oracle, users  # noqa: F401
from tests.conftest import write
from tests.pooling.test_active import PEROVSKITE, TEXTS
from tests.storage.test_imports import jsonl

BUDGET = EXPLORATION_EVERY  # one choice of each query explores


@pytest.fixture
def model(engine, users, tmp_path):  # noqa: F811
    """A model account ``llm`` that grades the perovskite chunks of both queries 3, the
    rest 0: it agrees with the oracle."""
    grades = [
        {"query_id": q, "chunk_id": f"c{i}", "grade": 3 if i in PEROVSKITE else 0}
        for q in ("q1", "q2")
        for i in range(len(TEXTS))
    ]
    with session_scope(engine) as session:
        import_judgments(
            write(tmp_path, "m.jsonl", jsonl(grades)),
            session=session,
            annotator="llm",
            kind="model",
            rubric_version="v1",
        )
    return "llm"


def reasons(engine) -> list[tuple[str, str, str | None]]:
    """(query id, chunk id, reason) of the people's judgments, in the order made."""
    with session_scope(engine) as session:
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, Judgment.reason)
            .join(Query, Query.id == Judgment.query_id)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
            .where(Judgment.assignment_id.is_not(None))  # type: ignore[union-attr]
            .order_by(Judgment.id)
        ).all()
    return [tuple(row) for row in rows]


def test_people_judge_first_what_the_model_grades_relevant(engine, users, model):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    guide_pool(engine, "p", model)
    seen = judge_all(engine, users["a1"])
    asked = [int(c[1:]) for q, c in seen if q == "q1"]
    # the run ranks the perovskite chunks 5th, 9th and 10th; guided, all three are asked
    # among the first four (one choice explores outside the model's top)
    assert set(asked[:4]) >= PEROVSKITE
    why = [r for q, _, r in reasons(engine) if q == "q1"]
    assert sorted(why) == ["exploration"] + ["guided"] * (BUDGET - 1)
    explored = [int(c[1:]) for _, c, r in reasons(engine) if r == "exploration"]
    assert len(explored) == 2  # one per query
    assert not set(explored) & PEROVSKITE  # drawn from what the model calls irrelevant


def test_without_a_guide_nothing_says_why(engine, users, model):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    judge_all(engine, users["a1"])
    assert {r for _, _, r in reasons(engine)} == {None}


def test_a_sampled_query_is_judged_unguided(engine, users, model):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    guide_pool(engine, "p", model)
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        members = [Member("q2", 0.5)]
        record_sample(
            pool, members, design="uniform", requested="1", population=2, seed=1, session=session
        )
    judge_all(engine, users["a1"])
    by_query: dict[str, list] = {}
    for q, _, r in reasons(engine):
        by_query.setdefault(q, []).append(r)
    assert set(by_query["q1"]) == {"guided", "exploration"} and len(by_query["q1"]) == BUDGET
    # judged completely, past the budget, as estimates need
    assert by_query["q2"] == ["sample"] * len(TEXTS)


def test_the_release_keeps_why_each_judgment_was_asked(engine, users, model, tmp_path):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    guide_pool(engine, "p", model)
    judge_all(engine, users["a1"])
    create_release(engine, "v1", "p", tmp_path, policy="any")
    lines = [json.loads(line) for line in (tmp_path / "v1" / "judgments.jsonl").open()]
    judged = [line for line in lines if line["type"] == "judgment"]
    assert len(judged) == 2 * BUDGET
    assert sorted({line["reason"] for line in judged}) == ["exploration", "guided"]


def test_only_a_model_account_guides_only_an_active_pool(engine, users, model):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    build_pool(engine, "f", systems="run:r", depth=3, overlap=1)
    with pytest.raises(LocalizedError, match="is a person's account"):
        guide_pool(engine, "p", "a1")
    with pytest.raises(LocalizedError, match="no account"):
        guide_pool(engine, "p", "nobody")
    with pytest.raises(LocalizedError, match="not an active pool"):
        guide_pool(engine, "f", model)


def test_cli_builds_a_guided_pool_and_guides_an_existing_one(db_url, users, model):  # noqa: F811
    runner = CliRunner()
    args = ["--db", db_url, "pool", "build", "p", "--systems", "run:r", "--strategy", "active"]
    built = runner.invoke(cli, [*args, "--budget", "3", "--guide", model])
    assert built.exit_code == 0, built.output
    assert "pool p: people now judge first what llm grades relevant" in built.output
    off = runner.invoke(cli, ["--db", db_url, "pool", "guide", "p", "--none"])
    assert off.exit_code == 0 and "no model guides it any more" in off.output
    on = runner.invoke(cli, ["--db", db_url, "pool", "guide", "p", "--model", model])
    assert on.exit_code == 0, on.output
    person = runner.invoke(cli, ["--db", db_url, "pool", "guide", "p", "--model", "a1"])
    assert person.exit_code != 0 and "is a person's account" in person.output
    assert "Traceback" not in person.output
    neither = runner.invoke(cli, ["--db", db_url, "pool", "guide", "p"])
    assert neither.exit_code != 0 and "--model MODEL" in neither.output


def test_the_annotator_s_item_carries_no_model_grade(engine, users, model):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    guide_pool(engine, "p", model)
    item = assignment.next_item(engine, "p", users["a1"])
    assert item is not None
    shown = json.dumps(vars(item), default=str)
    assert "llm" not in shown and "guided" not in shown and "exploration" not in shown


def test_pool_status_shows_how_the_guide_does(db_url, engine, users, model):  # noqa: F811
    build_pool(engine, "p", systems="run:r", budget=BUDGET, active=True, overlap=1)
    guide_pool(engine, "p", model)
    judge_all(engine, users["a1"])
    shown = CliRunner().invoke(cli, ["--db", db_url, "pool", "status", "p"])
    assert shown.exit_code == 0, shown.output
    # 10 judged, the 6 perovskite chunks relevant; the model agrees on every one: kappa 1
    assert "guided by llm: 60.0 relevant found per 100 judged candidates" in shown.output
    assert "kappa 1.00 [1.00, 1.00] over 10 candidates; estimated relevant left -" in shown.output
    build_pool(engine, "f", systems="run:r", depth=3, overlap=1)
    fixed = CliRunner().invoke(cli, ["--db", db_url, "pool", "status", "f"])
    assert fixed.exit_code != 0 and "not an active pool" in fixed.output
