"""The model judge with metric estimates (issues 23 and 24 together), on both databases: a
release carries each judged grade's prompt hash in model_judgments.jsonl (null for grades
imported with --kind model); qrels evaluate --estimate takes the model's name as it was
asked for, not only its account; a failed run of the judge exits 2 like every command that
could not run."""

from __future__ import annotations

import json

import pytest

from annotator.evaluation import estimation
from annotator.judge.prompt import default_prompt
from annotator.judge.runner import judge_name, judge_pool
from annotator.labeling.sampling import draw_sample
from annotator.releases.releases import create_release
from pooling.i18n import LocalizedError
from pooling.release_folder import MODEL_JUDGMENTS
from storage.db import session_scope
from storage.imports import import_judgments
from tests.annotator.judge.test_judge import (  # noqa: F401  (a fixture)
    FAST,
    RUNS,
    SYSTEMS,
    judged_pool,
)
from tests.conftest import run_qrels, write
from tests.fake_chat_server import FakeChat, Scripted
from tests.storage.test_imports import jsonl


def test_a_release_carries_the_judge_s_prompt_hash_and_estimates_take_its_model_name(
    judged_pool,  # noqa: F811  (the fixture)
    db_url,
    tmp_path,
):
    with FakeChat() as server:
        judge_pool(judged_pool, "p", "judge-model", server.url, settings=FAST)
    imported = [{"query_id": "q-bike", "chunk_id": "bike", "grade": 2}]
    with session_scope(judged_pool) as session:
        import_judgments(
            write(tmp_path, "imported.jsonl", jsonl(imported)),
            session=session,
            annotator="imported-model",
            rubric_version="v1",
            kind="model",
        )
    draw_sample(judged_pool, "p", "3", seed=1)
    folder = create_release(judged_pool, "r1", "p", tmp_path, allow_unresolved=True).folder
    rows = [json.loads(line) for line in (folder / MODEL_JUDGMENTS).read_text().splitlines()]
    account = judge_name("judge-model", default_prompt().hash)
    hashes = {(row["model"], row["prompt_hash"]) for row in rows}
    assert hashes == {(account, default_prompt().hash), ("imported-model", None)}
    assert sum(row["model"] == account for row in rows) == 5  # the unflagged candidates

    run = write(
        tmp_path,
        "alpha.trec",
        "".join(
            f"{q} Q0 {c} {rank} {score} alpha\n"
            for rank, (q, c, score) in enumerate(RUNS[SYSTEMS[0]], 1)
        ),
    )
    args = ["evaluate", "--release", folder, "--run", run, "--json"]
    data = json.loads(run_qrels(db_url, *args, "--estimate", "judge-model").stdout)
    assert data["estimates"]["model"] == account
    assert (
        json.loads(run_qrels(db_url, *args, "--estimate", account).stdout)["estimates"]["model"]
        == account
    )
    unknown = run_qrels(db_url, *args, "--estimate", "judge", expect=2)
    assert "imported-model" in unknown.stderr and account in unknown.stderr


def test_the_judge_s_account_is_read_back_to_its_model_and_two_prompts_are_named():
    first, second = "a" * 64, "b" * 64
    for model in ("qwen2.5:7b", "org/model@v2"):
        found = estimation.JUDGE_ACCOUNT.match(judge_name(model, first))
        assert found is not None and found["model"] == model  # runner's rule, read back
    models = {judge_name("m", first): None, "m-imported": None}
    assert estimation.model_account(models, "m") == judge_name("m", first)
    assert estimation.model_account(models, "m-imported") == "m-imported"
    models[judge_name("m", second)] = None
    with pytest.raises(LocalizedError, match="more than one prompt") as raised:
        estimation.model_account(models, "m")
    assert judge_name("m", second) in str(raised.value)


def test_a_failed_run_of_the_judge_exits_2(judged_pool, db_url):  # noqa: F811
    refused = Scripted(401, {"error": {"message": "invalid api key"}})
    with FakeChat(lambda request: refused) as server:
        failed = run_qrels(
            db_url, "judge", "--pool", "p", "--model", "m", "--base-url", server.url, expect=2
        )
    assert "HTTP 401" in failed.output + failed.stderr
