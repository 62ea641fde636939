"""Runs against a baseline: per metric and group the mean paired difference over the
counted queries, its 95% bootstrap interval and a paired randomization test, with p-values
adjusted for every comparison made at once (``pooling.multiple_testing``); the queries that
moved most; and a gate that a candidate must pass on the frozen test split. No Streamlit in
here.

The first run of an ``annotator.evaluation.evaluation.Evaluation`` is the baseline; every other run
is a candidate. Every difference is candidate minus baseline, on the same queries.

A gate check is ``metric op bound``, on the mean difference, or ``metric op bound@low``
(``@high``), on the lower (upper) end of its 95% interval: ``ndcg@10>=-0.01@low`` passes
only when the interval clears -0.01, so a candidate whose mean is fine but whose interval
reaches far below does not. A group smaller than ``min_queries`` is reported, not gated.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from annotator.evaluation.evaluation import Evaluation, Settings, evaluate, load_release
from annotator.evaluation.run_files import read_run_file
from pooling.i18n import LocalizedError
from pooling.metrics import Metric, parse_metrics
from pooling.multiple_testing import benjamini_hochberg, holm
from pooling.resampling import bootstrap_interval, randomization_test

OPERATORS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
_CHECK = re.compile(
    r"^\s*([a-z][a-z0-9_]*(?:@\d+)?)\s*(>=|<=|>|<)\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*(?:@(low|high))?\s*$"
)
GATE_SPLIT = "test"
# A smaller group's difference is too noisy to gate on: reported, not gated, unless asked.
MIN_QUERIES = 20
ENDS = {"mean": "difference", "low": "low", "high": "high"}  # what a check compares


def paired(evaluation: Evaluation, run: str, metric: str, members: set[str]) -> pd.DataFrame:
    """``query_id``, ``baseline``, ``value``, ``difference`` for the counted queries in
    ``members``, by query id."""
    frame = evaluation.per_query
    counted = frame[(frame["status"] == "counted") & frame["query_id"].isin(members)]
    base = counted[counted["run"] == evaluation.baseline].set_index("query_id")[metric]
    other = counted[counted["run"] == run].set_index("query_id")[metric]
    paired = pd.DataFrame({"baseline": base, "value": other}).sort_index()
    paired["difference"] = paired["value"] - paired["baseline"]
    return paired.rename_axis("query_id").reset_index()


def differences(evaluation: Evaluation, query_sets: dict[str, set[str]] | None = None):
    """Per candidate, group (default: the evaluation's groups) and metric: ``queries``,
    ``baseline_value``, ``value``, ``difference`` (mean of the paired differences), ``low``
    and ``high`` (its 95% bootstrap interval), ``p_value`` (paired randomization test,
    ``pooling.resampling.TEST_NAME``), and ``p_holm`` and ``p_bh``: the p-values
    adjusted over every row of the table at once (all candidates, groups and metrics:
    ``pooling.multiple_testing``). Empty with a single run."""
    settings = evaluation.settings
    rows = []
    for info in evaluation.runs[1:]:
        for group, members in (query_sets or evaluation.groups).items():
            for metric in settings.metrics:
                pairs = paired(evaluation, info.name, metric.name, members)
                diffs = pairs["difference"].to_numpy(dtype=float)
                low, high = bootstrap_interval(diffs, settings.rounds, settings.seed)
                rows.append(
                    {
                        "baseline": evaluation.baseline,
                        "run": info.name,
                        "group": group,
                        "metric": metric.name,
                        "queries": len(diffs),
                        "baseline_value": pairs["baseline"].mean() if len(diffs) else np.nan,
                        "value": pairs["value"].mean() if len(diffs) else np.nan,
                        "difference": float(diffs.mean()) if len(diffs) else np.nan,
                        "low": low,
                        "high": high,
                        "p_value": randomization_test(diffs, settings.rounds, settings.seed),
                    }
                )
    table = pd.DataFrame(rows)
    if len(table):
        table["p_holm"] = holm(table["p_value"])
        table["p_bh"] = benjamini_hochberg(table["p_value"])
    return table


def movers(evaluation: Evaluation, count: int = 5) -> pd.DataFrame:
    """Per candidate, group and metric, the ``count`` queries that improved most and the
    ``count`` that regressed most against the baseline (``change``: ``improved`` or
    ``regressed``), with the query's text; unchanged queries are never listed."""
    texts = dict(zip(evaluation.scope["query_id"], evaluation.scope["text"], strict=True))
    parts = []
    for info in evaluation.runs[1:]:
        for group, members in evaluation.groups.items():
            for metric in evaluation.settings.metrics:
                pairs = paired(evaluation, info.name, metric.name, members)
                pairs = pairs.sort_values(["difference", "query_id"], kind="stable")
                worst = pairs[pairs["difference"] < 0].head(count).assign(change="regressed")
                best = pairs[pairs["difference"] > 0].iloc[::-1].head(count)
                for part in (worst, best.assign(change="improved")):
                    parts.append(part.assign(run=info.name, group=group, metric=metric.name))
    columns = ["run", "group", "metric", "change", "query_id", "baseline", "value", "difference"]
    if not parts:
        return pd.DataFrame(columns=[*columns, "text"])
    frame = pd.concat(parts, ignore_index=True)[columns]
    return frame.assign(text=frame["query_id"].map(texts))


@dataclass(frozen=True)
class Check:
    """One gate condition: the candidate's difference to the baseline on ``metric`` (its
    mean, or with ``end`` ``low`` or ``high`` that end of its 95% interval) compared with
    ``bound`` by ``op`` (``>=``, ``>``, ``<=``, ``<``)."""

    metric: Metric
    op: str
    bound: float
    end: str = "mean"

    @property
    def text(self) -> str:
        tail = "" if self.end == "mean" else f"@{self.end}"
        return f"{self.metric.name}{self.op}{self.bound:g}{tail}"


def parse_gate(text: str) -> list[Check]:
    """``"ndcg@10>=-0.01@low,recall@20>=0"`` as checks; raises ``LocalizedError`` naming
    the part that is not ``metric op number[@low|@high]``, or an unknown metric."""
    checks = []
    for part in (p for p in text.split(",") if p.strip()):
        found = _CHECK.match(part.lower())
        if found is None:
            raise LocalizedError("gate_syntax", part=part.strip())
        (metric,) = parse_metrics(found.group(1))
        end = found.group(4) or "mean"
        checks.append(Check(metric, found.group(2), float(found.group(3)), end))
    if not checks:
        raise LocalizedError("gate_syntax", part=text)
    return checks


def with_gate_metrics(settings: Settings, checks: list[Check]) -> Settings:
    """``settings`` with every metric the gate checks, those it lacked added at the end and
    named in ``added_for_gate`` (the output says so)."""
    added = tuple(dict.fromkeys(c.metric for c in checks if c.metric not in settings.metrics))
    return dataclasses.replace(
        settings, metrics=settings.metrics + added, added_for_gate=settings.added_for_gate + added
    )


def gate(
    evaluation: Evaluation,
    checks: list[Check],
    allow_dev: bool = False,
    min_queries: int = MIN_QUERIES,
    gate_small: bool = False,
) -> pd.DataFrame:
    """Each check for each candidate on the test split: overall and, for an evaluation by
    slice, per slice. Columns: ``run``, ``group``, ``metric``, ``check``, ``end``,
    ``queries``, ``difference``, ``low``, ``high``, ``gated`` (False for a group of fewer
    than ``min_queries`` queries, unless ``gate_small``) and ``passed`` (None where not
    gated). Raises ``LocalizedError`` with a single run, a check on a metric not evaluated,
    an interval check without bootstrap rounds, an evaluation of the dev split (unless
    ``allow_dev``: tuning happens on dev, the gate belongs to the frozen test split), no
    counted test query, or no group large enough to gate."""
    if len(evaluation.runs) < 2:
        raise LocalizedError("gate_needs_two_runs")
    settings = evaluation.settings
    missing = [c.metric.name for c in checks if c.metric not in settings.metrics]
    if missing:
        raise LocalizedError("gate_metric_missing", metric=missing[0])
    if settings.rounds <= 0 and any(c.end != "mean" for c in checks):
        raise LocalizedError("gate_interval_needs_rounds")
    split = settings.split or GATE_SPLIT
    if split != GATE_SPLIT and not allow_dev:
        raise LocalizedError("gate_on_dev", split=split)
    scope = evaluation.scope
    on_split = set(
        scope.loc[(scope["split"] == split) & (scope["status"] == "counted"), "query_id"]
    )
    if not on_split:
        raise LocalizedError("gate_no_queries", split=split)
    query_sets = {
        name: members & on_split
        for name, members in evaluation.groups.items()
        if name == "all" or name.startswith("slice:")
    }
    table = differences(evaluation, {k: v for k, v in query_sets.items() if v})
    rows = []
    for check in checks:
        for row in table[table["metric"] == check.metric.name].to_dict("records"):
            gated = gate_small or row["queries"] >= min_queries
            compared = row[ENDS[check.end]]
            rows.append(
                {
                    "run": row["run"],
                    "group": row["group"],
                    "metric": check.metric.name,
                    "check": check.text,
                    "end": check.end,
                    "queries": row["queries"],
                    "difference": row["difference"],
                    "low": row["low"],
                    "high": row["high"],
                    "gated": gated,
                    "passed": bool(OPERATORS[check.op](compared, check.bound)) if gated else None,
                }
            )
    frame = pd.DataFrame(rows)
    if not frame["gated"].any():
        largest = int(frame["queries"].max())
        raise LocalizedError("gate_nothing_gated", min=min_queries, largest=largest)
    return frame


def run_under_two_releases(
    a: Path | str, b: Path | str, run: Path | str, k: int = 10, level: str = "chunk"
) -> tuple[dict[str, tuple[float, float]], tuple[int, int]]:
    """A TREC ``run``'s nDCG@10 and Recall@k under release ``a`` and under ``b`` (name ->
    (in A, in B)), and the queries each averages over, as ``qrels evaluate`` computes them
    (the same queries count, the same library scores them); ``level`` is
    ``qrels release diff``'s (``annotator.releases.releases.diff_releases``): "document"
    scores by document, for releases on two corpus versions."""
    names = {"nDCG@10": Metric("ndcg", 10), f"Recall@{k}": Metric("recall", k)}
    judged = "chunk" if level == "chunk" else "doc"
    settings = Settings(metrics=tuple(names.values()), level=judged, rounds=0)
    source = read_run_file(run)
    before, after = (evaluate(load_release(f), [source], settings) for f in (a, b))
    figures = {
        name: (before.mean(metric.name), after.mean(metric.name)) for name, metric in names.items()
    }
    return figures, (before.counted, after.counted)
