"""``qrels judge``, ``qrels judge report`` and ``qrels judge prompt`` against the local
server, on SQLite and PostgreSQL; and ``qrels calibrate`` giving the report's figures."""

from __future__ import annotations

import json

from annotator.judge.prompt import Prompt, default_prompt
from annotator.judge.runner import judge_name
from tests.annotator.judge.test_judge import CANDIDATES, judged_pool  # noqa: F401  (a fixture)
from tests.conftest import run_qrels, write
from tests.fake_chat_server import FakeChat, Script, answer


def test_judge_then_report_in_both_languages(judged_pool, db_url, monkeypatch):  # noqa: F811
    monkeypatch.setenv("LOCAL_TEST_API_KEY", "sk-local")
    script = Script({"Green tea": [answer(2, "brewed in a pot")]})  # a made-up quote
    with FakeChat(script) as server:
        done = run_qrels(db_url, "judge", "--pool", "p", "--model", "small-model",
                         "--base-url", server.url + "/", "--api-key-env", "LOCAL_TEST_API_KEY",
                         "--concurrency", "2", "--retries", "1", "--timeout", "5")  # fmt: skip
    judge = judge_name("small-model", default_prompt().hash)
    assert f"run 1: small-model on pool p as {judge}, {CANDIDATES} candidates" in done.output
    assert f"run 1 done: {CANDIDATES - 2} graded, 2 failed, 3 flagged" in done.output
    assert len(server.requests) == CANDIDATES + 2  # the two misquoted ones, asked twice
    text = run_qrels(db_url, "judge", "report", "--pool", "p", "--model", "small-model").output
    assert f"small-model on pool p, as {judge}; prompt judge-v1" in text
    misquoted = "evidence not found in the passage (misquoted): 4 failed attempts; "
    assert misquoted + "candidates left without a grade: 2" in text
    assert "cost: 10 requests, 1,200 tokens in, 300 tokens out" in text
    assert f"{judge} against the final grades of pool p:" in text
    assert "misquoted\tq-bike\ttea" in text and "flagged\tq-zh\tinject-zh" in text
    chinese = run_qrels(
        db_url, "--lang", "zh", "judge", "report", "--pool", "p", "--model", "small-model"
    ).output
    assert "证据在片段中找不到（引用不实）：失败尝试 4 次" in chinese
    shown = run_qrels(db_url, "judge", "report", "--pool", "p", "--model", "small-model", "--json")
    data = json.loads(shown.stdout)
    assert (data["graded"], data["failed"], data["flagged"], data["requests"]) == (6, 2, 3, 10)
    assert data["failed_by_reason"] == {"evidence_not_in_passage": 2}


def test_qrels_calibrate_gives_the_figures_of_the_report(judged_pool, db_url, tmp_path):  # noqa: F811
    with FakeChat() as server:
        run_qrels(db_url, "judge", "--pool", "p", "--model", "m", "--base-url", server.url)
    report = json.loads(run_qrels(db_url, "judge", "report", "--model", "m", "--json").stdout)
    folder = tmp_path / "r1"
    run_qrels(db_url, "release", "create", "r1", "--pool", "p", "--out", tmp_path,
              "--allow-unresolved")  # fmt: skip
    judge = judge_name("m", default_prompt().hash)
    calibrated = json.loads(
        run_qrels(db_url, "calibrate", "--judge", judge, "--release", folder, "--json").output
    )
    mine = report["calibration"]
    assert mine["shared"] == calibrated["shared"] > 0
    for key in ("kappas", "confusion", "per_slice", "differences", "judge"):
        assert mine[key] == calibrated[key], key


def test_a_prompt_written_out_reads_back_the_same(judged_pool, db_url, tmp_path):  # noqa: F811
    shown = run_qrels(db_url, "judge", "prompt").output
    path = write(tmp_path, "prompt.json", shown)
    assert json.loads(shown)["hash"] == Prompt.from_file(path).hash == default_prompt().hash
    broken = json.loads(shown)
    broken["zh"]["user"] = broken["zh"]["user"].replace("{passage}", "")
    bad = write(tmp_path, "bad.json", json.dumps(broken, ensure_ascii=False))
    refused = run_qrels(db_url, "judge", "prompt", "--prompt", bad, expect=2)
    wanted = "field 'zh.user' must hold exactly these placeholders, each once: {passage}, {query}"
    assert wanted in refused.stderr
    missing = run_qrels(db_url, "judge", "--pool", "p", expect=2)
    assert "--model and --base-url are needed" in missing.stderr
