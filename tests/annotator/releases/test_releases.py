"""Adjudication and releases: files that load in ir_measures, ranx and BEIR tooling, hashes
that catch tampering, versions that are never rewritten, and nDCG computed by hand."""

from __future__ import annotations

import csv
import json
import math
import warnings

import pytest
from click.testing import CliRunner

from annotator.auth import add_user
from annotator.cli import cli
from annotator.evaluation import evaluation
from annotator.evaluation.comparison import run_under_two_releases
from annotator.evaluation.run_files import RunFile
from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.quality import adjudication, agreement, pool_quality
from annotator.releases import releases
from pooling import release_folder
from pooling.metrics import Metric
from pooling.run import Run
from storage import accounts
from storage.db import session_scope
from storage.history import adjudicate
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.pool_records import get_pool
from tests.conftest import write
from tests.storage.test_imports import jsonl

CORPUS = [
    {"_id": "a#0", "doc_id": "a", "title": "A", "text": "alpha one"},
    {"_id": "a#1", "doc_id": "a", "title": "A", "text": "alpha two"},
    {"_id": "b#0", "doc_id": "b", "title": "B", "text": "beta one"},
    {"_id": "c#0", "doc_id": "c", "title": "C", "text": "gamma one"},
]
QUERIES = [
    {"_id": "q1", "text": "alpha", "slices": ["en"], "split": "test"},
    {"_id": "q2", "text": "beta", "slices": ["en", "hard"], "split": "dev"},
    {"_id": "q3", "text": "nothing here", "answerable": False},
]
RUN = "q1 Q0 a#0 1 3 r\nq1 Q0 a#1 2 2 r\nq1 Q0 b#0 3 1 r\nq2 Q0 b#0 1 2 r\nq2 Q0 c#0 2 1 r\n"
# What each annotator gives each candidate: one disagreement on each side of grade 2.
GRADES = {
    "ann1": {
        ("q1", "a#0"): 3,
        ("q1", "a#1"): 2,
        ("q1", "b#0"): 0,
        ("q2", "b#0"): 3,
        ("q2", "c#0"): 1,
    },
    "ann2": {
        ("q1", "a#0"): 3,
        ("q1", "a#1"): 1,
        ("q1", "b#0"): 0,
        ("q2", "b#0"): 2,
        ("q2", "c#0"): 0,
    },
}


@pytest.fixture
def pooled(engine, tmp_path, monkeypatch):
    """Pool ``p`` (run ``r``, depth 5, overlap 2); annotators ann1 and ann2 and lead boss,
    all with the password ``password-1``; nothing judged yet."""
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", RUN), session=session, system="r")
        for name in GRADES:
            add_user(name, "annotator", "password-1", session=session)
        add_user("boss", "lead", "password-1", session=session)
    build_pool(engine, "p", systems="run:r", depth=5)
    return engine


@pytest.fixture
def judged(pooled):
    """``pooled`` with both annotators' ``GRADES`` given in the app."""
    engine = pooled
    with session_scope(engine) as session:
        ids = {name: accounts.get_user(name, session=session).id for name in GRADES}
    for name, grades in GRADES.items():
        while (item := assignment.next_item(engine, "p", ids[name])) is not None:
            assignment.submit(
                engine,
                item,
                ids[name],
                grade=grades[(item.query_id, item.chunk_id)],
                note="checked the numbers",
            )
    return engine


def decide(engine, query_id, chunk_id, grade, why="read it twice"):
    with session_scope(engine) as session:
        lead = accounts.get_user("boss", session=session)
        adjudicate(
            get_pool("p", session=session),
            query_id,
            chunk_id,
            grade,
            why,
            lead,
            "threshold",
            session=session,
        )


def test_the_queue_follows_the_policy_most_severe_first(judged):
    frame = pool_quality.judgments_frame(judged, "p")
    table = adjudication.candidates(frame, "threshold", overlap=2)
    assert list(adjudication.queue(table)[["query_id", "chunk_id"]].itertuples(index=False)) == [
        ("q1", "a#1")
    ]  # 2 vs 1: different sides of grade 2
    anything = adjudication.queue(adjudication.candidates(frame, "any", overlap=2))
    assert [tuple(r) for r in anything[["query_id", "chunk_id"]].itertuples(index=False)] == [
        ("q1", "a#1"),
        ("q2", "b#0"),
        ("q2", "c#0"),
    ]
    assert adjudication.queue(adjudication.candidates(frame, "gap2", overlap=2)).empty
    by_slice = adjudication.queue(
        adjudication.candidates(frame, "any", overlap=2), slice_tag="hard"
    )
    assert set(by_slice["query_id"]) == {"q2"}
    annotators = set(frame["annotator"])
    for name in annotators:
        mine = adjudication.queue(adjudication.candidates(frame, "any", overlap=2), annotator=name)
        assert len(mine) == 3  # both judged everything
    # Filters that leave nothing, one after another: an empty queue, not an error.
    nothing = adjudication.queue(table, slice_tag="no such slice", annotator=min(annotators))
    assert nothing.empty and list(nothing.columns) == list(table.columns)
    with pytest.raises(ValueError, match="unknown policy 'vote'"):
        adjudication.candidates(frame, "vote", overlap=2)


def test_a_release_is_refused_while_candidates_are_unresolved(judged, tmp_path):
    with pytest.raises(releases.ReleaseError, match="1 candidates are unresolved"):
        releases.create_release(judged, "v1", "p", tmp_path / "r1")
    # The refusal comes once judgments.jsonl is written: nothing of it is left, nor the
    # folders made to hold it.
    before = sorted(tmp_path.iterdir())
    with pytest.raises(releases.ReleaseError, match="1 candidates are unresolved"):
        releases.create_release(judged, "v1", "p", tmp_path / "new" / "deeper")
    assert sorted(tmp_path.iterdir()) == before
    result = releases.create_release(judged, "v1", "p", tmp_path / "r1", allow_unresolved=True)
    assert result.folder == tmp_path / "r1" / "v1"
    assert result.manifest["counts"]["unresolved_left_out"] == 1
    assert "q1 0 a#1" not in (result.folder / "qrels.trec").read_text()


@pytest.fixture
def released(judged, tmp_path):
    decide(judged, "q1", "a#1", 2)
    return releases.create_release(judged, "v1", "p", tmp_path).folder


def test_release_files(released):
    assert (released / "qrels.trec").read_text().splitlines() == [
        "q1 0 a#0 3",
        "q1 0 a#1 2",
        "q1 0 b#0 0",
        "q2 0 b#0 2",
        "q2 0 c#0 0",
    ]
    assert (released / "qrels-doc.trec").read_text().splitlines() == [
        "q1 0 a 3",
        "q1 0 b 0",
        "q2 0 b 2",
        "q2 0 c 0",
    ]
    with open(released / "qrels.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert rows[0] == {"query-id": "q1", "corpus-id": "a#0", "score": "3"}
    queries = {
        q["_id"]: q for q in map(json.loads, (released / "queries.jsonl").read_text().splitlines())
    }
    assert queries["q3"]["flags"] == ["no chunk graded 2 or more"]  # kept, flagged
    assert queries["q2"]["slices"] == ["en", "hard"] and queries["q2"]["split"] == "dev"
    history = [json.loads(line) for line in (released / "judgments.jsonl").read_text().splitlines()]
    assert {h["type"] for h in history} == {"judgment", "adjudication"}
    text = (released / "judgments.jsonl").read_text()
    assert "ann1" not in text and "boss" not in text  # pseudonyms only
    assert len({h["annotator"] for h in history if h["type"] == "judgment"}) == 2
    manifest = json.loads((released / "manifest.json").read_text())
    assert manifest["query_set"]["name"] == "q" and manifest["corpus_version"]["name"] == "c"
    assert manifest["rubric_versions"] == ["v1"] and manifest["pool"]["name"] == "p"
    assert manifest["counts"]["per_grade"] == {"0": 2, "1": 0, "2": 2, "3": 1}
    assert manifest["counts"]["adjudicated"] == 1
    # chunk-places.tsv only where a chunk has a page or section (a JSONL corpus has none)
    assert set(manifest["files"]) == set(release_folder.FILES) - {release_folder.CHUNK_PLACES}


def test_a_release_loads_in_ir_measures_and_ranx_and_ndcg_matches_a_hand_computation(
    released, tmp_path
):
    import ir_measures
    import ranx

    run = {"q1": {"a#1": 3.0, "b#0": 2.0, "a#0": 1.0}, "q2": {"c#0": 2.0, "b#0": 1.0}}
    # By hand: q1 ranks a#1 (2), b#0 (0), a#0 (3); the ideal is 3, 2.
    q1 = (2 + 0 / math.log2(3) + 3 / math.log2(4)) / (3 + 2 / math.log2(3))
    q2 = (0 + 2 / math.log2(3)) / 2
    expected = (q1 + q2) / 2
    qrels = list(ir_measures.read_trec_qrels(str(released / "qrels.trec")))
    run_rows = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    assert ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, run_rows)[
        ir_measures.nDCG @ 10
    ] == pytest.approx(expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_qrels = ranx.Qrels.from_file(str(released / "qrels.trec"), kind="trec")
        assert ranx.evaluate(ranx_qrels, ranx.Run(run), "ndcg@10") == pytest.approx(expected)
    ours = evaluation.evaluate(
        evaluation.load_release(released),
        [RunFile(Run(run, "r"), "memory")],
        evaluation.Settings(metrics=(Metric("ndcg", 10),), rounds=0),
    )
    assert ours.mean("ndcg@10") == pytest.approx(expected)


def test_verify_passes_and_a_tampered_file_fails(released):
    assert release_folder.verify_release(released) == []
    with open(released / "qrels.trec", "a") as handle:
        handle.write("q9 0 zz 3\n")
    assert release_folder.verify_release(released) == [
        "qrels.trec: sha256 differs from the manifest (changed after release)"
    ]


def test_a_version_is_never_written_twice(released, judged, tmp_path):
    with pytest.raises(releases.ReleaseError, match="release 'v1' already exists"):
        releases.create_release(judged, "v1", "p", tmp_path / "again")


def test_diff_and_a_runs_metrics_between_releases(released, judged, tmp_path):
    decide(judged, "q2", "c#0", 1, "on topic after all")
    second = releases.create_release(judged, "v2", "p", tmp_path).folder
    run = write(tmp_path, "run.trec", "q1 Q0 a#1 1 3 s\nq1 Q0 a#0 2 2 s\nq2 Q0 c#0 1 2 s\n")
    change = releases.diff_releases(released, second)
    assert (change.added, change.removed, change.changed) == ([], [], [("q2", "c#0", 0, 1)])
    metrics, counted = run_under_two_releases(released, second, run, k=10)
    assert counted == (2, 2)
    before, after = metrics["Recall@10"]
    # q1 finds both relevant chunks; q2 finds none of {b#0}, then one of {b#0, c#0}.
    assert before == pytest.approx((1.0 + 0.0) / 2) and after == pytest.approx((1.0 + 0.5) / 2)
    # The CLI: the figures first, unrounded, then the counts and the changed judgments.
    args = ["release", "diff", str(released), str(second), "--run", str(run)]
    lines = CliRunner().invoke(cli, ["--lang", "en", *args]).stdout.splitlines()
    ndcg = metrics["nDCG@10"]
    assert lines[0] == f"nDCG@10: {ndcg[0]!r} -> {ndcg[1]!r} ({ndcg[1] - ndcg[0]:+})"
    assert lines[1] == "Recall@10: 0.5 -> 0.75 (+0.25)"
    assert lines[2].startswith("the metrics average over 2 -> 2 queries")
    assert lines[3:] == ["added 0, removed 0, changed 1", "~ q2 c#0 0 -> 1"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert data["metrics"]["nDCG@10"] == {"a": ndcg[0], "b": ndcg[1], "change": ndcg[1] - ndcg[0]}
    assert data["counted_queries"] == {"a": 2, "b": 2} and data["level"] == "chunk"
    assert data["counts"] == {"added": 0, "removed": 0, "changed": 1}
    assert data["changed"] == [{"query_id": "q2", "id": "c#0", "before": 0, "after": 1}]


def test_an_older_release_is_still_verified_and_read(released):
    """A release written before pool-unjudged.tsv, whose manifest still counts
    ``queries_without_evidence`` (now ``queries_without_grade_2``)."""
    manifest = json.loads((released / "manifest.json").read_text())
    counts = manifest["counts"]
    counts["queries_without_evidence"] = counts.pop("queries_without_grade_2")
    del counts["pooled_unjudged"], manifest["files"]["pool-unjudged.tsv"]
    (released / "pool-unjudged.tsv").unlink()
    (released / "manifest.json").write_text(json.dumps(manifest))
    assert release_folder.verify_release(released) == []
    assert evaluation.load_release(released).pool_unjudged is None
    ok = CliRunner().invoke(cli, ["release", "verify", str(released)])
    assert ok.exit_code == 0 and "intact" in ok.output, ok.output + ok.stderr


def test_release_cli(released, judged, tmp_path, db_url):
    runner = CliRunner()
    ok = runner.invoke(cli, ["release", "verify", str(released)])
    assert ok.exit_code == 0 and "intact" in ok.output
    (released / "queries.jsonl").write_text("tampered\n")
    bad = runner.invoke(cli, ["release", "verify", str(released)])
    assert bad.exit_code == 2 and "queries.jsonl: sha256 differs" in bad.stderr
    out = runner.invoke(cli, ["--db", db_url, "agreement", "--json", "--rounds", "20"])
    assert out.exit_code == 0, out.output + out.stderr
    data = json.loads(out.stdout)
    assert data[0]["annotators"] == ["ann1", "ann2"] and data[0]["pairs"][0]["shared"] == 5
    text = runner.invoke(cli, ["--db", db_url, "agreement", "--by", "slice", "--rounds", "20"])
    assert "slice:hard" in text.output and "Krippendorff's alpha" in text.output


def test_model_judges_never_reach_a_release(judged, tmp_path):
    with session_scope(judged) as session:
        import_judgments(
            write(tmp_path, "llm.trec", "q1 0 a#1 0\nq1 0 c#0 3\n"),
            session=session,
            annotator="llm",
            kind="model",
            rubric_version="v1",
        )
    frame = pool_quality.judgments_frame(judged, "p")
    assert "llm" not in set(frame["annotator"])
    decide(judged, "q1", "a#1", 2)
    folder = releases.create_release(judged, "v1", "p", tmp_path / "m").folder
    assert "q1 0 c#0" not in (folder / "qrels.trec").read_text()
    assert "q1 0 a#1 2" in (folder / "qrels.trec").read_text()


def test_release_history_reads_each_manifests_counts_and_alpha(released, judged, tmp_path):
    decide(judged, "q2", "c#0", 1, "on topic after all")
    second = releases.create_release(judged, "v2", "p", tmp_path)
    history = releases.release_history(releases.list_releases(judged))
    assert history["version"].tolist() == ["v1", "v2"]
    assert history["pool"].tolist() == ["p", "p"]
    grades = ["grade_0", "grade_1", "grade_2", "grade_3"]
    # v1 by hand (test_release_files): grades 3, 2, 0, 2, 0; v2 decides q2 c#0 as 1.
    assert history[grades].values.tolist() == [[2, 0, 2, 1], [1, 1, 2, 1]]
    assert history["graded"].tolist() == [5, 5]
    alpha = second.manifest["agreement"]["krippendorff_alpha_ordinal"]
    assert history["alpha"].tolist() == [pytest.approx(alpha)] * 2  # the same judgments
    assert history["created"].dt.tz is not None
    assert history["created"].is_monotonic_increasing


def test_pool_agreement_is_the_reports_and_the_versus_final_of_the_pool(judged):
    decide(judged, "q1", "a#1", 2)
    view = pool_quality.pool_agreement(judged, "p", "threshold", by="split", rounds=0)
    frame = pool_quality.judgments_frame(judged, "p")
    assert [r.group for r in view.reports] == ["split:dev", "split:test"]
    test = agreement.report(frame[frame["split"] == "test"], "split:test", rounds=0)
    assert view.reports[1].alpha == test.alpha and view.reports[1].items == test.items == 3
    table, decisions, _ = pool_quality.pool_table(judged, "p", "threshold")
    expected = adjudication.versus_final(frame, table, decisions)
    assert view.versus_final.equals(expected)
