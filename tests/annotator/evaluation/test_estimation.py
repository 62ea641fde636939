"""qrels evaluate --estimate: per run, metric and group the estimate from a release's model
grades and its human sample equals pooling.estimates on per-query values scored by
pytrec_eval; human-only and model-only beside it; paired differences; small groups say why;
stratified and unequal-probability samples; the gate on estimates; the CLI in both
languages; releases without what it needs are refused clearly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import pytrec_eval
from click.testing import CliRunner

from annotator.cli import cli
from annotator.evaluation import estimation, evaluation
from annotator.evaluation.comparison import parse_gate
from annotator.evaluation.estimation_text import (
    estimate_data,
    estimate_gate_lines,
    estimate_lines,
    estimate_table,
)
from annotator.evaluation.run_files import RunFile
from annotator.quality.adjudication import Resolution
from annotator.releases.release_files import (
    write_judgments,
    write_model_judgments,
    write_release,
    write_sample,
)
from pooling import estimates, grade_calibration, query_sampling
from pooling.i18n import MESSAGES, LocalizedError
from pooling.qrels import Qrels
from pooling.release_folder import verify_release
from pooling.run import Run

QUERIES, CHUNKS, SAMPLED = 40, 8, 16


def world(seed: int = 0):
    """Grades of 40 queries x 8 chunks (the truth), a model's noisy grades of them, and two
    runs; half the queries in slice a, half in b; the first 30 on the test split."""
    rng = np.random.default_rng(seed)
    truth = {
        f"q{i:02d}": {f"c{i:02d}-{j}": int(rng.integers(0, 4)) for j in range(CHUNKS)}
        for i in range(QUERIES)
    }
    model = {
        q: {c: int(np.clip(g + rng.integers(-1, 2), 0, 3)) for c, g in d.items()}
        for q, d in truth.items()
    }
    runs = {
        name: {q: {c: float(rng.random()) for c in d} for q, d in truth.items()}
        for name in ("base", "better")
    }
    for q, d in truth.items():  # "better" ranks the truth's best chunks higher
        runs["better"][q] = {c: 0.3 * g + runs["better"][q][c] for c, g in d.items()}
    queries = [
        {"_id": q, "text": f"query {q}", "slices": ["a" if i % 2 else "b"], "split": "test"}
        if i < 30
        else {"_id": q, "text": f"query {q}", "slices": ["a" if i % 2 else "b"], "split": "dev"}
        for i, q in enumerate(truth)
    ]
    return truth, model, runs, queries


def make_release(folder: Path, design: str = "uniform", size: int = SAMPLED, seed: int = 0):
    """A release whose people judged exactly the sampled queries, completely, with a model's
    grades of every candidate and the sample's design."""
    truth, model, _, queries = world(seed)
    ids = list(truth)
    if design == "stratified":
        strata = {q["_id"]: query_sampling.stratum_of(q["slices"]) for q in queries}
        members = query_sampling.stratified(strata, size, 7)
    elif design == "uncertainty":
        unsure = {q: (i % 3) / 2 for i, q in enumerate(ids)}
        members = query_sampling.by_uncertainty(unsure, size, 7)
    else:
        members = query_sampling.uniform(ids, size, 7)
    sampled = {m.query_id for m in members}
    folder.mkdir(parents=True)
    snapshot = SimpleNamespace(
        pool=SimpleNamespace(name="p", config={}, overlap=1),
        query_set=SimpleNamespace(name="qs", content_hash="h"),
        corpus_version=SimpleNamespace(name="cv", content_hash="h", chunking={}),
        queries=[
            SimpleNamespace(
                query_id=q["_id"],
                text=q["text"],
                slices=q["slices"],
                split=q["split"],
                answerable=True,
                notes="",
            )
            for q in queries
        ],
        decisions={},
        candidates=[],
        not_chosen=set(),
        gold=[],
    )
    grades = {(q, c): g for q, d in truth.items() if q in sampled for c, g in d.items()}
    seen = write_judgments(folder, [])
    write_model_judgments(
        folder, [("judge-m", q, c, g, None) for q, d in model.items() for c, g in d.items()]
    )
    write_sample(
        folder,
        {
            "design": design,
            "requested": str(size),
            "size": len(members),
            "population": len(ids),
            "seed": 7,
            "model": "judge-m" if design == "uncertainty" else None,
            "config": {},
            "created_at": "2026-03-02T09:00:00+00:00",
            "queries": [
                {"query_id": m.query_id, "probability": m.probability, "stratum": m.stratum}
                for m in members
            ],
        },
    )
    parents = {c: c for d in truth.values() for c in d}
    write_release(
        folder,
        "v1",
        snapshot,
        Resolution(grades, [], 0),
        seen.frame(),
        parents,
        set(),
        policy="threshold",
    )
    return folder, members


def run_files(seed: int = 0) -> list[RunFile]:
    _, _, runs, _ = world(seed)
    return [RunFile(Run(scores, name), "memory") for name, scores in runs.items()]


def estimated(
    folder: Path, metrics: str = "ndcg@5,recall@3", predictor: str = "calibrated", **options
):
    settings = evaluation.Settings.parse(metrics, rounds=50, **options)
    runs = run_files()
    result = evaluation.evaluate(evaluation.load_release(folder), runs, settings)
    return estimation.estimate_runs(result, runs, "judge-m", predictor)


def pytrec_values(run: dict, grades: dict, measure: str) -> dict[str, float]:
    judged = {q: d for q, d in grades.items()}
    found = pytrec_eval.RelevanceEvaluator(judged, {measure}).evaluate(run)
    return {q: next(iter(values.values())) for q, values in found.items()}


def figure(report, run: str, metric: str, group: str = "all") -> dict:
    rows = report.figures
    row = rows[(rows["run"] == run) & (rows["metric"] == metric) & (rows["group"] == group)]
    return row.iloc[0].to_dict()


@pytest.fixture
def uniform_release(tmp_path):
    return make_release(tmp_path / "v1")


def test_the_estimate_is_the_estimator_on_per_query_values_trec_eval_gives(uniform_release):
    folder, members = uniform_release
    truth, model, runs, _ = world()
    report = estimated(folder, predictor="raw")
    sampled = {m.query_id for m in members}
    ids = sorted(truth)
    for run in ("base", "better"):
        human = pytrec_values(runs[run], {q: truth[q] for q in sampled}, "ndcg_cut.5")
        machine = pytrec_values(runs[run], model, "ndcg_cut.5")
        expected = estimates.estimate(
            [machine[q] for q in ids],
            [human.get(q, np.nan) for q in ids],
            [q in sampled for q in ids],
        )
        found = figure(report, run, "ndcg@5")
        assert found["value"] == pytest.approx(expected.value)
        assert (found["low"], found["high"]) == pytest.approx((expected.low, expected.high))
        assert found["human_queries"] == len(sampled) and found["queries"] == QUERIES
        # Beside it: the model's mean over every query, people's mean over the sample.
        assert found["model_only"] == pytest.approx(np.mean(list(machine.values())))
        assert found["human_only"] == pytest.approx(np.mean([human[q] for q in sampled]))
    assert report.sample_judged == 1.0


def test_by_default_the_predictor_is_the_metric_under_grades_calibrated_on_people(
    uniform_release,
):
    """The predictor is the mean over the drawn, cross-fitted grades (pooling.grade_calibration)
    of the metric trec_eval gives; the model-only figure stays the raw grades'."""
    folder, members = uniform_release
    truth, model, runs, _ = world()
    report = estimated(folder)
    assert report.predictor == "calibrated"
    sampled = {m.query_id for m in members}
    ids = sorted(truth)
    people = Qrels({q: truth[q] for q in sampled})
    drawn = grade_calibration.calibrated_qrels(
        Qrels(model), people, ids, sampled, [estimation.CALIBRATION_SEED, 7]
    )
    for run in ("base", "better"):
        human = pytrec_values(runs[run], {q: truth[q] for q in sampled}, "ndcg_cut.5")
        machine = pytrec_values(runs[run], model, "ndcg_cut.5")
        per_draw = [pytrec_values(runs[run], qrels.to_dict(), "ndcg_cut.5") for qrels in drawn]
        predicted = [np.mean([values.get(q, 0.0) for values in per_draw]) for q in ids]
        expected = estimates.estimate(
            predicted, [human.get(q, np.nan) for q in ids], [q in sampled for q in ids]
        )
        found = figure(report, run, "ndcg@5")
        assert found["value"] == pytest.approx(expected.value)
        assert (found["low"], found["high"]) == pytest.approx((expected.low, expected.high))
        assert found["model_only"] == pytest.approx(np.mean(list(machine.values())))
        assert found["value"] != pytest.approx(
            figure(estimated(folder, predictor="raw"), run, "ndcg@5")["value"]
        )
    data = estimate_data(report)
    assert data["predictor"] == "calibrated"
    assert any("calibrated on people's" in line for line in estimate_lines(data, "en"))
    with pytest.raises(LocalizedError) as refused:
        estimated(folder, predictor="guess")
    assert "calibrated, raw" in str(refused.value)


def test_at_document_level_chunks_are_graded_as_their_documents(tmp_path):
    folder, members = make_release(tmp_path / "v1")
    chunk, document = estimated(folder, "ndcg@5"), estimated(folder, "ndcg@5", level="doc")
    # Each chunk is its own document here: the two levels agree.
    assert document.figures["value"].tolist() == pytest.approx(chunk.figures["value"].tolist())


def test_groups_with_too_few_human_queries_say_so_instead_of_an_interval(uniform_release):
    folder, members = uniform_release
    report = estimated(folder, by="slice")
    sizes = []
    for group in ("slice:a", "slice:b"):
        row = figure(report, "base", "ndcg@5", group)
        n = sum(1 for m in members if (int(m.query_id[1:]) % 2 == 1) == (group == "slice:a"))
        assert row["human_queries"] == n and row["queries"] == QUERIES / 2
        if n < estimates.MIN_HUMAN_QUERIES:
            assert row["reason"] == estimates.TOO_FEW and np.isnan(row["value"])
        else:
            assert row["low"] < row["value"] < row["high"]
        assert row["model_only"] is not None
        sizes.append(n)
    assert min(sizes) < estimates.MIN_HUMAN_QUERIES <= max(sizes)  # this sample: 4 and 12
    lines = estimate_lines(estimate_data(report), "en")
    assert any("no estimate: " in line and "fewer than 10" in line for line in lines)
    # The Evaluate page's table: a dash where there is no figure, and the note says why;
    # never None (issue 40).
    for lang in ("en", "zh"):
        table = estimate_table(estimate_data(report), "figures", lang)
        assert not table.isna().any().any() and "None" not in table.to_string()
        empty = table[table.iloc[:, 3] == "-"]
        assert len(empty) and (empty.iloc[:, 8] != "").all()


def test_paired_differences_estimate_the_mean_per_query_difference(uniform_release):
    folder, members = uniform_release
    report = estimated(folder)
    frame = report.per_query.set_index(["run", "query_id"])
    ids = sorted(report.scope["query_id"])
    column = "recall@3"
    model = [
        frame.loc[("better", q), f"{column}:predictor"]
        - frame.loc[("base", q), f"{column}:predictor"]
        for q in ids
    ]
    human = [
        frame.loc[("better", q), f"{column}:human"] - frame.loc[("base", q), f"{column}:human"]
        for q in ids
    ]
    sampled = {m.query_id for m in members}
    expected = estimates.estimate(model, human, [q in sampled for q in ids])
    rows = report.differences
    row = rows[(rows["metric"] == column) & (rows["group"] == "all")].iloc[0]
    assert row["baseline"] == "base" and row["run"] == "better"
    assert row["value"] == pytest.approx(expected.value)
    assert row["low"] == pytest.approx(expected.low)


@pytest.mark.parametrize("design", ["stratified", "uncertainty"])
def test_the_sample_design_decides_the_estimator(tmp_path, design):
    folder, members = make_release(tmp_path / "v1", design, size=24)
    report = estimated(folder)
    frame = report.per_query[report.per_query["run"] == "base"]
    ids = list(frame["query_id"])
    sampled = frame["sampled"].to_numpy()
    extra = {}
    if design == "stratified":
        extra["strata"] = ["a" if int(q[1:]) % 2 else "b" for q in ids]
    else:
        drawn = {m.query_id: m.probability for m in members}
        extra["probabilities"] = [drawn.get(q, 1.0) for q in ids]
        assert len(set(drawn.values())) > 1  # unequal
    expected = estimates.estimate(
        frame["ndcg@5:predictor"].to_numpy(), frame["ndcg@5:human"].to_numpy(), sampled, **extra
    )
    found = figure(report, "base", "ndcg@5")
    assert found["value"] == pytest.approx(expected.value)
    assert found["low"] == pytest.approx(expected.low)
    assert estimates.estimate(
        frame["ndcg@5:predictor"].to_numpy(), frame["ndcg@5:human"].to_numpy(), sampled
    ).value != pytest.approx(found["value"])  # the uniform estimator would differ


def test_the_gate_on_estimates(uniform_release):
    folder, _ = uniform_release
    report = estimated(folder, by="slice")
    passing = estimation.estimate_gate(report, parse_gate("ndcg@5>=-0.5"), None)
    assert passing["passed"] and passing["split"] == "test"
    overall = [c for c in passing["checks"] if c["group"] == "all"]
    assert overall[0]["gated"] and overall[0]["human_queries"] < SAMPLED  # test split only
    slices = [c for c in passing["checks"] if c["group"].startswith("slice:")]
    assert slices and all(not c["gated"] and c["passed"] is None for c in slices)
    failing = estimation.estimate_gate(report, parse_gate("ndcg@5>=0.9"), None)
    assert not failing["passed"]
    with pytest.raises(LocalizedError, match="dev"):
        estimation.estimate_gate(report, parse_gate("ndcg@5>=0"), "dev")


def test_the_gate_on_estimates_keeps_evaluate_s_rules(uniform_release):
    """@low/@high check an end of the estimate's interval, groups under --min-queries are
    reported and not gated unless --gate-small, a group without an estimate is never gated,
    and nothing left to gate is an error (exit 2), not a failed gate."""
    folder, _ = uniform_release
    report = estimated(folder, by="slice")
    row = next(
        c
        for c in estimation.estimate_gate(report, parse_gate("ndcg@5>=-1"), None)["checks"]
        if c["group"] == "all"
    )
    assert row["low"] < row["value"] < row["high"]
    bound = (row["low"] + row["value"]) / 2
    on_mean = estimation.estimate_gate(report, parse_gate(f"ndcg@5>={bound}"), None)
    on_low = estimation.estimate_gate(report, parse_gate(f"ndcg@5>={bound}@low"), None)
    assert on_mean["passed"] and not on_low["passed"]
    assert [c["end"] for c in on_low["checks"]] == ["low"] * len(on_low["checks"])
    above = (row["high"] + row["value"]) / 2
    assert estimation.estimate_gate(report, parse_gate(f"ndcg@5>={above}@high"), None)["passed"]
    with pytest.raises(LocalizedError, match="nothing to gate on the estimates"):
        estimation.estimate_gate(report, parse_gate("ndcg@5>=-1"), None, min_queries=31)
    small = estimation.estimate_gate(
        report, parse_gate("ndcg@5>=-1"), None, min_queries=31, gate_small=True
    )
    gated = {c["group"] for c in small["checks"] if c["gated"]}
    assert gated == {"all"}  # the slices have no estimate (under 10 people-judged queries)
    assert small["min_queries"] == 31 and small["gate_small"]
    gate = estimation.estimate_gate(report, parse_gate("ndcg@5>=-1"), None, min_queries=25)
    lines = estimate_gate_lines(estimate_data(report, gate)["gate"], "en")
    assert not any("not gated (n < 25)" in line for line in lines)  # all: 30 queries
    assert sum("NOT GATED" in line for line in lines) == 2  # the slices, without estimates


def evaluate_cli(*args, expect: int = 0):
    result = CliRunner().invoke(cli, ["evaluate", *map(str, args)], catch_exceptions=False)
    assert result.exit_code == expect, result.output + result.stderr
    return result


def write_runs(tmp_path: Path) -> list[Path]:
    paths = []
    for source in run_files():
        path = tmp_path / f"{source.run.name}.trec"
        source.run.save(path)
        paths.append(path)
    return paths


def test_the_command_prints_estimates_and_gates_on_them(uniform_release, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    folder, _ = uniform_release
    base, better = write_runs(tmp_path)
    shown = evaluate_cli(
        "--release", folder, "--run", base, "--run", better, "--estimate", "judge-m"
    )
    assert "estimates from model judge judge-m and people's grades on a sample of 16 of 40" in (
        shown.output
    )
    assert "all: 40 queries, 16 judged by people (40%)" in shown.output
    assert "model only" in shown.output and "people only" in shown.output
    # Two populations, each named with its counts (issue 40): the plain figures average the
    # queries with a relevant chunk, the estimates every answerable one, the others at 0.
    plain = re.search(
        r"each figure: the mean over the (\d+) counted queries \(with a relevant chunk\); "
        r"the (\d+) answerable queries without one are left out",
        shown.output,
    )
    counted, without = map(int, plain.groups())
    assert counted + without == 40 and without > 0
    assert (
        f"population: the 40 answerable queries in scope, {without} of them with nothing "
        f"relevant in the release (each counts 0); the plain figures above average only the "
        f"{counted} with a relevant chunk"
    ) in shown.output
    data = json.loads(
        evaluate_cli(
            "--release", folder, "--run", base, "--run", better, "--estimate", "judge-m", "--json"
        ).stdout
    )
    assert {f["run"] for f in data["estimates"]["figures"]} == {"base", "better"}
    assert data["estimates"]["sample"]["design"] == "uniform"
    assert data["estimates"]["predictor"] == "calibrated"
    assert (data["estimates"]["without_relevant"], data["estimates"]["plain_counted"]) == (
        without,
        counted,
    )
    raw = evaluate_cli(
        "--release",
        folder,
        "--run",
        base,
        "--run",
        better,
        "--estimate",
        "judge-m",
        "--raw-grades",
        "--json",
    ).stdout
    assert json.loads(raw)["estimates"]["predictor"] == "raw"
    args = ["--release", folder, "--run", base, "--run", better, "--estimate", "judge-m"]
    evaluate_cli(*args, "--gate", "ndcg@5>=-0.5")
    failed = evaluate_cli(*args, "--gate", "ndcg@5>=0.9", expect=1)
    assert "gate failed on the estimates" in failed.output
    nothing = evaluate_cli(*args, "--gate", "ndcg@5>=-1", "--min-queries", "41", expect=2)
    assert "nothing to gate on the estimates" in nothing.stderr
    evaluate_cli(*args, "--gate", "ndcg@5>=-1", "--min-queries", "41", "--gate-small")
    single = ["--release", folder, "--run", base, "--estimate", "judge-m", "--gate", "ndcg@5>=0"]
    assert "two runs" in evaluate_cli(*single, expect=2).stderr
    chinese = CliRunner().invoke(cli, ["--lang", "zh", "evaluate", *map(str, args)])
    assert "人工标注" in chinese.output


def test_a_release_without_a_sample_or_the_model_is_refused_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    folder, _ = make_release(tmp_path / "v1")
    base, _ = write_runs(tmp_path)
    unknown = evaluate_cli("--release", folder, "--run", base, "--estimate", "other", expect=2)
    assert "holds no grades by model 'other'; models in it: judge-m" in unknown.stderr
    write_sample(folder, None)
    assert verify_release(folder) == [
        "sample.json: sha256 differs from the manifest (changed after release)"
    ]


def test_estimate_messages_read_in_both_languages(uniform_release):
    folder, _ = uniform_release
    data = estimate_data(estimated(folder, by="slice"))
    for lang in ("en", "zh"):
        assert estimate_lines(data, lang)
        table = estimate_table(data, "figures", lang)
        assert len(table) == len(data["figures"]) and len(set(table.columns)) == 9
    import string

    for key in (k for k in MESSAGES if k.startswith(("estimate_", "sample_"))):
        en, zh = (
            sorted(n for _, n, _, _ in string.Formatter().parse(MESSAGES[key][lang]) if n)
            for lang in ("en", "zh")
        )
        assert en == zh, key


NO_DRAWS = "the release does not say how often it was drawn (made before draws were kept)"


def test_the_evaluate_page_shows_the_estimates_with_the_human_share(
    demo_url, tmp_path, monkeypatch
):
    from streamlit.testing.v1 import AppTest

    from annotator.evaluation.estimation_text import estimate_part
    from pooling.metrics import DEFAULT_METRICS
    from tests.annotator.app.test_app import PAGES, user_id
    from tests.annotator.evaluation.test_evaluation import record

    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    folder, _ = make_release(tmp_path / "releases" / "v1")
    record(demo_url, folder)
    at = AppTest.from_file(str(PAGES / "evaluate_page.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(demo_url, "lead")
    at.run()
    uploads = [(path.name, path.read_bytes(), "text/plain") for path in write_runs(tmp_path)]
    at.file_uploader(key="eval_runs").set_value(uploads).run()
    at.selectbox(key="eval_estimate_model").set_value("judge-m").run()
    assert not at.exception, at.exception
    settings = evaluation.Settings.parse(DEFAULT_METRICS, by="slice")
    runs = run_files()
    result = evaluation.evaluate(evaluation.load_release(folder), runs, settings)
    expected = estimate_table(estimate_part(result, runs, "judge-m"), "figures", "en")
    shown = next(d.value for d in at.dataframe if "estimate" in d.value.columns)
    assert shown["estimate"].tolist() == pytest.approx(expected["estimate"].tolist(), nan_ok=True)
    assert shown["human queries (share)"].tolist()[0] == "16/40 (40%)"
    assert any("sample of 16 of 40 queries" in t.value for t in at.text)
    # Which draw the sample is, next to the estimate (a release made before draws were kept).
    assert any(t.value == f"sample: {NO_DRAWS}" for t in at.text)
