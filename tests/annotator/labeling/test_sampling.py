"""qrels sample on both databases: a sample recorded with its design and seed, append-only,
stratified by slice or drawn by a model's uncertainty; the app hands its queries out
first; a release carries the model's grades and the sample; and the whole way from a pool
to qrels evaluate --estimate."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from annotator.labeling import assignment, sampling
from annotator.releases import releases
from pooling.i18n import Refused
from pooling.release_folder import (
    MODEL_JUDGMENTS,
    SAMPLE,
    read_model_judgments,
    read_sample,
    verify_release,
)
from storage.db import session_scope
from storage.imports import import_judgments
from tests.conftest import run_qrels, write
from tests.storage.test_imports import jsonl

QUERIES, CHUNKS = 24, 3


@pytest.fixture
def sampled_pool(engine, tmp_path, monkeypatch):
    """Pool ``p`` of 24 queries x 3 chunks (slices: even queries "even", the rest "odd",
    q23 unanswerable), overlap 2; annotators x and y, lead boss; a model judge ``judge-m``
    that graded every candidate (grade 1 on the first 6 queries, else 0 or 3)."""
    from annotator.auth import add_user
    from annotator.pools.pool_building import build_pool
    from storage.imports import import_corpus, import_queries, import_run

    monkeypatch.setenv("QRELS_LANG", "en")
    corpus = [
        {"_id": f"c{q}-{c}", "text": f"chunk {q} {c}"}
        for q in range(QUERIES)
        for c in range(CHUNKS)
    ]
    queries = [
        {
            "_id": f"q{q:02d}",
            "text": f"query {q}",
            "slices": ["even" if q % 2 == 0 else "odd"],
            "answerable": q != 23,
        }
        for q in range(QUERIES)
    ]
    run = "".join(
        f"q{q:02d} Q0 c{q}-{c} {c + 1} {9 - c} r\n" for q in range(QUERIES) for c in range(CHUNKS)
    )
    grades = [
        {"query_id": f"q{q:02d}", "chunk_id": f"c{q}-{c}", "grade": 1 if q < 6 else 3 * (c == 0)}
        for q in range(QUERIES)
        for c in range(CHUNKS)
    ]
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
        users = {n: add_user(n, "annotator", "password-1", session=session).id for n in "xy"}
        users["boss"] = add_user("boss", "lead", "password-1", session=session).id
        import_judgments(
            write(tmp_path, "m.jsonl", jsonl(grades)),
            session=session,
            annotator="judge-m",
            kind="model",
            rubric_version="v1",
        )
    build_pool(engine, "p", systems="run:r", depth=CHUNKS, overlap=2)
    return users


def sample_json(db_url: str, *args) -> dict:
    return json.loads(run_qrels(db_url, "sample", "--pool", "p", *args, "--json").stdout)


def test_a_sample_is_recorded_with_its_design_and_never_changed(sampled_pool, engine, db_url):
    first = sample_json(db_url, "--queries", "25%", "--seed", "3")
    assert (first["design"], first["size"], first["population"], first["seed"]) == (
        "uniform",
        6,
        23,  # the unanswerable query is never drawn
        3,
    )
    assert [q["probability"] for q in first["queries"]] == pytest.approx([6 / 23] * 6)
    assert "q23" not in {q["query_id"] for q in first["queries"]}
    larger = sample_json(db_url, "--queries", "10", "--seed", "3")
    ids = [q["query_id"] for q in larger["queries"]]
    assert ids[:6] == [q["query_id"] for q in first["queries"]]  # a sample grows, keeps its own
    assert [m.query_id for m in sampling.current(engine, "p").members] == ids
    for statement in ("UPDATE query_sample SET seed = 4", "DELETE FROM query_sample_member"):
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
            connection.execute(text(statement))
    shown = run_qrels(db_url, "sample", "--pool", "p", "--queries", "5", "--seed", "1").output
    assert "pool p: 5 of 23 queries drawn (uniform, seed 1)" in shown


def test_only_a_lead_samples(sampled_pool, engine):
    with pytest.raises(Refused):
        sampling.draw_sample(engine, "p", "5", lead=sampled_pool["x"])
    assert sampling.draw_sample(engine, "p", "5", lead=sampled_pool["boss"]).size == 5


def test_a_sample_stratified_by_slice(sampled_pool, db_url):
    drawn = sample_json(db_url, "--queries", "8", "--by", "slice", "--seed", "2")
    assert drawn["design"] == "stratified"
    assert drawn["config"]["strata"] == {
        "even": {"queries": 12, "drawn": 4},
        "odd": {"queries": 11, "drawn": 4},
    }
    assert {q["stratum"] for q in drawn["queries"]} == {"even", "odd"}


def test_a_sample_by_the_model_s_uncertainty(sampled_pool, db_url):
    refused = run_qrels(
        db_url, "sample", "--pool", "p", "--queries", "6", "--by", "uncertainty", expect=2
    )
    assert "--by uncertainty needs --model" in refused.stderr
    person = run_qrels(
        db_url,
        "sample",
        "--pool",
        "p",
        "--queries",
        "6",
        "--by",
        "uncertainty",
        "--model",
        "x",
        expect=2,
    )
    assert "'x' is a person's account, not a model judge's" in person.stderr
    drawn = sample_json(
        db_url, "--queries", "6", "--by", "uncertainty", "--model", "judge-m", "--seed", "5"
    )
    assert drawn["design"] == "uncertainty" and drawn["model"] == "judge-m"
    probability = {q["query_id"]: q["probability"] for q in drawn["queries"]}
    # Queries the model graded 1 (uncertain) had a higher probability than the rest.
    unsure = [p for q, p in probability.items() if int(q[1:]) < 6]
    sure = [p for q, p in probability.items() if int(q[1:]) >= 6]
    assert unsure and sure and min(unsure) > max(sure)


def test_the_app_hands_out_the_sampled_queries_first(sampled_pool, engine):
    members = {m.query_id for m in sampling.draw_sample(engine, "p", "2", seed=11).members}
    assert len(members) == 2
    seen = []
    for _ in range(2 * CHUNKS):  # both sampled queries, whole, before any other
        item = assignment.next_item(engine, "p", sampled_pool["x"])
        assert assignment.submit(engine, item, sampled_pool["x"], grade=1)
        seen.append(item.query_id)
    assert set(seen) == members
    other = assignment.next_item(engine, "p", sampled_pool["x"])
    assert other.query_id not in members
    first = assignment.next_item(engine, "p", sampled_pool["y"])
    assert first.query_id in members  # their second judgments come first for y too


def test_a_release_carries_the_model_s_grades_and_the_sample(sampled_pool, engine, tmp_path):
    members = sampling.draw_sample(engine, "p", "4", seed=2).members
    folder = releases.create_release(engine, "v1", "p", tmp_path, allow_unresolved=True).folder
    assert verify_release(folder) == []
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {MODEL_JUDGMENTS, SAMPLE} <= set(manifest["files"])
    model = read_model_judgments(folder)
    assert list(model) == ["judge-m"] and model["judge-m"].size == QUERIES * CHUNKS
    first = json.loads((folder / MODEL_JUDGMENTS).read_text().splitlines()[0])
    assert first["prompt_hash"] is None and first["model"] == "judge-m"
    assert (folder / "qrels.trec").read_text() == ""  # model grades never become qrels
    sample = read_sample(folder)
    assert [q["query_id"] for q in sample["queries"]] == [m.query_id for m in members]
    (folder / SAMPLE).write_text('{"design": "uniform", "queries": []}\n')
    assert verify_release(folder) == [
        "sample.json: sha256 differs from the manifest (changed after release)"
    ]


def people_grade_and_release(engine, db_url, tmp_path, drawn: dict) -> tuple:
    """People h1 and h2 grade every candidate of the ``drawn`` sample's queries (the first
    chunk 2, the rest 0), ``qrels release create v1`` of pool p into ``tmp_path``, and a
    run over every query: the release's folder and the run's file."""
    grades = [
        {
            "query_id": q["query_id"],
            "chunk_id": f"c{int(q['query_id'][1:])}-{c}",
            "grade": 2 * (c == 0),
        }
        for q in drawn["queries"]
        for c in range(CHUNKS)
    ]
    for person in ("h1", "h2"):
        with session_scope(engine) as session:
            import_judgments(
                write(tmp_path, f"{person}.jsonl", jsonl(grades)),
                session=session,
                annotator=person,
                rubric_version="v1",
            )
    run_qrels(
        db_url,
        "release",
        "create",
        "v1",
        "--pool",
        "p",
        "--out",
        tmp_path,
        "--allow-unresolved",
    )
    run = write(
        tmp_path,
        "run.trec",
        "".join(
            f"q{q:02d} Q0 c{q}-{c} {c + 1} {3 - c} r\n"
            for q in range(QUERIES)
            for c in range(CHUNKS)
        ),
    )
    return tmp_path / "v1", run


def test_from_a_pool_to_estimates(sampled_pool, engine, db_url, tmp_path):
    drawn = sample_json(db_url, "--queries", "12", "--seed", "4")
    _, run = people_grade_and_release(engine, db_url, tmp_path, drawn)
    args = ["evaluate", "--release", tmp_path / "v1", "--run", run, "--metrics", "ndcg@3"]
    shown = run_qrels(db_url, *args, "--estimate", "judge-m").output
    assert "sample of 12 of 23 queries (uniform, seed 4)" in shown
    assert "all: 23 queries, 12 judged by people (52%)" in shown
    assert "people graded 100% of the model-graded candidates" in shown
    assert "  sample: draw 1 of 1\n" in shown
    missing = run_qrels(db_url, *args, "--estimate", "nobody", expect=2)
    assert "holds no grades by model 'nobody'" in missing.stderr
