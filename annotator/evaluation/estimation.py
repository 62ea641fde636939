"""Metric estimates from a release's model grades and its human sample (``qrels evaluate
--estimate MODEL``): per run, metric and group, the estimate that combines a model judge's
grades on every query with people's grades on the randomly sampled queries
(``pooling.estimates``: PPI++ with the power-tuned weight; per stratum for a sample
stratified by slice; inverse probability weights for one drawn by the model's
uncertainty), its 95% interval and the number of human-judged queries behind it, beside
the model-only figure and the human-only figure on the sample; paired differences between
each run and the first on the same estimates, and a gate on them. No Streamlit in here.

What is estimated is the mean, over the release's answerable queries in scope, of the
metric under people's grades, with a query nobody found anything relevant for scoring 0
(unlike the ordinary evaluation, which leaves such queries out: whether an unsampled query
has anything relevant is not known). Per query, the human value reads the release's qrels
(people's grades; on a sampled query they should be complete: ``sample_judged`` says how
much of the model-graded candidates of the sampled queries people graded) and the model
value the model's grades in ``model_judgments.jsonl``; both are scored exactly as
``annotator.evaluation.evaluation`` scores a run.

The estimate's predictor (``PREDICTORS``) is by default not the model's value but the
metric under the model's grades calibrated on people's (``pooling.grade_calibration``:
P(human grade | model grade) fitted on the sampled queries, cross-fitted so that no sampled
query's predictor was fitted on it), the mean over ``grade_calibration.DRAWS`` drawn sets of
grades; ``raw`` uses the model's grades as they are. The model-only figure is always the
raw grades'.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from annotator.evaluation.comparison import GATE_SPLIT, MIN_QUERIES, OPERATORS, Check
from annotator.evaluation.evaluation import Evaluation, query_groups, query_scope, score_run
from annotator.evaluation.run_files import RunFile
from pooling import estimates, grade_calibration
from pooling.estimates import MIN_HUMAN_QUERIES
from pooling.i18n import LocalizedError
from pooling.qrels import Qrels
from pooling.query_sampling import stratum_of
from pooling.release_folder import read_model_judgments, read_sample
from pooling.run import Run

# The account ``qrels judge`` grades under: judge:<model>@<prompt hash, 12 characters>
# (``annotator.judge.runner.judge_name``, which this room cannot import; a test pins both).
JUDGE_ACCOUNT = re.compile(r"^judge:(?P<model>.+)@[0-9a-f]{12}$")
# What a gate check compares on an estimated difference (``comparison.ENDS`` for a measured one).
ESTIMATE_ENDS = {"mean": "value", "low": "low", "high": "high"}
# The estimate's predictor: the model's grades calibrated on people's (cross-fitted), or raw.
PREDICTORS = ("calibrated", "raw")
CALIBRATION_SEED = 24  # with the sample's seed: the same release draws the same grades
FIGURE_COLUMNS = [
    "run",
    "group",
    "metric",
    "queries",
    "human_queries",
    "human_share",
    "value",
    "low",
    "high",
    "weight",
    "model_only",
    "human_only",
    "human_low",
    "human_high",
    "reason",
    "detail",
]


@dataclass
class EstimateReport:
    """``figures`` (one row per run, group and metric: ``FIGURE_COLUMNS``) and
    ``differences`` (per candidate run, group and metric, the same columns for the paired
    difference against ``baseline``), with what they rest on: the ``model``, the
    ``sample`` (its design, size, seed, as ``sample.json`` holds it), ``population``
    (queries estimated over) and ``sample_judged`` (the share of the sampled queries'
    model-graded candidates people graded). ``per_query``: run, query_id, sampled, and each
    metric's ``<metric>:human``, ``<metric>:model`` (under the raw grades) and
    ``<metric>:predictor`` (what the estimate reads: ``predictor``, one of ``PREDICTORS``);
    ``scope``: the queries estimated over (``annotator.evaluation.evaluation.query_scope``)."""

    model: str
    sample: dict
    sample_judged: float | None
    baseline: str
    per_query: pd.DataFrame
    scope: pd.DataFrame
    groups: dict[str, set[str]]
    figures: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    differences: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    predictor: str = PREDICTORS[0]

    @property
    def population(self) -> int:
        return len(self.scope)

    def estimate(
        self, predicted, human, sampled, members: list[str], model=None, *, difference=False
    ) -> estimates.Estimate:
        """``pooling.estimates.estimate`` over ``members`` under the sample's design, from
        the ``predicted`` values; its model-only figure the mean of ``model`` (the raw
        grades' values) when given. Every metric lies in [0, 1], a ``difference`` of two in
        [-1, 1]: estimates and intervals are kept there."""
        design, extra = self.sample["design"], dict[str, list]()
        if design == "stratified":
            slices = dict(zip(self.scope["query_id"], self.scope["slices"], strict=True))
            extra["strata"] = [stratum_of(slices[q]) for q in members]
        elif design == "uncertainty":
            drawn = {m["query_id"]: float(m["probability"]) for m in self.sample["queries"]}
            extra["probabilities"] = [drawn.get(q, 1.0) for q in members]  # unsampled: unused
        strata, probabilities = extra.get("strata"), extra.get("probabilities")
        found = estimates.estimate(
            predicted,
            human,
            sampled,
            strata=strata,
            probabilities=probabilities,
            bounds=(-1.0, 1.0) if difference else (0.0, 1.0),
        )
        if model is None or not len(model):
            return found
        return dataclasses.replace(found, model_only=float(np.mean(model)))


def _with_every_query(qrels: Qrels, queries: list[str]) -> Qrels:
    """``qrels`` with an (empty) entry for every query, so that each is scored (0 where
    nothing is relevant) rather than passed over."""
    return Qrels({**{q: {} for q in queries}, **qrels.to_dict()}, qrels.name)


def _values(evaluation: Evaluation, source: RunFile, name: str, qrels: Qrels, scope):
    """Per-query metric values of one run under chunk-level ``qrels`` (by query id), scored
    as the evaluation scores a run (at document level: each document graded by its best
    chunk)."""
    release, level = evaluation.release, evaluation.settings.level
    members = list(scope["query_id"])
    if level == "chunk":
        graded = dataclasses.replace(release, qrels=_with_every_query(qrels, members))
    else:
        documents = qrels if release.parents is None else qrels.documents(release.parents)
        graded = dataclasses.replace(release, doc_qrels=_with_every_query(documents, members))
    renamed = RunFile(Run(source.run.scores, name), source.source, source.sha256)
    frame, _ = score_run(graded, renamed, scope, evaluation.settings)
    return frame.set_index("query_id")


def _row(estimate: estimates.Estimate) -> dict:
    return {
        "queries": estimate.queries,
        "human_queries": estimate.human_queries,
        "human_share": estimate.human_share,
        "value": estimate.value,
        "low": estimate.low,
        "high": estimate.high,
        "weight": estimate.weight,
        "model_only": estimate.model_only,
        "human_only": estimate.human_only,
        "human_low": estimate.human_low,
        "human_high": estimate.human_high,
        "reason": estimate.reason,
        "detail": estimate.detail,
    }


def estimate_runs(
    evaluation: Evaluation, runs: list[RunFile], model: str, predictor: str = PREDICTORS[0]
) -> EstimateReport:
    """The estimates of ``evaluation``'s runs (``runs``: the same files, in its order) from
    the release's grades by ``model`` and its sample, with ``predictor`` (``PREDICTORS``:
    the model's grades calibrated on people's, or ``raw``). Raises ``LocalizedError`` when
    the release holds no sample, no grades by ``model``, or no sampled query in scope, or
    for an unknown ``predictor``."""
    if predictor not in PREDICTORS:
        raise LocalizedError(
            "estimate_predictor_unknown", predictor=predictor, known=", ".join(PREDICTORS)
        )
    release, settings = evaluation.release, evaluation.settings
    sample = read_sample(release.folder)
    if sample is None:
        raise LocalizedError("estimate_no_sample", release=release.version)
    models = read_model_judgments(release.folder)
    model = model_account(models, model)
    scope = query_scope(release, settings.level, settings.threshold, settings.split)
    scope = scope[scope["status"] != "unanswerable"].assign(status="counted")
    members = list(scope["query_id"])
    sampled = {m["query_id"] for m in sample["queries"]} & set(members)
    if not sampled:
        raise LocalizedError("estimate_sample_out_of_scope", release=release.version)
    names = [info.name for info in evaluation.runs]
    drawn = []
    if predictor == "calibrated":
        seed = [CALIBRATION_SEED, abs(int(sample.get("seed") or 0))]
        drawn = grade_calibration.calibrated_qrels(
            models[model], release.qrels, members, sampled, seed
        )
    parts = []
    for name, source in zip(names, runs, strict=True):
        human = _values(evaluation, source, name, release.qrels, scope)
        machine = _values(evaluation, source, name, models[model], scope)
        # every run meets the same drawn grades, so paired differences stay paired
        calibrated = [_values(evaluation, source, name, qrels, scope) for qrels in drawn]
        frame = pd.DataFrame({"run": name, "query_id": members})
        frame["sampled"] = frame["query_id"].isin(sampled)
        for metric in settings.metrics:
            frame[f"{metric.name}:human"] = human.loc[members, metric.name].to_numpy(float)
            raw = machine.loc[members, metric.name].to_numpy(float)
            frame[f"{metric.name}:model"] = raw
            frame[f"{metric.name}:predictor"] = (
                np.mean([c.loc[members, metric.name].to_numpy(float) for c in calibrated], 0)
                if calibrated
                else raw
            )
        parts.append(frame)
    report = EstimateReport(
        model=model,
        sample=sample,
        sample_judged=_sample_judged(models[model], release.qrels, sampled),
        baseline=names[0],
        per_query=pd.concat(parts, ignore_index=True),
        scope=scope.reset_index(drop=True),
        groups={g: q for g, q in query_groups(scope, settings.by).items() if q},
        predictor=predictor,
    )
    report.figures = _figures(report, settings.metrics)
    report.differences = differences(report, settings.metrics, report.groups)
    return report


def model_account(models, model: str) -> str:
    """The name in ``models`` (a release's model judges) that ``model`` stands for: itself,
    or the account ``qrels judge`` graded under when asked for ``model`` (``judge:<model>@<prompt
    hash>``) where the release holds one such account. Raises ``LocalizedError`` naming the
    models it holds when none matches, or the accounts when ``model`` ran under several
    prompts."""
    if model in models:
        return model
    judged = sorted(
        name for name in models if (found := JUDGE_ACCOUNT.match(name)) and found["model"] == model
    )
    if len(judged) == 1:
        return judged[0]
    if judged:
        raise LocalizedError("estimate_model_ambiguous", model=model, accounts=", ".join(judged))
    known = ", ".join(sorted(models)) or "-"
    raise LocalizedError("estimate_model_unknown", model=model, known=known)


def _sample_judged(model: Qrels, human: Qrels, sampled: set[str]) -> float | None:
    pairs = [(q, c) for q in sampled if q in model for c in model[q]]
    if not pairs:
        return None
    return sum(1 for q, c in pairs if c in human.grades.get(q, {})) / len(pairs)


def _figures(report: EstimateReport, metrics) -> pd.DataFrame:
    rows = []
    for run, frame in report.per_query.groupby("run", sort=False):
        for group, members in report.groups.items():
            part = frame[frame["query_id"].isin(members)]
            for metric in metrics:
                found = report.estimate(
                    part[f"{metric.name}:predictor"].to_numpy(),
                    part[f"{metric.name}:human"].to_numpy(),
                    part["sampled"].to_numpy(),
                    list(part["query_id"]),
                    part[f"{metric.name}:model"].to_numpy(),
                )
                rows.append({"run": run, "group": group, "metric": metric.name, **_row(found)})
    return pd.DataFrame(rows, columns=FIGURE_COLUMNS)


def differences(report: EstimateReport, metrics, query_sets: dict[str, set[str]]) -> pd.DataFrame:
    """Per candidate run, group of ``query_sets`` and metric: the estimate of the mean
    paired difference (candidate minus baseline), the same estimator over the per-query
    differences of the predictor's values and of people's (model-only: of the raw
    grades')."""
    frame = report.per_query
    base = frame[frame["run"] == report.baseline].set_index("query_id")
    rows = []
    for run, part in frame[frame["run"] != report.baseline].groupby("run", sort=False):
        part = part.set_index("query_id")
        for group, members in query_sets.items():
            ids = [q for q in part.index if q in members]
            for metric in metrics:
                predicted, human, model = (
                    (part.loc[ids, column] - base.loc[ids, column]).to_numpy()
                    for column in (
                        f"{metric.name}:predictor",
                        f"{metric.name}:human",
                        f"{metric.name}:model",
                    )
                )
                sampled = part.loc[ids, "sampled"].to_numpy()
                found = report.estimate(predicted, human, sampled, ids, model, difference=True)
                row = {"run": run, "group": group, "metric": metric.name, **_row(found)}
                rows.append({"baseline": report.baseline, **row})
    return pd.DataFrame(rows, columns=["baseline", *FIGURE_COLUMNS])


def estimate_gate(
    report: EstimateReport,
    checks: list[Check],
    split: str | None,
    allow_dev: bool = False,
    min_queries: int = MIN_QUERIES,
    gate_small: bool = False,
) -> dict:
    """Each check on the estimated paired difference of each candidate on the test split,
    overall and per slice, under ``comparison.gate``'s rules: a check compares the
    estimate (``end`` ``mean``) or an end of its 95% interval (``low``, ``high``) with its
    bound; a group of fewer than ``min_queries`` queries is reported, not gated, unless
    ``gate_small``, and so is a group without an estimate (too few human queries:
    ``reason``). ``{"split", "min_queries", "gate_small", "checks": [...], "passed"}``.
    Raises ``LocalizedError`` as ``comparison.gate`` does: a single run, the dev split
    without ``allow_dev``, no query of the split, and nothing that can be gated."""
    if report.per_query["run"].nunique() < 2:
        raise LocalizedError("gate_needs_two_runs")
    split = split or GATE_SPLIT
    if split != GATE_SPLIT and not allow_dev:
        raise LocalizedError("gate_on_dev", split=split)
    on_split = set(report.scope.loc[report.scope["split"] == split, "query_id"])
    if not on_split:
        raise LocalizedError("gate_no_queries", split=split)
    query_sets = {
        name: members & on_split
        for name, members in report.groups.items()
        if (name == "all" or name.startswith("slice:")) and members & on_split
    }
    metrics = list(dict.fromkeys(check.metric for check in checks))
    table = differences(report, metrics, query_sets)
    rows = []
    for check in checks:
        for row in table[table["metric"] == check.metric.name].to_dict("records"):
            compared = row[ESTIMATE_ENDS[check.end]]
            known = compared is not None and not np.isnan(compared)
            gated = known and (gate_small or row["queries"] >= min_queries)
            passed = bool(OPERATORS[check.op](compared, check.bound)) if gated else None
            rows.append(
                {**row, "check": check.text, "end": check.end, "gated": gated, "passed": passed}
            )
    if not any(r["gated"] for r in rows):
        raise LocalizedError(
            "estimate_nothing_gated", split=split, human=MIN_HUMAN_QUERIES, min=min_queries
        )
    verdict = all(r["passed"] for r in rows if r["gated"])
    return {
        "split": split,
        "min_queries": min_queries,
        "gate_small": gate_small,
        "checks": rows,
        "passed": verdict,
    }
