"""Issue 36, item 4: a query sample could be drawn again after people judged it, with no
trace (a release's sample.json held only the newest draw), so a lead could shop for the seed
or design whose estimate favours a run. Now a new draw over judged queries needs
``--redraw --why``, every draw is kept with its reason and what had been judged, travels in
releases and is shown with every estimate. On SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func
from sqlmodel import select

from annotator.evaluation.estimation_text import draw_line
from annotator.labeling import assignment, sampling
from annotator.releases import releases
from pooling.i18n import LocalizedError, Refused
from pooling.release_folder import SAMPLE, read_sample, verify_release
from storage.db import session_scope
from storage.sample_tables import QuerySample
from tests.annotator.labeling.test_sampling import (
    CHUNKS,
    people_grade_and_release,
    sample_json,
    sampled_pool,
)
from tests.conftest import run_qrels

__all__ = ["sampled_pool"]  # the fixture, used by name
WHY = "the first draw held no query of slice odd"


def judge(engine, users: dict, items: int) -> set[str]:
    """Annotator x grades the next ``items`` items (the sample's queries come first);
    returns the queries judged."""
    judged = set()
    for _ in range(items):
        item = assignment.next_item(engine, "p", users["x"])
        assert assignment.submit(engine, item, users["x"], grade=1)
        judged.add(item.query_id)
    return judged


def draws(engine) -> int:
    with session_scope(engine) as session:
        return session.exec(select(func.count()).select_from(QuerySample)).one()


def test_a_judged_sample_is_drawn_again_only_with_redraw_and_why(sampled_pool, engine, db_url):
    sample_json(db_url, "--queries", "6", "--seed", "3")
    again = sample_json(db_url, "--queries", "6", "--seed", "4")  # nobody has judged: free
    assert [d["judged_before"] for d in again["draws"]] == [0, 0]
    judged = judge(engine, sampled_pool, 2 * CHUNKS)
    assert len(judged) == 2  # an annotator finishes a query before the next
    refused = run_qrels(db_url, "sample", "--pool", "p", "--queries", "6", "--seed", "5", expect=2)
    assert f"pool 'p' has a sample of which people have judged {len(judged)} queries" in (
        refused.stderr
    )
    assert "--redraw --why TEXT" in refused.stderr
    no_why = run_qrels(db_url, "sample", "--pool", "p", "--queries", "6", "--redraw", expect=2)
    assert "--redraw needs --why TEXT" in no_why.stderr
    zh = run_qrels(db_url, "--lang", "zh", "sample", "--pool", "p", "--queries", "6", expect=2)
    assert "--redraw --why" in zh.stderr and "已有" in zh.stderr
    assert draws(engine) == 2  # nothing written by the refusals
    drawn = sample_json(db_url, "--queries", "6", "--seed", "5", "--redraw", "--why", WHY)
    assert drawn["format"] == 2
    assert [(d["draw"], d["seed"], d["judged_before"], d["reason"]) for d in drawn["draws"]] == [
        (1, 3, 0, None),
        (2, 4, 0, None),
        (3, 5, len(judged), WHY),
    ]
    assert all(d["account"] is None for d in drawn["draws"])  # the command line
    shown = run_qrels(db_url, "sample", "--pool", "p", "--queries", "6", "--redraw", "--why", "x")
    assert "sample: draw 4 of 4, redrawn after 0 judged queries: x" in shown.output


def test_the_app_s_lead_redraws_under_their_account_and_only_a_lead(sampled_pool, engine):
    sampling.draw_sample(engine, "p", "4", seed=1, lead=sampled_pool["boss"])
    judge(engine, sampled_pool, 2 * CHUNKS)
    with pytest.raises(LocalizedError, match="--redraw --why TEXT"):
        sampling.draw_sample(engine, "p", "4", seed=2, lead=sampled_pool["boss"])
    with pytest.raises(Refused):
        sampling.draw_sample(engine, "p", "4", seed=2, lead=sampled_pool["x"], redraw=True, why=WHY)
    with pytest.raises(LocalizedError, match="control character"):
        sampling.draw_sample(engine, "p", "4", lead=sampled_pool["boss"], redraw=True, why="a\x1b")
    record = sampling.draw_sample(
        engine, "p", "4", seed=2, lead=sampled_pool["boss"], redraw=True, why=WHY
    )
    assert [(d.account, d.judged_before) for d in record.draws] == [("boss", 0), ("boss", 2)]


def test_a_release_carries_every_draw_and_the_estimate_names_the_one_in_force(
    sampled_pool, engine, db_url, tmp_path
):
    sample_json(db_url, "--queries", "12", "--seed", "9")
    judge(engine, sampled_pool, 2 * CHUNKS)
    drawn = sample_json(db_url, "--queries", "12", "--seed", "4", "--redraw", "--why", WHY)
    folder, run = people_grade_and_release(engine, db_url, tmp_path, drawn)
    assert verify_release(folder) == []
    kept = read_sample(folder)
    assert [(d["seed"], d["reason"]) for d in kept["draws"]] == [(9, None), (4, WHY)]
    args = ["evaluate", "--release", folder, "--run", run, "--metrics", "ndcg@3"]
    shown = run_qrels(db_url, *args, "--estimate", "judge-m").output
    assert f"sample: draw 2 of 2, redrawn after 2 judged queries: {WHY}" in shown
    shown = run_qrels(db_url, "--lang", "zh", *args, "--estimate", "judge-m").output
    assert f"样本：第 2 次抽样，共 2 次，在 2 条查询已人工标注后重新抽样：{WHY}" in shown


def test_an_older_release_without_draws_still_verifies_and_says_so(sampled_pool, engine, tmp_path):
    sampling.draw_sample(engine, "p", "4", seed=2)
    folder = releases.create_release(engine, "v1", "p", tmp_path, allow_unresolved=True).folder
    older = tmp_path / "older"
    older.mkdir()
    (older / SAMPLE).write_text('{"design": "uniform", "seed": 2, "queries": []}\n')
    assert read_sample(older)["design"] == "uniform"  # format 1: no draws, still read
    assert draw_line(read_sample(older).get("draws"), "en") == (
        "sample: the release does not say how often it was drawn (made before draws were kept)"
    )
    data = json.loads((folder / SAMPLE).read_text())
    assert data["format"] == 2 and len(data["draws"]) == 1
    assert draw_line(data["draws"], "en") == "sample: draw 1 of 1"
    hostile = [{"draw": 1}, {"draw": 2, "judged_before": 7, "reason": "\x1b[2Jgone\u202e"}]
    assert draw_line(hostile, "en") == (
        "sample: draw 2 of 2, redrawn after 7 judged queries: \\x1b[2Jgone\\u202e"
    )
