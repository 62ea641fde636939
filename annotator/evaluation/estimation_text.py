"""Metric estimates (``annotator.evaluation.estimation``) as plain data and in words: the
``estimates`` part of ``qrels evaluate --estimate``'s report (stable layout, English
reasons), the lines it prints and the tables of the Evaluate page, in the user's language.
Pure functions."""

from __future__ import annotations

import math

import pandas as pd

from annotator.evaluation.comparison import MIN_QUERIES
from annotator.evaluation.estimation import (
    PREDICTORS,
    EstimateReport,
    estimate_gate,
    estimate_runs,
)
from annotator.evaluation.evaluation_text import group_name, interval, num, signed
from pooling.estimates import CONFIDENCE, MIN_HUMAN_QUERIES
from pooling.grade_calibration import DRAWS, FOLDS
from pooling.i18n import t
from pooling.readers import printable

METHOD = (
    "PPI++ (power-tuned λ, Angelopoulos, Duchi & Zrnic 2023); per stratum for a stratified "
    "sample; inverse probability weights for unequal probabilities (Zrnic & Candès 2024); "
    "95% t interval for the query population's mean; predictor: the metric under the model's "
    "grades calibrated on people's, cross-fitted (Zrnic & Candès 2024, cross-prediction), "
    "or under its raw grades"
)


def _plain(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return _plain(value.item())
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def estimate_data(report: EstimateReport, gate: dict | None = None) -> dict:
    """The estimates as plain data: model, sample, population, how completely people
    graded the sampled queries, the figures, the paired differences and the gate."""
    sample = report.sample
    return {
        "model": report.model,
        "method": METHOD,
        "predictor": report.predictor,
        "confidence": CONFIDENCE,
        "min_human_queries": MIN_HUMAN_QUERIES,
        "sample": {
            key: sample.get(key) for key in ("design", "requested", "size", "population", "seed")
        }
        | {"model": sample.get("model"), "draws": sample.get("draws")},
        "population": report.population,
        "sample_judged": report.sample_judged,
        "figures": _records(report.figures),
        "differences": _records(report.differences),
        "gate": None
        if gate is None
        else {**gate, "checks": [{k: _plain(v) for k, v in c.items()} for c in gate["checks"]]},
    }


def estimate_part(
    evaluation,
    runs,
    model: str,
    checks=(),
    allow_dev: bool = False,
    min_queries: int = MIN_QUERIES,
    gate_small: bool = False,
    predictor: str = PREDICTORS[0],
) -> dict:
    """``estimate_data`` of ``estimation.estimate_runs`` (with the gate on the estimated
    differences when ``checks`` are given, ``estimation.estimate_gate``'s rules): the
    ``estimates`` of an evaluation's report."""
    report = estimate_runs(evaluation, runs, model, predictor)
    split = evaluation.settings.split
    gate = None
    if checks:
        gate = estimate_gate(report, list(checks), split, allow_dev, min_queries, gate_small)
    data = estimate_data(report, gate)
    # Not the plain figures' population: say by how many queries the two differ.
    statuses = evaluation.scope["status"]
    data["without_relevant"] = int((statuses == "no_relevant").sum())
    data["plain_counted"] = int((statuses == "counted").sum())
    return data


def _why(row: dict, lang: str | None) -> str:
    reason = row["reason"]
    if reason == "too_few_human_queries":
        return t("estimate_too_few", lang, n=row["human_queries"], minimum=MIN_HUMAN_QUERIES)
    if reason == "too_few_in_stratum":
        return t("estimate_stratum_small", lang, strata=row["detail"])
    return t("estimate_constant", lang)


def figure_text(row: dict, lang: str | None = None, sign: bool = False) -> str:
    """``0.6253 [0.5305, 0.7200]; model only 0.6230; people only ...; λ 0.85``, or why
    there is no estimate."""
    shown = signed if sign else num
    if row["value"] is None:
        return t("estimate_none", lang, why=_why(row, lang), model=shown(row["model_only"]))
    return t(
        "estimate_figure",
        lang,
        value=shown(row["value"]),
        interval=interval(row["low"], row["high"]),
        model=shown(row["model_only"]),
        human=shown(row["human_only"]),
        human_interval=interval(row["human_low"], row["human_high"]),
        weight=num(row["weight"], 2),
    )


def estimate_head_lines(data: dict, lang: str | None = None) -> list[str]:
    """The model, the sample, and how completely people graded the sampled queries."""
    sample = data["sample"]
    lines = [
        t(
            "estimate_head",
            lang,
            model=data["model"],
            design=t(f"sample_design_{sample['design']}", lang),
            size=sample["size"],
            population=sample["population"],
            seed=sample["seed"],
        )
    ]
    lines.append(f"  {draw_line(sample.get('draws'), lang)}")
    predictor = data.get("predictor", PREDICTORS[0])
    lines.append(t(f"estimate_predictor_{predictor}", lang, folds=FOLDS, draws=DRAWS))
    if "without_relevant" in data:
        lines.append(
            t(
                "estimate_population",
                lang,
                population=data["population"],
                without=data["without_relevant"],
                counted=data["plain_counted"],
            )
        )
    if data["sample_judged"] is not None:
        lines.append(t("estimate_judged", lang, share=data["sample_judged"]))
    return lines


def draw_line(draws: list[dict] | None, lang: str | None = None) -> str:
    """Which draw of its pool's sample a sample is (the last of ``draws``, as
    ``sample.json`` lists them), whether it was drawn again after people had judged
    queries, and why: "sample: draw 2 of 2, redrawn after 5 judged queries: <why>". A
    release made before draws were kept (None) says so."""
    if not draws:
        return t("sample_draws_unknown", lang)
    last = draws[-1]
    line = t("sample_draw", lang, number=last.get("draw", len(draws)), total=len(draws))
    if len(draws) > 1:
        judged = last.get("judged_before")
        if judged is None:
            line += t("sample_draw_redrawn_unknown", lang)
        else:
            line += t("sample_draw_redrawn", lang, judged=judged)
    if last.get("reason"):
        line += t("sample_draw_reason", lang, why=printable(str(last["reason"])))
    return line


def estimate_lines(data: dict, lang: str | None = None) -> list[str]:
    """What ``qrels evaluate --estimate`` prints after the ordinary report."""
    lines = ["", *estimate_head_lines(data, lang)]
    figures, runs = data["figures"], list(dict.fromkeys(r["run"] for r in data["figures"]))
    for group in dict.fromkeys(r["group"] for r in figures):
        rows = [r for r in figures if r["group"] == group]
        first = rows[0]
        lines.append(
            t(
                "estimate_group",
                lang,
                group=group_name(group, lang),
                queries=first["queries"],
                human=first["human_queries"],
                share=first["human_share"],
            )
        )
        for run in runs:
            lines += [
                f"  {run}  {r['metric']:<12}  {figure_text(r, lang)}"
                for r in rows
                if r["run"] == run
            ]
        for r in (d for d in data["differences"] if d["group"] == group):
            lines.append(
                f"  {r['run']} - {r['baseline']}  {r['metric']:<12}  {figure_text(r, lang, True)}"
            )
    if data["gate"]:
        lines += ["", *estimate_gate_lines(data["gate"], lang)]
    lines.append(t("estimate_what", lang))
    return lines


def estimate_gate_lines(gate: dict, lang: str | None = None) -> list[str]:
    lines = [t("estimate_gate_title", lang, split=gate["split"])]
    for check in gate["checks"]:
        if check["gated"]:
            verdict = t("eval_pass" if check["passed"] else "eval_fail", lang)
        elif check["value"] is not None:  # an estimate of too few queries
            verdict = t("eval_not_gated", lang, min=gate["min_queries"])
        else:
            verdict = t("estimate_not_gated", lang)
        shown = signed(check["value"]) if check["value"] is not None else _why(check, lang)
        lines.append(
            f"  {verdict}  {check['run']}  {check['check']}  {group_name(check['group'], lang)}"
            f"  {shown}  {interval(check['low'], check['high'])}".rstrip()
        )
    lines.append(t("eval_gate_passed" if gate["passed"] else "estimate_gate_failed", lang))
    return lines


def estimate_table(data: dict, kind: str = "figures", lang: str | None = None) -> pd.DataFrame:
    """The figures (or ``differences``) as the Evaluate page shows them: run, group, metric,
    estimate with its interval, human queries and share, model-only and human-only."""
    columns = [
        t(key, lang)
        for key in (
            "estimate_col_run",
            "estimate_col_group",
            "estimate_col_metric",
            "estimate_col_estimate",
            "estimate_col_interval",
            "estimate_col_human",
            "estimate_col_model_only",
            "estimate_col_human_only",
            "estimate_col_note",
        )
    ]
    rows = []
    for r in data[kind]:
        run = r["run"] if kind == "figures" else f"{r['run']} - {r['baseline']}"
        note = "" if r["value"] is not None else _why(r, lang)
        rows.append(
            [
                run,
                group_name(r["group"], lang),
                r["metric"],
                num(r["value"]),  # "-" where there is none, and the note says why
                interval(r["low"], r["high"]),
                f"{r['human_queries']}/{r['queries']} ({r['human_share']:.0%})",
                num(r["model_only"]),
                num(r["human_only"]),
                note,
            ]
        )
    return pd.DataFrame(rows, columns=columns)
