"""The judge asks nothing twice across pools (issue 36, item 5), on SQLite and PostgreSQL:
a second pool over the same queries gets the answers the same model gave under the same
prompt in the first, recorded as reused, and the model's grade of a pair stays one."""

from __future__ import annotations

import json

from sqlmodel import select

from annotator.judge.judge_report import pool_runs
from annotator.judge.prompt import default_prompt
from annotator.judge.runner import JudgeSettings, judge_pool
from annotator.pools.pool_building import build_pool
from storage.db import session_scope
from storage.history import model_candidate_judgments
from storage.judge_tables import JudgeAnswer, JudgeRun
from storage.pool_records import get_pool
from tests.annotator.judge.test_judge import (  # noqa: F401  (judged_pool: a fixture)
    CANDIDATES,
    FAST,
    PASSAGES,
    SYSTEMS,
    judged_pool,
)
from tests.conftest import run_qrels
from tests.fake_chat_server import FakeChat, Script, answer, passage_of


def second_pool(engine) -> None:
    build_pool(engine, "p2", systems=",".join(f"run:{s}" for s in SYSTEMS), depth=10, overlap=2)


def pool_answers(engine, name: str) -> list[JudgeAnswer]:
    with session_scope(engine) as session:
        pool = get_pool(name, session=session)
        rows = session.exec(
            select(JudgeAnswer).join(JudgeRun).where(JudgeRun.pool_id == pool.id)
        ).all()
        return sorted(rows, key=lambda a: a.id)


def model_grades(engine, name: str) -> list[tuple]:
    with session_scope(engine) as session:
        return model_candidate_judgments(get_pool(name, session=session), session=session)


def test_what_the_model_answered_in_one_pool_is_reused_not_asked_in_the_other(judged_pool):  # noqa: F811
    engine = judged_pool
    second_pool(engine)
    # One candidate gets a made-up quote in p: no valid answer there, so p2 asks it.
    script = Script({PASSAGES["tea"]: [answer(1, "made up quote")] * 9})
    with FakeChat(script) as server:
        judge_pool(engine, "p", "m", server.url, settings=JudgeSettings(retries=0))
        asked = len(server.requests)
        assert asked == CANDIDATES
        summary = judge_pool(engine, "p2", "m", server.url, settings=JudgeSettings(retries=0))
        again = [passage_of(body) for body in server.bodies()[asked:]]
    # "tea" is a candidate of two queries: both of p2's are asked (no valid answer in p).
    assert again == [PASSAGES["tea"]] * 2
    assert (summary.status, summary.reused) == ("done", CANDIDATES - 2)
    first, second = pool_answers(engine, "p"), pool_answers(engine, "p2")
    reused = [a for a in second if a.reused_from is not None]
    assert len(reused) == CANDIDATES - 2
    originals = {a.id: a for a in first}
    for copy in reused:
        original = originals[copy.reused_from]
        assert original.status == "graded" and original.reused_from is None
        assert (copy.grade, copy.reason, copy.evidence, copy.flags, copy.prompt_hash) == (
            original.grade, original.reason, original.evidence, original.flags,
            original.prompt_hash,
        )  # fmt: skip
        assert (copy.tokens_in, copy.tokens_out, copy.seconds, copy.judgment_id) == (
            None, None, 0.0, None
        )  # fmt: skip
    with session_scope(engine) as session:
        run = session.exec(select(JudgeRun).order_by(JudgeRun.id.desc())).first()
        assert (run.reused, run.todo, run.asked) == (CANDIDATES - 2, 2, 2)
    assert pool_runs(engine, "p2")[0].reused == CANDIDATES - 2  # the Judge page's table
    # One grade per model and pair: p2 lists the same grades as p, each once.
    assert model_grades(engine, "p2") == model_grades(engine, "p")
    assert len(model_grades(engine, "p2")) == len(
        {(q, c) for _, q, c, *_ in model_grades(engine, "p2")}
    )
    # A rerun on p2 asks only what has no valid answer anywhere, and reuses nothing more.
    with FakeChat() as server:
        summary = judge_pool(engine, "p2", "m", server.url, settings=FAST)
        assert (len(server.requests), summary.reused) == (2, 0)


def test_another_model_or_prompt_is_asked_again(judged_pool):  # noqa: F811
    engine = judged_pool
    second_pool(engine)
    with FakeChat() as server:
        judge_pool(engine, "p", "m", server.url, settings=FAST)
        summary = judge_pool(engine, "p2", "other-model", server.url, settings=FAST)
        assert summary.reused == 0 and len(server.requests) == 2 * CANDIDATES
    assert default_prompt().hash == pool_answers(engine, "p2")[0].prompt_hash


def test_qrels_judge_says_what_it_reused_in_both_languages(judged_pool, db_url):  # noqa: F811
    second_pool(judged_pool)
    with FakeChat() as server:
        for pool, lang in (("p", "en"), ("p2", "zh")):
            done = run_qrels(db_url, "--lang", lang, "judge", "--pool", pool, "--model", "m",
                             "--base-url", server.url, "--timeout", "5")  # fmt: skip
        assert len(server.requests) == CANDIDATES
    assert f"{CANDIDATES} 个候选不再询问" in done.output
    shown = run_qrels(db_url, "judge", "report", "--pool", "p2", "--model", "m", "--json")
    assert [run["reused"] for run in json.loads(shown.stdout)["runs"]] == [CANDIDATES]
