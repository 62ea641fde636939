"""Evaluating runs against a release: the queries that count, metrics equal to trec_eval's
(pytrec_eval) on them, document-level runs refused or reduced, Judged@k, unanswerable
queries apart, comparisons, the gate, the report files, and the must-shows on Cranfield
and CMRC 2018."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytrec_eval
from click.testing import CliRunner

from annotator.cli import cli
from annotator.evaluation import comparison, evaluation
from annotator.evaluation.evaluation_report import report
from annotator.evaluation.evaluation_text import TABLES, evaluation_lines, markdown, table
from annotator.evaluation.run_files import RunFile, checked_run, read_run_file, trec_order
from annotator.pools import judged
from annotator.quality.adjudication import Resolution
from annotator.releases.release_files import write_judgments, write_release
from pooling.i18n import MESSAGES, LocalizedError
from pooling.metrics import DEFAULT_METRICS, parse_metrics
from pooling.qrels import Qrels
from pooling.release_folder import sha256_of
from pooling.resampling import bootstrap_interval, randomization_test
from pooling.run import Run
from tests.conftest import write

PARENTS = {"a#0": "a", "a#1": "a", "b#0": "b", "c#0": "c", "c#1": "c", "d#0": "d"}
GRADES = {
    "q1": {"a#0": 3, "a#1": 2, "b#0": 0, "c#0": 1},  # three relevant chunks
    "q2": {"b#0": 2, "c#1": 0},
    "q3": {"d#0": 1},
    "q4": {"a#0": 0},  # answerable, nothing relevant: left out
}
QUERIES = [
    {"_id": "q1", "text": "alpha [link](http://x) <b>", "slices": ["en", "multi"], "split": "test"},
    {"_id": "q2", "text": "beta", "slices": ["en"], "split": "test"},
    {"_id": "q3", "text": "delta", "slices": ["zh"], "split": "dev"},
    {"_id": "q4", "text": "nothing judged relevant", "slices": ["zh"], "split": "test"},
    {"_id": "q5", "text": "no answer here", "slices": ["en"], "split": "test", "answerable": False},
    {"_id": "q6", "text": "nor here", "split": "dev", "answerable": False},
]
# The baseline: ties at q1 (b#0 and d#0 both 1.0) and nothing at all for q3.
BASE = {
    "q1": {"a#1": 3.0, "b#0": 1.0, "d#0": 1.0, "a#0": 0.5},
    "q2": {"c#1": 2.0, "b#0": 1.0},
    "q5": {"a#0": 5.0},
    "q6": {"b#0": 0.1},
}
BETTER = {
    "q1": {"a#0": 3.0, "a#1": 2.0, "c#0": 1.0},
    "q2": {"b#0": 2.0},
    "q3": {"d#0": 1.0},
    "q6": {"c#0": 0.2},
}


def make_release(
    folder: Path, grades=GRADES, queries=QUERIES, parents=PARENTS, unjudged: dict | None = None
) -> Path:
    """A release folder written by ``write_release`` from plain data (no database); its pool
    also held ``unjudged`` ((query, chunk) -> ``not_chosen`` or ``unresolved``): candidates
    nobody graded."""
    unjudged = unjudged or {}
    folder.mkdir(parents=True)
    graded = {(q, c): g for q, d in grades.items() for c, g in d.items()}
    snapshot = SimpleNamespace(
        pool=SimpleNamespace(name="p", config={}, overlap=1),
        query_set=SimpleNamespace(name="qs", content_hash="h"),
        corpus_version=SimpleNamespace(name="cv", content_hash="h", chunking={}),
        queries=[
            SimpleNamespace(
                query_id=q["_id"],
                text=q["text"],
                slices=q.get("slices", []),
                split=q.get("split", "test"),
                answerable=q.get("answerable", True),
                notes="",
            )
            for q in queries
        ],
        decisions={},
        candidates=[*graded, *unjudged] if unjudged else [],
        not_chosen={k for k, why in unjudged.items() if why == "not_chosen"},
        gold=[],
    )
    unresolved = [k for k, why in unjudged.items() if why == "unresolved"]
    resolution = Resolution(graded, unresolved, 0)
    seen = write_judgments(folder, [])
    write_release(
        folder, "v1", snapshot, resolution, seen.frame(), parents, seen.rubrics, policy="threshold"
    )
    return folder


def record(url: str, folder: Path) -> Path:
    """Record the release in ``folder`` in the database at ``url`` (as a release of its first
    pool), as creating it would have: the app offers recorded releases only."""
    from sqlmodel import select

    from pooling.release_folder import MANIFEST, read_manifest
    from storage.db import make_engine, session_scope
    from storage.models import Pool
    from storage.release_records import record_release

    manifest = read_manifest(folder)
    with session_scope(make_engine(url)) as session:
        pool = session.exec(select(Pool).order_by(Pool.id)).first()
        record_release(
            manifest["release"], pool, manifest, sha256_of(folder / MANIFEST), session=session
        )
    return folder


@pytest.fixture
def release(tmp_path) -> evaluation.ReleaseData:
    return evaluation.load_release(make_release(tmp_path / "v1"))


def settings(metrics: str = "recall@2,hit@2,mrr,ndcg@3,p@2", **options) -> evaluation.Settings:
    return evaluation.Settings.parse(metrics, rounds=200, **options)


def scored(release, *runs: dict, **options) -> evaluation.Evaluation:
    names = ["base", "better"][: len(runs)]
    sources = [RunFile(Run(r, name), "memory") for r, name in zip(runs, names, strict=True)]
    return evaluation.evaluate(release, sources, settings(**options))


def values(result, run: str, metric: str) -> dict[str, float]:
    rows = result.per_query[(result.per_query["run"] == run) & result.per_query[metric].notna()]
    return dict(zip(rows["query_id"], rows[metric], strict=True))


def test_metric_names():
    assert [m.name for m in parse_metrics("Recall@5, ndcg@10,mrr,recall@5,p@1")] == [
        "recall@5",
        "ndcg@10",
        "mrr",
        "p@1",
    ]
    with pytest.raises(LocalizedError, match="unknown metric 'f1'; valid: recall, hit, p, mrr"):
        parse_metrics("f1@5")
    with pytest.raises(LocalizedError, match="recall needs a cutoff"):
        parse_metrics("recall")
    with pytest.raises(LocalizedError, match="recall@0 must be a whole number of at least 1"):
        parse_metrics("recall@0")


def test_which_queries_count_is_decided_by_the_release(release):
    scope = evaluation.query_scope(release)
    assert dict(zip(scope["query_id"], scope["status"], strict=True)) == {
        "q1": "counted",
        "q2": "counted",
        "q3": "counted",
        "q4": "no_relevant",
        "q5": "unanswerable",
        "q6": "unanswerable",
    }
    assert list(scope["relevant"]) == [3, 1, 1, 0, 0, 0]
    at_two = evaluation.query_scope(release, threshold=2)
    assert list(at_two["status"][:4]) == ["counted", "counted", "no_relevant", "no_relevant"]
    assert list(evaluation.query_scope(release, split="dev")["query_id"]) == ["q3", "q6"]
    with pytest.raises(LocalizedError, match="must be a grade from 1 to 3, got 0"):
        evaluation.query_scope(release, threshold=0)


def test_metrics_equal_trec_eval_on_the_counted_queries_ties_included(release):
    result = scored(release, BASE)
    counted = {q: GRADES[q] for q in ("q1", "q2", "q3")}
    expected = pytrec_eval.RelevanceEvaluator(
        counted, {"recall_2", "P_2", "recip_rank", "ndcg_cut_3", "success_2"}
    ).evaluate(BASE)
    names = {
        "recall@2": "recall_2",
        "p@2": "P_2",
        "mrr": "recip_rank",
        "ndcg@3": "ndcg_cut_3",
        "hit@2": "success_2",
    }
    for ours, theirs in names.items():
        got = values(result, "base", ours)
        assert set(got) == {"q1", "q2", "q3"}  # q4 left out, q5 and q6 apart
        for query in ("q1", "q2"):
            assert got[query] == pytest.approx(expected[query][theirs], abs=1e-9), ours
        assert got["q3"] == 0.0  # ranked nothing: counted, scored 0 (trec_eval skips it)
    # trec_eval breaks the tie at q1 by id, descending: d#0 before b#0, both not relevant.
    assert values(result, "base", "p@2")["q1"] == 0.5
    assert result.runs[0].without_ranking == ["q3"]
    assert result.mean("recall@2") == pytest.approx((1 / 3 + 1 + 0) / 3)


def test_recall_macro_and_micro_and_hit_differ_when_a_query_has_several_relevant(release):
    result = scored(release, BETTER, metrics="recall@1,hit@1")
    summary = result.summary.set_index(["run", "group", "metric"])
    # q1 finds 1 of 3, q2 1 of 1, q3 1 of 1: macro (1/3 + 1 + 1) / 3, micro 3 / 5.
    row = summary.loc[("base", "all", "recall@1")]
    assert row["value"] == pytest.approx((1 / 3 + 2) / 3) and row["micro"] == pytest.approx(3 / 5)
    assert summary.loc[("base", "all", "hit@1"), "value"] == 1.0
    assert math.isnan(summary.loc[("base", "all", "hit@1"), "micro"])


def test_a_higher_threshold_applies_to_every_metric(release):
    result = scored(release, BASE, metrics="recall@2,ndcg@3", threshold=2)
    # q1's relevant chunks are now a#0 and a#1 (c#0 is a 1); nDCG gives c#0 no gain.
    assert values(result, "base", "recall@2")["q1"] == 0.5
    gains = {"a#0": 3, "a#1": 2, "b#0": 0, "c#0": 0}
    expected = pytrec_eval.RelevanceEvaluator({"q1": gains}, {"ndcg_cut_3"}).evaluate(
        {"q1": BASE["q1"]}
    )
    assert values(result, "base", "ndcg@3")["q1"] == pytest.approx(expected["q1"]["ndcg_cut_3"])


def test_a_document_run_against_chunk_qrels_is_refused_and_scored_at_document_level(release):
    documents = {"q1": {"a": 2.0, "c": 1.0}, "q2": {"b": 1.0}}
    with pytest.raises(LocalizedError) as refused:
        scored(release, documents)
    assert str(refused.value) == (
        "run 'base': 3 of its 3 ids are document ids of corpus version 'cv', not chunk ids "
        "(e.g. 'a'): it ranks documents, which chunk-level qrels would score 0; evaluate it "
        "against the document-level qrels: qrels evaluate --level doc"
    )
    assert "--level doc" in refused.value.message("zh")
    at_doc = scored(release, documents, level="doc", metrics="recall@1")
    assert at_doc.runs[0].ids == "doc" and not at_doc.runs[0].reduced
    # Document grades are the best chunk's: q1 a 3, c 1 (b 0); q2 b 2.
    assert values(at_doc, "base", "recall@1") == {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    with pytest.raises(LocalizedError, match="1 of its 4 ids are in no corpus version"):
        scored(release, {"q1": {"a#0": 1.0, "zz": 0.5, "b#0": 0.2, "c#0": 0.1}})
    with pytest.raises(LocalizedError, match="mix chunk ids and document ids"):
        scored(release, {"q1": {"a#0": 1.0, "b": 0.5}}, level="doc")


def test_a_chunk_run_is_reduced_to_documents_by_its_best_chunk(release):
    chunks = Run({"q1": {"c#1": 4.0, "a#1": 3.0, "c#0": 2.0, "a#0": 1.0}})
    reduced, ids = checked_run(chunks, release.parents, "doc")
    assert ids == "chunk" and reduced.ranking("q1") == [("c", 4.0), ("a", 3.0)]
    result = scored(release, chunks.scores, level="doc", metrics="mrr")
    assert result.runs[0].reduced and values(result, "base", "mrr")["q1"] == 1.0


def test_judged_at_k_beside_every_metric_and_the_condensed_lists(release):
    ir_measures = pytest.importorskip("ir_measures")
    result = scored(release, BASE, metrics="ndcg@3,mrr", condensed=True)
    # q1's top 3 (trec order a#1, d#0, b#0): d#0 is not judged for q1.
    per_query = result.per_query.set_index("query_id")
    assert per_query.loc["q1", "judged@3"] == pytest.approx(2 / 3)
    assert per_query.loc["q1", "judged@4"] == pytest.approx(3 / 4)  # mrr: the run's depth
    counted = {q: GRADES[q] for q in ("q1", "q2", "q3")}
    expected = judged.coverage(counted, trec_order(Run(BASE)), [3]).overall[3]
    row = result.summary.set_index(["group", "metric"]).loc[("all", "ndcg@3")]
    assert row["judged_k"] == 3 and row["judged"] == pytest.approx(expected)
    # Condensed lists (unjudged removed) are what ir_measures' judged_only computes.
    condensed = ir_measures.iter_calc(
        [ir_measures.nDCG(judged_only=True) @ 3], counted, {q: BASE[q] for q in ("q1", "q2")}
    )
    measured = values(result, "base", "ndcg@3:condensed")
    assert {m.query_id: m.value for m in condensed} == pytest.approx(measured)
    assert measured["q1"] > values(result, "base", "ndcg@3")["q1"]  # d#0 was unjudged
    warnings = report(result)["judged_warnings"]
    assert warnings[0]["run"] == "base" and warnings[0]["group"] == "all"
    assert warnings[0]["command"] == (
        f"qrels coverage --release {release.folder} --run memory --k 4 --topup p"
    )


def test_unanswerable_queries_are_scored_apart_by_their_top_score(release):
    result = scored(release, BASE, BETTER, by="slice")
    figures = result.unanswerable.set_index(["run", "group"])
    # base: answerable tops q1 3.0, q2 2.0, q3 none (the lowest); unanswerable q5 5.0, q6 0.1.
    # Pairs (answerable above unanswerable): 3>0.1, 2>0.1, none>none? no: 2 of 6.
    base = figures.loc[("base", "all")]
    assert (base["answerable"], base["unanswerable"]) == (3, 2)
    assert base["auroc"] == pytest.approx(2 / 6)
    assert base["above_median"] == 0.5  # q5 above the answerable median 2.0
    better = figures.loc[("better", "all")]  # q5 none (the lowest), q6 0.2 below all
    assert better["auroc"] == 1.0 and better["above_median"] == 0.0
    assert figures.loc[("base", "slice:zh"), "undefined"] == "no_unanswerable"
    assert "q5" not in values(result, "base", "mrr")  # never in a metric's denominator


def test_comparisons_intervals_and_the_queries_that_moved(release):
    result = scored(release, BASE, BETTER, by="slice")
    table = comparison.differences(result).set_index(["group", "metric"])
    row = table.loc[("all", "recall@2")]
    # recall@2: q1 1/3 -> 2/3, q2 1 -> 1, q3 0 -> 1.
    assert row["difference"] == pytest.approx((1 / 3 + 0 + 1) / 3)
    assert row["low"] <= row["difference"] <= row["high"] and row["queries"] == 3
    assert table.loc[("slice:zh", "recall@2"), "queries"] == 1
    moved = comparison.movers(result)
    improved = moved[(moved["metric"] == "recall@2") & (moved["group"] == "all")]
    assert list(improved["query_id"]) == ["q3", "q1"]  # q2 did not move
    assert set(improved["change"]) == {"improved"}
    assert improved.iloc[-1]["text"] == QUERIES[0]["text"]
    same = scored(release, BASE, BASE)
    assert comparison.differences(same)["p_value"].eq(1.0).all()
    assert comparison.movers(same).empty


def test_resampling_is_seeded_and_sensible():
    assert bootstrap_interval([0.2, 0.4, 0.9], 500) == bootstrap_interval([0.2, 0.4, 0.9], 500)
    low, high = bootstrap_interval([1.0] * 10, 100)
    assert low == high == 1.0
    assert randomization_test([0.5] * 30, 999) == pytest.approx(1 / 1000)
    assert randomization_test([0.5, -0.5] * 15, 999) == 1.0


def evaluate_cli(*args, expect: int = 0):
    result = CliRunner().invoke(cli, ["--lang", "en", "evaluate", *map(str, args)])
    assert result.exit_code == expect, result.output + result.stderr
    return result


@pytest.fixture
def runs(tmp_path) -> tuple[Path, Path]:
    def trec(scores: dict, name: str) -> Path:
        Run(scores, name).save(tmp_path / f"{name}.trec")
        return tmp_path / f"{name}.trec"

    return trec(BASE, "base"), trec(BETTER, "better")


def test_the_gate_fails_with_exit_1_naming_metric_and_slice_and_passes_with_0(tmp_path, runs):
    folder = make_release(tmp_path / "v1")
    base, better = runs
    common = ["--release", folder, "--by", "slice", "--rounds", "100", "--gate-small"]
    failed = evaluate_cli(
        *common, "--run", better, "--run", base, "--gate", "ndcg@3>=-0.01", expect=1
    )
    assert "FAIL base ndcg@3>=-0.01 [slice:en]" in failed.output
    assert "gate failed: 3 checks failed, first ndcg@3>=-0.01 [all]" in failed.output
    passed = evaluate_cli(*common, "--run", base, "--run", better, "--gate", "ndcg@3>=0,mrr>=0")
    assert "gate on the test split" in passed.output and "gate passed" in passed.output
    assert "PASS better mrr>=0 [slice:multi]: +0.0000 [0.0000, 0.0000] over 1 queries" in (
        passed.output
    )
    assert "[slice:zh]" not in passed.output.split("gate on the test split")[1]  # no test query
    dev = evaluate_cli(
        *common, "--split", "dev", "--run", base, "--run", better, "--gate", "mrr>0", expect=2
    )
    assert "refusing to gate on the dev split" in dev.stderr
    evaluate_cli(
        *common,
        "--split",
        "dev",
        "--run",
        base,
        "--run",
        better,
        "--gate",
        "mrr>0",
        "--gate-on-dev",
    )
    alone = evaluate_cli(*common, "--run", base, "--gate", "mrr>0", expect=2)
    assert "give two runs or more" in alone.stderr
    bad = evaluate_cli(*common, "--run", base, "--run", better, "--gate", "mrr=>0", expect=2)
    assert "gate check 'mrr=>0' is not 'metric>=number'" in bad.stderr


def test_the_report_files_and_json(tmp_path, runs):
    folder = make_release(tmp_path / "v1")
    base, better = runs
    out = tmp_path / "report"
    shown = evaluate_cli(
        "--release", folder, "--run", base, "--run", better, "--context-k", "1", "--out", out
    )
    assert shown.output.splitlines()[0].startswith("release v1 (manifest sha256 ")
    assert "context budget: the generator sees the top 1" in shown.output
    assert "left out: 1 (answerable, but nothing graded 1 or more)" in shown.output
    assert "base ranks nothing for 1 counted queries (each scores 0): q3" in shown.output
    data = json.loads((out / "report.json").read_text())
    assert data["settings"]["metrics"][:2] == ["recall@1", "hit@1"]  # the budget first
    assert data["release"]["manifest_sha256"] == sha256_of(folder / "manifest.json")
    assert data["runs"][0]["sha256"] == sha256_of(base)
    assert data["queries"]["excluded"] == [{"query_id": "q4", "reason": "no_relevant"}]
    assert set(data["definitions"]) == {"recall", "hit", "mrr", "ndcg"}
    assert "Recall@k: the share" in data["definitions"]["recall"]
    as_json = evaluate_cli("--release", folder, "--run", base, "--json", "--out", tmp_path / "j")
    assert json.loads(as_json.stdout)["queries"]["counted"] == 3  # stdout holds the JSON alone
    assert json.loads(as_json.stdout)["gate"] is None and "report written" in as_json.stderr
    # Away from its database, evaluate says the folder was checked against itself only.
    assert "checked against its own manifest only" in as_json.stderr
    csv = (out / "per_query.csv").read_text().splitlines()
    assert csv[0].startswith("run,query_id,status,split,slices,relevant,top_score,retrieved,")
    assert len(csv) == 1 + 2 * 5  # two runs, three counted and two unanswerable queries
    text = (out / "report.md").read_text()
    assert r"alpha \[link\](http://x) \<b\>" in text and "<b>" not in text
    assert "## Metric definitions" in text and "Hit@k: 1 when" in text


def test_bad_input_is_refused_with_where_and_what(tmp_path, runs):
    folder = make_release(tmp_path / "v1")
    broken = write(tmp_path, "broken.trec", "q1 Q0 a#0 1 2.0 r\nq1 Q0 a#1 2 high r\n")
    refused = evaluate_cli("--release", folder, "--run", broken, expect=2)
    assert refused.stderr.startswith(f"error: {broken}, line 2, field 'score': ")
    other = write(tmp_path, "other.trec", "x1 Q0 a#0 1 2.0 r\nx2 Q0 a#1 1 1.0 r\n")
    refused = evaluate_cli("--release", folder, "--run", other, expect=2)
    assert "none of its 2 queries is in this release (e.g. 'x1')" in refused.stderr
    stray = write(tmp_path, "stray.trec", "q1 Q0 a#0 1 2.0 r\nx2 Q0 a#1 1 1.0 r\n")
    shown = evaluate_cli("--release", folder, "--run", stray).output
    assert "r ranks 1 queries that are not in the release (ignored): x2" in shown  # its tag
    strict = evaluate_cli("--release", folder, "--run", stray, "--strict", expect=2)
    assert "run 'r' ranks 1 queries that are not in this release (e.g. 'x2')" in strict.stderr
    assert "--strict" in strict.stderr and not strict.stdout
    assert evaluate_cli("--release", folder, "--run", runs[0], "--strict").exit_code == 0
    missing = evaluate_cli("--release", tmp_path / "nowhere", "--run", runs[0], expect=2)
    assert "does not match its manifest: manifest.json: cannot be read" in missing.stderr
    unknown = evaluate_cli("--release", folder, "--run", runs[0], "--metrics", "f1@3", expect=2)
    assert "unknown metric 'f1'" in unknown.stderr


def test_the_report_speaks_chinese(release):
    data = report(scored(release, BASE, BETTER))
    lines = evaluation_lines(data, "zh")
    assert lines[1].startswith("范围内查询：6；计入：3；无答案（单独评估）：2；排除：1")
    assert "## 指标定义" in markdown(data, "zh")
    for kind in TABLES:  # every table's header names each of its columns once
        for lang in ("en", "zh"):
            header, rows = table(kind, data, lang)
            assert len(set(header)) == len(header) == len(rows[0]), (kind, lang)
    for key in (k for k in MESSAGES if k.startswith(("eval_", "metric_def_", "gate_", "run_"))):
        en, zh = MESSAGES[key]["en"], MESSAGES[key]["zh"]
        assert sorted(_fields(en)) == sorted(_fields(zh)), key


def _fields(text: str) -> list[str]:
    import string

    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


def test_a_release_without_a_chunk_map_is_read_and_said_so(tmp_path):
    folder = make_release(tmp_path / "old")
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["files"]["chunks.tsv"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "chunks.tsv").unlink()
    old = evaluation.load_release(folder)
    assert old.parents is None
    assert scored(old, {"q1": {"a": 1.0}}).runs[0].ids == "unchecked"


def test_a_changed_chunk_map_fails_verification(tmp_path, runs):
    folder = make_release(tmp_path / "v1")
    write(folder, "chunks.tsv", "chunk-id\tdoc-id\na#0\tb\n")
    refused = evaluate_cli("--release", folder, "--run", runs[0], expect=2)
    assert "chunks.tsv: sha256 differs from the manifest" in refused.stderr


def test_the_release_api_for_evaluators(release):
    ir_measures = pytest.importorskip("ir_measures")
    assert list(release.qrels_frame("doc").columns) == ["query_id", "doc_id", "grade"]
    assert release.qrels_at("doc")["q1"] == {"a": 3, "b": 0, "c": 1}
    frame = release.ir_measures_qrels()
    value = ir_measures.iter_calc([ir_measures.P @ 1], frame, {"q1": {"a#0": 1.0}})
    assert {m.query_id: m.value for m in value} == {"q1": 1.0, "q2": 0.0, "q3": 0.0, "q4": 0.0}
    assert release.queries.set_index("query_id").loc["q5", "answerable"] == False  # noqa: E712
    assert release.manifest["release"] == "v1" and release.version == "v1"
    ranx = pytest.importorskip("ranx")
    assert isinstance(release.ranx_qrels(), ranx.Qrels)
    assert isinstance(Qrels.from_dataframe(release.qrels_frame()), Qrels)


def test_a_document_run_is_refused_by_coverage_and_release_diff(tmp_path):
    folder = make_release(tmp_path / "v1")
    documents = write(tmp_path, "docs.trec", "q1 Q0 a 1 2.0 d\nq1 Q0 c 2 1.0 d\n")
    for args in (
        ["coverage", "--release", folder, "--run", documents],
        ["release", "diff", folder, folder, "--run", documents],
    ):
        result = CliRunner().invoke(cli, ["--lang", "en", *map(str, args)])
        assert result.exit_code == 2
        assert "are document ids of corpus version 'cv'" in result.stderr, result.stderr


def test_the_evaluate_page_shows_what_the_modules_compute(demo_url, tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.annotator.app.test_app import PAGES, user_id

    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    at = AppTest.from_file(str(PAGES / "evaluate_page.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(demo_url, "lead")
    at.run()
    assert [i.value for i in at.info] == [
        "No release has been written yet: create one on the Releases page."
    ]
    folder = record(demo_url, make_release(tmp_path / "releases" / "v1"))
    at.run()
    runs = [(f"{n}.trec", _trec(r, n), "text/plain") for r, n in ((BASE, "b"), (BETTER, "c"))]
    at.file_uploader(key="eval_runs").set_value(runs)
    at.run()
    assert not at.exception, at.exception
    expected = scored(evaluation.load_release(folder), BASE, BETTER, metrics=DEFAULT_METRICS)
    overall = at.dataframe[0].value
    assert list(overall["metric"][:5]) == [m.name for m in expected.settings.metrics]
    assert list(overall["mean"][:5]) == [f"{expected.mean(m):.4f}" for m in overall["metric"][:5]]
    at.toggle(key="eval_group_table").set_value(True).run()
    per_slice = at.dataframe[-2].value  # the chart's table; the regressions come last
    zh = per_slice[(per_slice["run"] == "c") & (per_slice["group"] == "slice:zh")]
    assert zh["value"].tolist() == [1.0]  # q3, the only counted zh query: found at rank 1
    assert at.get("download_button")


def test_the_evaluate_page_scores_imported_runs_without_an_upload(demo_url, tmp_path, monkeypatch):
    """Runs imported for the release's query set and corpus version are offered by name,
    all chosen: the page scores them as it opens (the demo's two, issue 25; the browser
    test of the demo checks its figures with judgments behind them)."""
    from streamlit.testing.v1 import AppTest

    from annotator.pools.pool_building import system_runs
    from annotator.releases import releases
    from storage.db import make_engine
    from tests.annotator.app.test_app import PAGES, user_id
    from tests.conftest import run_qrels

    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    engine = make_engine(demo_url)
    made = releases.create_release(
        engine, "v1", "demo-pool", tmp_path / "releases", allow_unresolved=True
    )
    system_runs(engine, "bm25")["bm25"].save(tmp_path / "ranked.trec")
    run_qrels(demo_url, "import", "run", tmp_path / "ranked.trec", "--system", "ranked")
    at = AppTest.from_file(str(PAGES / "evaluate_page.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(demo_url, "lead")
    at.run()
    assert not at.exception, at.exception
    assert at.multiselect(key="eval_stored").value == ["ranked"]
    expected = evaluation.evaluate(
        evaluation.load_release(made.folder),
        [read_run_file(tmp_path / "ranked.trec", name="ranked")],
        evaluation.Settings.parse(DEFAULT_METRICS),
    )
    overall = at.dataframe[0].value
    assert set(overall["run"]) == {"ranked"}
    means = [expected.mean(m) for m in overall["metric"][:5]]
    assert list(overall["mean"][:5]) == ["-" if math.isnan(m) else f"{m:.4f}" for m in means]


def _trec(scores: dict, name: str) -> bytes:
    return "".join(
        f"{q} Q0 {c} {rank} {s} {name}\n" for q, c, rank, s in Run(scores, name).entries()
    ).encode()


# -- the real collections (skipped where ../shared/datasets is absent) ----------------------


def bm25_run(folder: Path, k: int, tmp_path: Path) -> Path:
    """The collection's BM25 top ``k`` as a TREC run file."""
    from pooling.collection import read_collection
    from pooling.retrievers import BM25Retriever

    collection = read_collection(folder, allow_empty=True)
    queries = {q.query_id: q.text for q in collection.queries}
    run = BM25Retriever(collection.retrieval_corpus(f"eval-{folder.name}")).search(queries, k)
    run.name = "bm25"
    run.save(tmp_path / f"{folder.name}-bm25.trec")
    return tmp_path / f"{folder.name}-bm25.trec"


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def counted_rows(path: Path) -> list[dict]:
    import csv

    with open(path, newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["status"] == "counted"]


@pytest.mark.datasets
def test_cranfield_release_and_bm25_equal_pytrec_eval(datasets, tmp_path, monkeypatch):
    """A release made as a team would make it: a BM25 pool of depth 10, each candidate
    judged by the collection's grades (unjudged documents grade 0), then evaluated with a
    BM25 run 100 deep. Queries whose pool found nothing relevant hold only zeros: they are
    left out and listed, and every figure equals pytrec_eval's on the queries that count."""
    from tests.conftest import run_qrels

    folder, url = datasets / "cranfield", f"sqlite:///{tmp_path / 'cranfield.db'}"
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    run_qrels(url, "init")
    corpus = folder / "corpus.jsonl"
    run_qrels(url, "import", "corpus", corpus, "--corpus-version", "cran", "--allow-empty")
    run_qrels(url, "import", "queries", folder / "queries.jsonl", "--query-set", "cran")
    run_qrels(url, "pool", "build", "p", "--systems", "bm25", "--depth", "10", "--overlap", "1")
    run_qrels(url, "pool", "export", "p", tmp_path / "pool.jsonl")
    known = Qrels.from_file(folder / "qrels.tsv").grades
    judgments = "".join(
        f"{q} 0 {c} {known.get(q, {}).get(c, 0)}\n"
        for q, c in ((r["query_id"], r["chunk_id"]) for r in lines_of(tmp_path / "pool.jsonl"))
    )
    run_qrels(url, "import", "judgments", write(tmp_path, "j.trec", judgments), "--annotator", "c")
    run_qrels(url, "release", "create", "v1", "--pool", "p", "--out", tmp_path)
    run = bm25_run(folder, 100, tmp_path)

    metrics = "ndcg@10,recall@100,p@5,mrr"
    args = ["--release", tmp_path / "v1", "--run", run, "--metrics", metrics, "--rounds", "0"]
    data = json.loads(evaluate_cli(*args, "--json").stdout)
    release = Qrels.from_file(tmp_path / "v1" / "qrels.trec").to_dict()
    nothing = {q for q, found in release.items() if max(found.values()) < 1}
    assert nothing and {e["query_id"] for e in data["queries"]["excluded"]} == nothing
    assert {e["reason"] for e in data["queries"]["excluded"]} == {"no_relevant"}
    assert data["queries"]["counted"] == 225 - len(nothing)
    shown = evaluate_cli(*args).output
    assert f"left out: {len(nothing)} (answerable, but nothing graded 1 or more)" in shown

    counted = {q: found for q, found in release.items() if q not in nothing}
    scores = Run.from_file(run).to_dict()
    names = {
        "ndcg@10": "ndcg_cut_10",
        "recall@100": "recall_100",
        "p@5": "P_5",
        "mrr": "recip_rank",
    }
    expected = pytrec_eval.RelevanceEvaluator(counted, set(names.values())).evaluate(
        {q: scores[q] for q in counted}
    )
    summary = {r["metric"]: r["value"] for r in data["summary"] if r["group"] == "all"}
    for ours, theirs in names.items():
        mean = sum(expected[q][theirs] for q in counted) / len(counted)
        assert summary[ours] == pytest.approx(mean, abs=1e-6), ours
    # What trec_eval prints for the whole qrels file averages the left-out queries' zeros in.
    everything = pytrec_eval.RelevanceEvaluator(release, {"ndcg_cut_10"}).evaluate(scores)
    whole = sum(r["ndcg_cut_10"] for r in everything.values()) / len(everything)
    assert whole < summary["ndcg@10"]


def collection_report(folder: Path, tmp_path: Path, metrics: str) -> list[dict]:
    """A release of a collection's own judgments (every document one chunk), its BM25
    top 20 evaluated: the per-query rows of the counted queries."""
    grades = Qrels.from_file(folder / "qrels.tsv").to_dict()
    documents = {d["_id"]: d["_id"] for d in lines_of(folder / "corpus.jsonl")}
    release = make_release(
        tmp_path / folder.name, grades, lines_of(folder / "queries.jsonl"), documents
    )
    out = tmp_path / f"{folder.name}-report"
    args = ["--metrics", metrics, "--rounds", "0", "--out", out]
    evaluate_cli("--release", release, "--run", bm25_run(folder, 20, tmp_path), *args)
    return counted_rows(out / "per_query.csv")


@pytest.mark.datasets
def test_recall_equals_hit_with_one_relevant_passage_and_not_with_several(
    datasets, tmp_path, monkeypatch
):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    cmrc = collection_report(datasets / "cmrc2018-dev", tmp_path, "recall@1,hit@1,recall@20,hit@20")
    assert len(cmrc) == 3219 and {r["relevant"] for r in cmrc} == {"1"}
    for row in cmrc:
        assert row["recall@1"] == row["hit@1"] and row["recall@20"] == row["hit@20"], row
    cranfield = collection_report(datasets / "cranfield", tmp_path, "recall@20,hit@20")
    several = [r for r in cranfield if int(r["relevant"]) > 1]
    # Hit@20 is 1 once one of the relevant documents is found; Recall@20 counts them all.
    assert sum(r["recall@20"] != r["hit@20"] for r in several) > len(several) / 2
    assert all(r["recall@20"] == r["hit@20"] for r in cranfield if r["relevant"] == "1")


def test_the_evaluate_page_folds_low_judged_warnings_into_one(demo_url, tmp_path, monkeypatch):
    """Issue 40: a warning per run and group whose Judged@k is low stacked up (about 18
    on the demo). One warning says how many, the list is behind an expander, as text."""
    from streamlit.testing.v1 import AppTest

    from annotator.evaluation.evaluation_text import low_judged_items
    from tests.annotator.app.test_app import PAGES, user_id

    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    folder = record(demo_url, make_release(tmp_path / "releases" / "v1"))
    release = evaluation.load_release(folder)
    result = scored(release, BASE, BETTER, metrics=DEFAULT_METRICS, by="slice")  # the page's
    listed = low_judged_items(report(result), "en")
    assert len(listed) > 1  # else the test would prove nothing
    at = AppTest.from_file(str(PAGES / "evaluate_page.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(demo_url, "lead")
    at.run()
    named = ((BASE, "base"), (BETTER, "better"))
    runs = [(f"{n}.trec", _trec(r, n), "text/plain") for r, n in named]
    at.file_uploader(key="eval_runs").set_value(runs).run()
    assert not at.exception, at.exception
    low = [w.value for w in at.warning if "Judged@k" in w.value]
    assert len(low) == 1, low
    assert low[0].startswith(f"warning: low Judged@k for {len(listed)} runs and groups")
    (expander,) = [e for e in at.expander if "low Judged@k" in e.label]
    assert expander.label == f"Runs and groups with low Judged@k ({len(listed)})"
    assert expander.text[0].value.splitlines() == listed
