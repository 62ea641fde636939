"""Evaluate for a CI job and for incomplete judgments (issue 26): exit codes 0 / 1 / 2, gates
on the interval and on groups large enough, run names, Holm and Benjamini-Hochberg
adjusted p-values, the context-budget mark per figure, bpref and infAP equal to trec_eval's,
Judged@k on ties against ir_measures, and the counted queries handed to ir_measures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval
from click.testing import CliRunner

from annotator.cli import cli, main
from annotator.evaluation import comparison, evaluation
from annotator.evaluation.evaluation_report import report
from annotator.evaluation.evaluation_text import markdown, table
from annotator.evaluation.run_files import RunFile, trec_order
from annotator.pools import judged
from pooling.multiple_testing import benjamini_hochberg, holm
from pooling.qrels import Qrels
from pooling.release_folder import POOL_UNJUDGED, read_pool_unjudged
from pooling.run import Run
from tests.annotator.evaluation.test_evaluation import BASE, BETTER, GRADES, make_release
from tests.conftest import write

ROOT = Path(__file__).resolve().parents[3]


def qrels_cli(*args, expect: int):
    result = CliRunner().invoke(cli, ["--lang", "en", *map(str, args)])
    assert result.exit_code == expect, result.output + result.stderr
    return result


def save(tmp_path: Path, scores: dict, tag: str, file: str | None = None) -> Path:
    path = tmp_path / (file or f"{tag}.trec")
    Run(scores, tag).save(path)
    return path


# -- a release of 40 test queries, each with one relevant chunk ----------------------------
# The baseline finds d1..d20 first and d21..d40 second; the candidate the other way round:
# mean difference in MRR exactly 0, per-query differences -0.5 and +0.5, so the 95%
# interval reaches about 0.15 below 0. Slice "small" is q1..q6 (all -0.5), "big" the rest.
N = 40
WIDE_PARENTS = {f"d{i}#0": f"d{i}" for i in range(1, N + 1)} | {"n#0": "n"}
WIDE_QUERIES = [
    {"_id": f"q{i}", "text": f"query {i}", "slices": ["small" if i <= 6 else "big"]}
    for i in range(1, N + 1)
]
WIDE_GRADES = {f"q{i}": {f"d{i}#0": 2, "n#0": 0} for i in range(1, N + 1)}


def ranked(first_found: set[int]) -> dict:
    return {
        f"q{i}": {f"d{i}#0": 2.0, "n#0": 1.0} if i in first_found else {"n#0": 2.0, f"d{i}#0": 1.0}
        for i in range(1, N + 1)
    }


@pytest.fixture
def wide(tmp_path) -> tuple[Path, Path, Path]:
    folder = make_release(tmp_path / "wide", WIDE_GRADES, WIDE_QUERIES, WIDE_PARENTS)
    base = save(tmp_path, ranked(set(range(1, 21))), "base")
    candidate = save(tmp_path, ranked(set(range(21, N + 1))), "cand")
    return folder, base, candidate


def test_an_interval_gate_fails_where_the_mean_gate_passes(wide):
    folder, base, candidate = wide
    common = ["evaluate", "--release", folder, "--run", base, "--run", candidate]
    common += ["--metrics", "mrr", "--rounds", "500"]
    mean = qrels_cli(*common, "--gate", "mrr>=-0.01", expect=0)
    assert "PASS cand mrr>=-0.01 [all]: +0.0000 [" in mean.output and "gate passed" in mean.output
    low = qrels_cli(*common, "--gate", "mrr>=-0.01@low", expect=1)
    assert "FAIL cand mrr>=-0.01@low [all]: +0.0000 [-0.1" in low.output
    assert "gate failed: 1 checks failed, first mrr>=-0.01@low [all]" in low.output
    data = json.loads(qrels_cli(*common, "--gate", "mrr>=-0.01@low", "--json", expect=1).stdout)
    (check,) = data["gate"]["checks"]
    assert check["end"] == "low" and check["difference"] == 0.0
    assert check["low"] < -0.1 < 0.1 < check["high"] and check["passed"] is False
    # @high checks the upper end: a candidate must not be better by more than the bound.
    qrels_cli(*common, "--gate", "mrr<=0.2@high", expect=0)


def test_small_groups_are_reported_not_gated_unless_asked(wide):
    folder, base, candidate = wide
    common = ["evaluate", "--release", folder, "--run", base, "--run", candidate, "--by", "slice"]
    common += ["--metrics", "mrr", "--rounds", "200", "--gate", "mrr>=-0.01"]
    shown = qrels_cli(*common, expect=0).output
    assert "not gated (n < 20) cand mrr>=-0.01 [slice:small]: -0.5000 [" in shown
    assert "over 6 queries" in shown and "PASS cand mrr>=-0.01 [slice:big]" in shown
    assert "gate passed" in shown
    small = qrels_cli(*common, "--gate-small", expect=1).output
    assert "FAIL cand mrr>=-0.01 [slice:small]: -0.5000" in small
    assert qrels_cli(*common, "--min-queries", "5", expect=1).output.count("FAIL") == 1
    nothing = qrels_cli(*common, "--min-queries", "41", expect=2)
    assert "nothing to gate: every group has fewer than 41 counted test queries" in nothing.stderr
    data = json.loads(qrels_cli(*common, "--json", expect=0).stdout)
    gated = {c["group"]: c["gated"] for c in data["gate"]["checks"]}
    assert gated == {"all": True, "slice:big": True, "slice:small": False}
    assert data["gate"]["min_queries"] == 20 and data["gate"]["passed"] is True


def test_the_cli_default_minimum_is_the_gates():
    from annotator.cli import evaluate_commands

    assert evaluate_commands.MIN_QUERIES == comparison.MIN_QUERIES  # two places, one number


def test_a_gate_metric_missing_from_metrics_is_added_and_said_so(wide):
    folder, base, candidate = wide
    args = ["evaluate", "--release", folder, "--run", base, "--run", candidate, "--rounds", "50"]
    args += ["--metrics", "recall@1", "--gate", "mrr>=-0.01,recall@1>=-0.01"]
    shown = qrels_cli(*args, expect=0).output
    assert "added to --metrics for the gate: mrr" in shown
    data = json.loads(qrels_cli(*args, "--json", expect=0).stdout)
    assert data["settings"]["metrics"] == ["recall@1", "mrr"]
    assert data["settings"]["added_for_gate"] == ["mrr"]


def test_every_exit_code(wide, tmp_path, monkeypatch):
    folder, base, candidate = wide
    release = ["evaluate", "--release", folder]
    both = [*release, "--run", base, "--run", candidate, "--rounds", "50"]
    qrels_cli(*release, "--run", base, expect=0)  # no gate
    qrels_cli(*both, "--gate", "mrr>=-0.01", expect=0)  # gate passed
    qrels_cli(*both, "--gate", "mrr>=0.01", expect=1)  # gate failed: the only 1
    refused = {
        "missing run file": ([*release, "--run", tmp_path / "nowhere.trec"], "nowhere.trec"),
        "missing release": (
            ["evaluate", "--release", tmp_path / "none", "--run", base],
            "does not match its manifest",
        ),
        "bad gate syntax": ([*both, "--gate", "mrr=>0"], "is not 'metric>=number'"),
        "single run with a gate": ([*release, "--run", base, "--gate", "mrr>0"], "two runs"),
        "unknown metric": ([*release, "--run", base, "--metrics", "f1@3"], "unknown metric"),
        "unknown gate metric": ([*both, "--gate", "f1@3>0"], "unknown metric 'f1'"),
        "a cutoff bpref has not": ([*release, "--run", base, "--metrics", "bpref@10"], "cutoff"),
        "interval gate without rounds": (
            [*release, "--run", base, "--run", candidate, "--rounds", "0", "--gate", "mrr>0@low"],
            "--rounds must be at least 1",
        ),
        "bad run line": (
            [*release, "--run", write(tmp_path, "bad.trec", "q1 Q0 d1#0 1 high r\n")],
            "line 1, field 'score'",
        ),
        "two runs of one name": ([*release, "--run", base, "--run", base], "two runs are named"),
        "names not one per run": ([*both, "--name", "only"], "1 --name for 2 --run"),
        "usage (click)": (["evaluate", "--run", base], "Missing option '--release'"),
    }
    for case, (args, says) in refused.items():
        result = qrels_cli(*args, expect=2)
        assert says in result.output + result.stderr, case
    monkeypatch.setattr(evaluation, "evaluate", interrupted)
    assert "error: interrupted" in qrels_cli(*release, "--run", base, expect=2).stderr


def interrupted(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_bug_exits_2_with_its_traceback_through_the_console_script(wide, monkeypatch, capsys):
    folder, base, _ = wide

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(evaluation, "evaluate", broken)
    monkeypatch.setattr(
        sys, "argv", ["qrels", "evaluate", "--release", str(folder), "--run", str(base)]
    )
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    shown = capsys.readouterr().err
    assert "Traceback" in shown and "RuntimeError: a bug" in shown


def into_a_closed_pipe(*args, stderr_too: bool = False) -> subprocess.CompletedProcess:
    """``qrels ARGS`` (this worktree's code) with stdout a pipe whose reader has gone, as
    under ``| head`` once head has what it wants (and stderr too with ``stderr_too``)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [sys.executable, "-m", "annotator.cli", "--lang", "en", *map(str, args)],
            stdout=writer,
            stderr=writer if stderr_too else subprocess.PIPE,
            cwd=ROOT,
            text=True,
            timeout=300,
        )
    finally:
        os.close(writer)


def test_a_reader_that_stops_early_changes_no_exit_code(wide, tmp_path):
    # `qrels evaluate ... | head -60`: the rest of the output is discarded, the command
    # finishes (the report is written, the gate checked) and exits with its own code.
    folder, base, candidate = wide
    common = ["evaluate", "--release", folder, "--run", base, "--metrics", "mrr"]
    done = into_a_closed_pipe(*common)
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr and "Broken pipe" not in done.stderr
    assert into_a_closed_pipe(*common, stderr_too=True).returncode == 0
    gated = [*common, "--run", candidate, "--gate", "mrr>=-0.01@low", "--rounds", "500"]
    failed = into_a_closed_pipe(*gated, "--out", tmp_path / "report", stderr_too=True)
    assert failed.returncode == 1  # the gate failed, and says so whoever reads it
    assert (tmp_path / "report" / "report.json").is_file()


def test_runs_are_named_by_name_else_their_one_tag_else_their_file(wide, tmp_path):
    folder, base, candidate = wide
    mixed = tmp_path / "mixed.trec"
    mixed.write_text(base.read_text().replace(" base\n", " x\n", 1))  # two tags: the file name
    args = ["evaluate", "--release", folder, "--rounds", "0", "--json"]
    data = json.loads(qrels_cli(*args, "--run", base, "--run", mixed, expect=0).stdout)
    assert [r["name"] for r in data["runs"]] == ["base", "mixed"]
    tagged = save(tmp_path, ranked(set()), "bm25", file="run-a.trec")
    data = json.loads(qrels_cli(*args, "--run", tagged, expect=0).stdout)
    assert [r["name"] for r in data["runs"]] == ["bm25"]  # the tag, not "run-a"
    named = [*args, "--run", base, "--run", base, "--name", "old", "--name", "new"]
    data = json.loads(qrels_cli(*named, expect=0).stdout)
    assert [r["name"] for r in data["runs"]] == ["old", "new"]
    same_tag = save(tmp_path, ranked(set()), "base", file="other.trec")
    refused = qrels_cli(*args, "--run", base, "--run", same_tag, expect=2).stderr
    assert f"two runs are named 'base' ({base} and {same_tag})" in refused


# -- many comparisons at once ----------------------------------------------------------------


def test_holm_and_benjamini_hochberg_by_hand_and_against_scipy():
    from scipy.stats import false_discovery_control

    p = [0.01, 0.04, 0.03, 0.2, 0.005, 0.04]
    # Holm: sorted 0.005*6, 0.01*5, 0.03*4, 0.04*3, 0.04*2 (raised to 0.12), 0.2*1.
    assert holm(p) == pytest.approx([0.05, 0.12, 0.12, 0.2, 0.03, 0.12])
    assert benjamini_hochberg(p) == pytest.approx(false_discovery_control(p).tolist())
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([]) == benjamini_hochberg([]) == []


def test_every_comparison_carries_its_adjusted_p_values(tmp_path):
    release = evaluation.load_release(make_release(tmp_path / "v1"))
    runs = [RunFile(Run(r, n), "memory") for r, n in ((BASE, "base"), (BETTER, "c"), (BASE, "d"))]
    settings = evaluation.Settings.parse("recall@2,mrr", rounds=200, by="slice")
    result = evaluation.evaluate(release, runs, settings)
    table_ = comparison.differences(result)
    assert len(table_) == 2 * 4 * 2  # candidates x groups (all + 3 slices) x metrics
    assert table_["p_holm"].tolist() == holm(table_["p_value"])  # over the whole table
    assert table_["p_bh"].tolist() == benjamini_hochberg(table_["p_value"])
    assert (table_["p_holm"] >= table_["p_value"]).all()
    data = report(result)
    header, rows = table("comparisons", data, "en")
    assert header[-3:] == ["p", "p Holm", "p BH"] and len(rows[0]) == len(header)
    assert "adjusted over all 16 comparisons at once" in markdown(data, "en")
    assert "Holm" in data["settings"]["adjustment"]


# -- the context budget ------------------------------------------------------------------------


def test_context_k_marks_every_deeper_figure_in_each_row(tmp_path):
    folder = make_release(tmp_path / "v1")
    base = save(tmp_path, BASE, "base")
    out = tmp_path / "report"
    args = ["evaluate", "--release", folder, "--run", base, "--rounds", "0"]
    args += ["--metrics", "recall@1,recall@3,mrr,mrr@1,map,ndcg@2", "--context-k", "2"]
    shown = qrels_cli(*args, "--out", out, expect=0).output
    marked = {
        line.split()[0]
        for line in shown.splitlines()
        if line.startswith("    ") and "(beyond the context budget)" in line
    }
    assert marked == {"recall@3", "mrr", "map"}  # no @k: the whole ranking
    data = json.loads((out / "report.json").read_text())
    beyond = {r["metric"]: r["beyond_context"] for r in data["summary"] if r["group"] == "all"}
    assert beyond == {
        "recall@2": False,  # the budget's own, put first
        "hit@2": False,
        "recall@1": False,
        "recall@3": True,
        "mrr": True,
        "mrr@1": False,
        "map": True,
        "ndcg@2": False,
    }
    rows = [r for r in (out / "report.md").read_text().splitlines() if r.startswith("| base |")]
    figures = {r.split(" | ")[2]: r.endswith("(beyond the context budget) |") for r in rows}
    assert {m for m, mark in figures.items() if mark} == {"recall@3", "mrr", "map"}


# -- bpref and infAP ---------------------------------------------------------------------------
# A hand-made case. q1's judgments: a 2, d 1 (relevant), b 0, e 0; the pool also held c,
# which nobody judged (sampled out); z was never pooled. The run: c a z b d e.
HAND_PARENTS = {f"{x}#0": x for x in "abcdez"}
HAND_QUERIES = [{"_id": "q1", "text": "hand", "split": "test"}]
HAND_GRADES = {"q1": {"a#0": 2, "b#0": 0, "d#0": 1, "e#0": 0}}
HAND_RUN = {"q1": {"c#0": 5.0, "a#0": 4.0, "z#0": 3.0, "b#0": 2.0, "d#0": 1.0, "e#0": 0.5}}


def test_bpref_and_infap_by_hand_equal_trec_eval(tmp_path):
    folder = make_release(
        tmp_path / "v1", HAND_GRADES, HAND_QUERIES, HAND_PARENTS, {("q1", "c#0"): "not_chosen"}
    )
    assert (
        folder / POOL_UNJUDGED
    ).read_text() == "query-id\tchunk-id\treason\nq1\tc#0\tnot_chosen\n"
    release = evaluation.load_release(folder)
    assert release.qrels_with_pool_marks()["q1"]["c#0"] == -1
    assert release.unjudged_at("doc") == {"q1": {"c"}}
    settings = evaluation.Settings.parse("bpref,infap,map", rounds=0)
    result = evaluation.evaluate(release, [RunFile(Run(HAND_RUN, "r"), "memory")], settings)
    figures = {m: result.mean(m) for m in ("bpref", "infap", "map")}
    # bpref (R = 2 relevant, 2 judged non-relevant): a has none above it: 1; d has b above
    # it: 1 - 1/2. (1 + 0.5) / 2. c (pooled, unjudged) and z (unpooled) are skipped.
    # infAP (trec_eval's m_infap.c, epsilon 1e-5): a at rank 2, above it c (pooled,
    # unjudged): 1/2 + 1/2 * (1/1) * (0 + e)/(0 + 2e) = 0.75; d at rank 5, above it a
    # (rel), c (unjudged), b (non-rel), z (unpooled): 1/5 + 4/5 * (3/4) * (1 + e)/(2 + 2e)
    # = 0.5. (0.75 + 0.5) / 2. AP counts c and z as non-relevant: (1/2 + 2/5) / 2.
    assert figures == pytest.approx({"bpref": 0.75, "infap": 0.625, "map": 0.45}, abs=1e-9)
    marked = {"q1": {**HAND_GRADES["q1"], "c#0": -1}}
    expected = pytrec_eval.RelevanceEvaluator(marked, {"bpref", "infAP", "map"}).evaluate(HAND_RUN)
    assert figures == pytest.approx(
        {"bpref": expected["q1"]["bpref"], "infap": expected["q1"]["infAP"], "map": 0.45}, abs=1e-12
    )
    # Without the pool's marks (a release before pool-unjudged.tsv), infAP is AP.
    old = evaluation.load_release(
        make_release(tmp_path / "old", HAND_GRADES, HAND_QUERIES, HAND_PARENTS)
    )
    result = evaluation.evaluate(old, [RunFile(Run(HAND_RUN, "r"), "memory")], settings)
    assert result.mean("infap") == pytest.approx(0.45) and result.mean("bpref") == 0.75


def test_a_releases_unjudged_pool_candidates_say_why(tmp_path):
    unjudged = {("q1", "c#0"): "not_chosen", ("q1", "z#0"): "unresolved"}
    folder = make_release(tmp_path / "v1", HAND_GRADES, HAND_QUERIES, HAND_PARENTS, unjudged)
    assert read_pool_unjudged(folder) == {"q1": {"c#0": "not_chosen", "z#0": "unresolved"}}
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["counts"]["pooled_unjudged"] == 2 and POOL_UNJUDGED in manifest["files"]
    assert "queries_without_evidence" not in manifest["counts"]
    assert manifest["counts"]["queries_without_grade_2"] == 0  # q1 has a grade 2


def test_judged_at_k_on_ties_is_read_on_the_order_every_metric_reads(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    grades = {"q1": {"a#0": 1, "b#0": 0, "c#0": 0}, "q2": {"d#0": 1}}
    queries = [{"_id": q, "text": q, "split": "test"} for q in grades]
    release = evaluation.load_release(make_release(tmp_path / "v1", grades, queries, HAND_PARENTS))
    # q1: b, c and d tie at 2.0 across the cutoff 2; q2: d and e tie.
    ties = {"q1": {"a#0": 3.0, "d#0": 2.0, "c#0": 2.0, "b#0": 2.0}, "q2": {"d#0": 1.0, "e#0": 1.0}}
    settings = evaluation.Settings.parse("p@2,p@3", rounds=0)
    result = evaluation.evaluate(release, [RunFile(Run(ties, "r"), "memory")], settings)
    ours = result.per_query.set_index("query_id")[["judged@2", "judged@3"]].to_dict("index")
    judged_k = [ir_measures.Judged @ 2, ir_measures.Judged @ 3]

    def theirs(run: dict) -> dict:
        found: dict = {}
        for m in ir_measures.iter_calc(judged_k, grades, run):
            found.setdefault(m.query_id, {})[f"judged@{m.measure['cutoff']}"] = m.value
        return found

    # The project's rule (trec_eval's order: ties by id descending, d#0 before c#0, b#0)
    # is ir_measures' Judged@k of the run in that order, which evaluate hands over.
    in_trec_order = theirs(trec_order(Run(ties)).scores)
    for query in ("q1", "q2"):
        assert ours[query] == pytest.approx(in_trec_order[query]), query
    assert ours["q1"] == pytest.approx({"judged@2": 0.5, "judged@3": 2 / 3})
    # ir_measures on the raw run breaks ties by id ascending (b#0, c#0 before d#0): where
    # the tie straddles k, it counts other items. Exactly that, and nothing else, differs.
    raw = theirs(ties)
    assert raw["q1"] == {"judged@2": 1.0, "judged@3": 1.0} and raw["q2"] == ours["q2"]
    ascending = {q: {c: -i for i, c in enumerate(sorted(d, key=lambda c: (-d[c], c)))}
                 for q, d in ties.items()}  # fmt: skip
    assert judged.coverage(grades, Run(ascending), [2, 3]).overall == pytest.approx(
        {2: (1.0 + 0.5) / 2, 3: (1.0 + 0.5) / 2}
    )


# -- the counted queries, handed to ir_measures ----------------------------------------------


def test_the_counted_qrels_give_evaluates_figures_in_ir_measures(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    release = evaluation.load_release(make_release(tmp_path / "v1"))
    assert release.counted_queries() == ["q1", "q2", "q3"]  # q4 nothing relevant, q5 q6 apart
    assert release.counted_queries(threshold=2) == ["q1", "q2"]
    assert release.counted_queries(split="dev") == ["q3"]
    # A run that ranks every counted query (and q4, whose judged chunks are all 0).
    run = {**BETTER, "q4": {"a#0": 1.0}}
    settings = evaluation.Settings.parse("ndcg@3,mrr,recall@2", rounds=0)
    result = evaluation.evaluate(release, [RunFile(Run(run, "r"), "memory")], settings)
    measures = [ir_measures.nDCG @ 3, ir_measures.RR, ir_measures.R @ 2]
    counted = ir_measures.calc_aggregate(measures, release.counted_ir_measures_qrels(), run)
    for measure, name in zip(measures, ("ndcg@3", "mrr", "recall@2"), strict=True):
        assert counted[measure] == pytest.approx(result.mean(name), abs=1e-12), name
    everything = ir_measures.calc_aggregate(measures, release.ir_measures_qrels(), run)
    assert everything[ir_measures.nDCG @ 3] < result.mean("ndcg@3")  # q4's 0 averaged in
    assert set(release.counted_ir_measures_qrels()["query_id"]) == {"q1", "q2", "q3"}
    assert set(GRADES) - set(release.counted_queries()) == {"q4"}


# -- Cranfield: a sampled pool ----------------------------------------------------------------


@pytest.mark.datasets
def test_cranfield_bpref_and_infap_on_a_sampled_pool_equal_trec_eval(
    datasets, tmp_path, monkeypatch
):
    """A BM25 pool of depth 20 of which a seeded 60% of the candidates is judged with the
    collection's grades; the release leaves the rest out (``--allow-unresolved``) and lists
    them in pool-unjudged.tsv. bpref and infAP of a BM25 run 100 deep equal pytrec_eval's
    (trec_eval's) on qrels built here from the pool export and the sample, with trec_eval's
    -1 for a pooled candidate left unjudged; the counted qrels handed to ir_measures give
    evaluate's nDCG@10."""
    import random

    import ir_measures

    from tests.annotator.evaluation.test_evaluation import bm25_run, lines_of
    from tests.conftest import run_qrels

    folder, url = datasets / "cranfield", f"sqlite:///{tmp_path / 'cranfield.db'}"
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    run_qrels(url, "init")
    corpus = folder / "corpus.jsonl"
    run_qrels(url, "import", "corpus", corpus, "--corpus-version", "cran", "--allow-empty")
    run_qrels(url, "import", "queries", folder / "queries.jsonl", "--query-set", "cran")
    run_qrels(url, "pool", "build", "p", "--systems", "bm25", "--depth", "20", "--overlap", "1")
    run_qrels(url, "pool", "export", "p", tmp_path / "pool.jsonl")
    known = Qrels.from_file(folder / "qrels.tsv").grades
    pool = [(r["query_id"], r["chunk_id"]) for r in lines_of(tmp_path / "pool.jsonl")]
    sample = set(random.Random(26).sample(pool, k=int(0.6 * len(pool))))
    grade = {(q, c): known.get(q, {}).get(c, 0) for q, c in sample}
    judgments = "".join(f"{q} 0 {c} {g}\n" for (q, c), g in sorted(grade.items()))
    run_qrels(url, "import", "judgments", write(tmp_path, "j.trec", judgments), "--annotator", "c")
    run_qrels(
        url, "release", "create", "v1", "--pool", "p", "--out", tmp_path, "--allow-unresolved"
    )
    run = bm25_run(folder, 100, tmp_path)

    args = ["evaluate", "--release", tmp_path / "v1", "--run", run, "--rounds", "0", "--json"]
    data = json.loads(qrels_cli(*args, "--metrics", "bpref,infap,map,ndcg@10", expect=0).stdout)
    excluded = {e["query_id"] for e in data["queries"]["excluded"]}
    marked: dict[str, dict[str, int]] = {}
    for q, c in pool:
        marked.setdefault(q, {})[c] = grade.get((q, c), -1)
    counted = {
        q: found for q, found in marked.items() if q not in excluded and max(found.values()) >= 1
    }
    assert len(counted) == data["queries"]["counted"] > 150
    scores = Run.from_file(run).to_dict()
    expected = pytrec_eval.RelevanceEvaluator(counted, {"bpref", "infAP", "map"}).evaluate(
        {q: scores[q] for q in counted}
    )
    summary = {r["metric"]: r["value"] for r in data["summary"] if r["group"] == "all"}
    for ours, theirs in (("bpref", "bpref"), ("infap", "infAP")):
        mean = sum(expected[q][theirs] for q in counted) / len(counted)
        assert summary[ours] == pytest.approx(mean, abs=1e-6), ours
    # MAP counts the 40% left unjudged as non-relevant; infAP infers them from the sample.
    judged_only = {q: {c: g for c, g in d.items() if g >= 0} for q, d in counted.items()}
    ap = pytrec_eval.RelevanceEvaluator(judged_only, {"map"}).evaluate(scores)
    assert summary["map"] == pytest.approx(sum(ap[q]["map"] for q in counted) / len(counted))
    assert summary["infap"] > summary["map"] + 0.01

    release = evaluation.load_release(tmp_path / "v1")
    assert release.counted_queries() == sorted(counted)
    ndcg = ir_measures.calc_aggregate(
        [ir_measures.nDCG @ 10], release.counted_ir_measures_qrels(), scores
    )[ir_measures.nDCG @ 10]
    assert ndcg == pytest.approx(summary["ndcg@10"], abs=1e-6)
