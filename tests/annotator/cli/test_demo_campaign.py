"""``qrels demo`` loads a campaign in progress (issue 25): three annotators' grades over
three days with overlaps and real disagreements, a lead's decisions, a gold item, a release
and a weaker and a stronger run, all written through the app's own functions; the
annotators still have work left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import select

from annotator.cli import cli
from annotator.cli.demo_campaign import grade, plan
from annotator.labeling import assignment
from annotator.quality import adjudication, gold, pool_quality
from storage.accounts import get_user
from storage.db import make_engine, session_scope
from storage.models import Adjudication, Judgment

POOL = "demo-pool"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, str, str]:
    """``qrels demo --no-serve`` once for the module: its folder, URL and output."""
    folder = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QRELS_CACHE_DIR", str(folder / "cache"))
        patch.setenv("QRELS_LANG", "en")
        result = CliRunner().invoke(
            cli, ["demo", "--dir", str(folder), "--no-serve"], catch_exceptions=False
        )
    assert result.exit_code == 0, result.output
    return folder, f"sqlite:///{folder / 'qrels.db'}", result.output


def test_the_demo_says_what_it_loaded_and_how_to_use_it(demo):
    folder, url, output = demo
    assert "a campaign in progress: 144 judgments by 3 annotators over three days" in output
    assert "2 lead decisions, 1 gold item, release" in output
    assert f"{folder / 'runs' / 'vector-16d.trec'}, {folder / 'runs' / 'bm25.trec'}" in output
    # not "0 leads" above three accounts
    assert "accounts that can log in: 1 leads, 3 annotators" in output
    assert "  source .venv/bin/activate" in output
    assert f"  export QRELS_RELEASE_DIR={folder.resolve() / 'releases'}" in output
    assert "annotator3   annotator  demo-annotator-3" in output


def test_three_annotators_share_items_and_disagree(demo):
    _, url, _ = demo
    engine = make_engine(url)
    view = pool_quality.pool_agreement(engine, POOL, "threshold", rounds=0)
    everyone = view.reports[0]
    assert everyone.annotators == ["annotator1", "annotator2", "annotator3"]
    shared = {pair.annotators: pair.shared for pair in everyone.pairs}
    assert all(count >= 2 for count in shared.values()), shared
    assert everyone.alpha.value is not None and everyone.alpha.value < 0.95
    table, decisions, _ = pool_quality.pool_table(engine, POOL, "threshold")
    disputed = adjudication.queue(table)
    assert len(disputed) >= 3  # left for the lead, besides the two decided
    assert len(decisions) == 2
    for (query_id, chunk_id), (final, rationale, *_) in decisions.items():
        assert final == grade("careful", query_id, chunk_id, plan()) and rationale
    gold_items = gold.gold_items(engine, POOL)
    assert [(g.query_id, g.chunk_id) for g in gold_items] == [next(iter(decisions))]


def test_the_judgments_fall_on_three_days_and_were_made_through_assignments(demo):
    _, url, _ = demo
    with session_scope(make_engine(url)) as session:
        judgments = session.exec(select(Judgment)).all()
        decided = session.exec(select(Adjudication)).all()
    assert len(judgments) == 144
    assert all(j.assignment_id is not None for j in judgments)  # the app's path, not rows
    days = {j.created_at.date() for j in judgments}
    hours = {j.created_at.replace(minute=0, second=0, microsecond=0) for j in judgments}
    assert len(days) == 3 and len(hours) >= 9
    assert all(d.created_at > max(j.created_at for j in judgments) for d in decided)


def test_the_release_and_the_two_runs_evaluate_the_stronger_higher(demo):
    folder, url, _ = demo
    runner = CliRunner()
    release = folder / "releases" / "demo-v1"
    verified = runner.invoke(cli, ["--db", url, "release", "verify", str(release)])
    assert verified.exit_code == 0, verified.output
    runs = [folder / "runs" / "vector-16d.trec", folder / "runs" / "bm25.trec"]
    result = runner.invoke(
        cli,
        ["evaluate", "--release", str(release), "--run", str(runs[0]), "--run", str(runs[1])]
        + ["--metrics", "ndcg@10,recall@5", "--rounds", "0", "--json"],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    value = {(r["run"], r["metric"]): r["value"] for r in summary if r["group"] == "all"}
    assert value[("bm25", "ndcg@10")] > value[("vector", "ndcg@10")] + 0.1
    counted = json.loads(result.stdout)["queries"]
    assert counted["counted"] >= 8, counted


def test_the_annotators_still_have_work_and_a_second_run_adds_nothing(demo):
    folder, url, _ = demo
    engine = make_engine(url)
    again = CliRunner().invoke(cli, ["demo", "--dir", str(folder), "--no-serve"])
    assert again.exit_code == 0 and "campaign in progress" not in again.output
    with session_scope(engine) as session:
        assert len(session.exec(select(Judgment)).all()) == 144
        ids = {n: get_user(n, session=session).id for n in ("annotator1", "annotator3")}
    for user_id in ids.values():
        assert assignment.next_item(engine, POOL, user_id) is not None


def test_the_demos_app_finds_the_demos_release(tmp_path, monkeypatch):
    """``qrels demo`` serves the app with QRELS_RELEASE_DIR at the demo's releases, so that
    Evaluate offers demo-v1 (``--empty`` here: the same serving, quicker)."""
    from annotator.cli import serving

    started = []  # the environment each of the two app processes would get
    monkeypatch.setattr(
        serving,
        "serve_two",
        lambda command, url, port, host, niceness, **settings: started.extend(
            serving.app_environment(url, process, **settings) for process in ("annotators", "leads")
        ),
    )
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("QRELS_RELEASE_DIR", raising=False)
    result = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path / "d"), "--empty"])
    assert result.exit_code == 0, result.output
    releases = str((tmp_path / "d" / "releases").resolve())
    assert [env["QRELS_RELEASE_DIR"] for env in started] == [releases, releases]
