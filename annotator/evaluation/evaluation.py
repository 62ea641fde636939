"""Evaluate runs against a release: which queries count, per-query metrics computed by
ir_measures (pytrec_eval, i.e. trec_eval, underneath), means per slice or split with their
bootstrap intervals, Judged@k beside every metric, and how a run's top score on
unanswerable queries compares with answerable ones. No Streamlit in here.

Which queries count is decided by the release alone, the same for every run:

- a query marked unanswerable is evaluated apart (``annotator.evaluation.unanswerable``), never in a
  metric's denominator;
- an answerable query with no chunk graded ``threshold`` or more has nothing to find: it
  is left out and listed (``no_relevant``);
- every other query in scope counts, and a run that ranks nothing for it scores 0 there
  (trec_eval would pass it over; an evaluator must not, or a run could skip hard queries).

bpref and infAP are trec_eval's, through ir_measures like every metric; infAP reads the
release's ``pool-unjudged.tsv``: a candidate the pool held but nobody graded is marked -1
(trec_eval's convention for a sampled pool), an item outside the pool is non-relevant.

A run is checked against the release's chunk map (``chunks.tsv``) before it is scored: a
document run against chunk qrels is refused instead of scoring 0, and with ``level="doc"``
a chunk run is reduced to documents by its best chunk. Ties in a run are ranked as
trec_eval ranks them (score, then id, both descending), and the library is given those
ranks, so every measure reads one order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from annotator.evaluation.run_files import LEVELS, RunFile, check_names, checked_run, trec_order
from annotator.evaluation.unanswerable import unanswerable_figures
from pooling.grades import GRADES, RELEVANT
from pooling.grouping import GROUPINGS, groups
from pooling.i18n import LocalizedError, check_name
from pooling.judged_at_k import coverage
from pooling.metrics import DEFAULT_METRICS, POOLED_UNJUDGED, Metric, parse_metrics, with_context
from pooling.qrels import Qrels
from pooling.release_folder import (
    MANIFEST,
    intact,
    read_chunk_map,
    read_manifest,
    read_pool_unjudged,
    read_qrels,
    read_queries,
    sha256_of,
)
from pooling.resampling import bootstrap_interval

SPLITS = ("dev", "test")
# Below this Judged@k a figure may well be too low: unjudged chunks count as non-relevant.
LOW_JUDGED = 0.9


# -- the release -----------------------------------------------------------------------------


@dataclass
class ReleaseData:
    """A release as an evaluator reads it: the qrels at chunk and document level, the
    queries (``query_id``, ``text``, ``slices``, ``split``, ``answerable``, ``flags``),
    the manifest, the chunk map (chunk id -> document id; None for a release written
    before ``chunks.tsv``) and the pool's candidates without a grade (query id -> chunk id
    -> why; None before ``pool-unjudged.tsv``)."""

    folder: Path
    manifest: dict
    manifest_sha256: str
    qrels: Qrels
    doc_qrels: Qrels
    queries: pd.DataFrame
    parents: dict[str, str] | None
    pool_unjudged: dict[str, dict[str, str]] | None = None

    @property
    def version(self) -> str:
        return self.manifest.get("release", self.folder.name)

    @property
    def corpus_version(self) -> str:
        return self.manifest.get("corpus_version", {}).get("name", "?")

    def qrels_at(self, level: str = "chunk") -> Qrels:
        check_name(level, LEVELS, "what_level")
        return self.qrels if level == "chunk" else self.doc_qrels

    def qrels_frame(self, level: str = "chunk") -> pd.DataFrame:
        """Columns ``query_id``, ``doc_id`` (a chunk id at chunk level), ``grade``."""
        return self.qrels_at(level).to_dataframe()

    def ir_measures_qrels(self, level: str = "chunk") -> pd.DataFrame:
        """The qrels of every query as ir_measures reads a frame (``query_id``, ``doc_id``,
        ``relevance``): what trec_eval scores, the queries with nothing relevant averaged
        in; ``counted_ir_measures_qrels`` gives the figures of ``qrels evaluate``."""
        return self.qrels_frame(level).rename(columns={"grade": "relevance"})

    def counted_queries(
        self, level: str = "chunk", threshold: int = RELEVANT, split: str | None = None
    ) -> list[str]:
        """The queries that count for scoring, sorted, as ``qrels evaluate`` counts them
        (``query_scope``): answerable, with an id graded ``threshold`` or more, in
        ``split`` (None: all)."""
        scope = query_scope(self, level, threshold, split)
        return sorted(scope.loc[scope["status"] == "counted", "query_id"])

    def counted_ir_measures_qrels(
        self, level: str = "chunk", threshold: int = RELEVANT, split: str | None = None
    ) -> pd.DataFrame:
        """``ir_measures_qrels`` of the ``counted_queries`` only. With a run that ranks
        every counted query and measures at ``rel=threshold``,
        ``ir_measures.calc_aggregate`` gives evaluate's figures; a counted query the run
        ranks nothing for scores 0 in evaluate, while ir_measures passes it over (as
        trec_eval does without ``-c``)."""
        frame = self.ir_measures_qrels(level)
        counted = frame["query_id"].isin(self.counted_queries(level, threshold, split))
        return frame[counted].reset_index(drop=True)

    def unjudged_at(self, level: str = "chunk") -> dict[str, set[str]]:
        """Per query, the ids the pool held that have no grade in the release: its
        candidates, or at document level the documents none of whose chunks is graded."""
        check_name(level, LEVELS, "what_level")
        found = {q: set(ids) for q, ids in (self.pool_unjudged or {}).items()}
        if level == "doc":
            parents = self.parents or {}
            found = {
                q: {parents[c] for c in ids if c in parents} - set(self.doc_qrels.get(q, {}))
                for q, ids in found.items()
            }
        return {q: ids for q, ids in found.items() if ids}

    def qrels_with_pool_marks(self, level: str = "chunk") -> dict[str, dict[str, int]]:
        """The qrels with every pooled id left unjudged (``unjudged_at``) graded -1:
        trec_eval's convention for a sampled pool, read by its infAP, e.g.
        ``pytrec_eval.RelevanceEvaluator(release.qrels_with_pool_marks(), {"infAP"})``."""
        grades = self.qrels_at(level).to_dict()
        for query_id, ids in self.unjudged_at(level).items():
            judged = grades.setdefault(query_id, {})
            judged.update({i: POOLED_UNJUDGED for i in ids if i not in judged})
        return grades

    def ranx_qrels(self, level: str = "chunk"):
        """The qrels as a ``ranx.Qrels`` (ranx is optional: ``pip install ranx``)."""
        try:
            import ranx
        except ImportError:
            raise LocalizedError("needs_install", what="ranx", package="ranx") from None
        return ranx.Qrels(self.qrels_at(level).to_dict(), name=self.version)


def load_release(folder: Path | str) -> ReleaseData:
    """Read the release in ``folder`` after checking it against its manifest. Raises
    ``LocalizedError`` naming the problems when a file is missing, changed or malformed."""
    folder = intact(folder)
    queries = pd.DataFrame(
        [
            {
                "query_id": str(q["_id"]),
                "text": q.get("text", ""),
                "slices": list(q.get("slices") or []),
                "split": q.get("split"),
                "answerable": bool(q.get("answerable", True)),
                "flags": list(q.get("flags") or []),
            }
            for q in read_queries(folder)
        ],
        columns=["query_id", "text", "slices", "split", "answerable", "flags"],
    )
    return ReleaseData(
        folder=folder,
        manifest=read_manifest(folder),
        manifest_sha256=sha256_of(folder / MANIFEST),
        qrels=read_qrels(folder, "chunk"),
        doc_qrels=read_qrels(folder, "doc"),
        queries=queries,
        parents=read_chunk_map(folder),
        pool_unjudged=read_pool_unjudged(folder),
    )


# -- which queries count ----------------------------------------------------------------------


def query_scope(
    release: ReleaseData, level: str = "chunk", threshold: int = RELEVANT, split: str | None = None
) -> pd.DataFrame:
    """The release's queries in ``split`` (None: all) with ``relevant`` (how many ids are
    graded ``threshold`` or more) and ``status``: ``counted``, ``unanswerable`` (evaluated
    apart) or ``no_relevant`` (answerable, but nothing to find: left out). Raises
    ``LocalizedError`` for a threshold off 1–3 (grade 0 is never relevant) or an unknown
    split."""
    if threshold not in GRADES[1:]:
        raise LocalizedError("threshold_range", value=threshold)
    frame = release.queries
    if split is not None:
        check_name(split, SPLITS, "what_split")
        frame = frame[frame["split"] == split]
    frame = frame.copy()
    relevant = release.qrels_at(level).relevant(threshold)
    frame["relevant"] = [len(relevant.get(q, ())) for q in frame["query_id"]]
    frame["status"] = np.where(
        ~frame["answerable"].astype(bool),
        "unanswerable",
        np.where(frame["relevant"] > 0, "counted", "no_relevant"),
    )
    return frame.reset_index(drop=True)


def query_groups(scope: pd.DataFrame, by: str | None) -> dict[str, set[str]]:
    """``all``, then with ``by`` each ``slice:<tag>`` or ``split:<name>``: the query ids in
    each (a query counts in every slice it has)."""
    if by is not None:
        check_name(by, GROUPINGS, "what_grouping")
    parts = {"all": scope, **(groups(scope, by) if by else {})}
    return {name: set(part["query_id"]) for name, part in parts.items()}


# -- scoring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What an evaluation was asked for; kept in its report."""

    metrics: tuple[Metric, ...]
    threshold: int = RELEVANT
    level: str = "chunk"
    split: str | None = None
    by: str | None = None
    context_k: int | None = None
    condensed: bool = False
    rounds: int = 1000
    seed: int = 0
    added_for_gate: tuple[Metric, ...] = ()  # gate metrics --metrics lacked, added

    @classmethod
    def parse(
        cls, metrics: str = DEFAULT_METRICS, context_k: int | None = None, **options
    ) -> Settings:
        """Settings from metric names (``"recall@5,ndcg@10"``), led by Recall and Hit at
        the context budget ``context_k`` when given; raises what ``parse_metrics`` raises."""
        chosen = with_context(parse_metrics(metrics), context_k)
        return cls(metrics=tuple(chosen), context_k=context_k, **options)


@dataclass
class RunInfo:
    """A run as it was scored: its source, what its ids are, and the counted queries it
    ranks nothing for (they score 0)."""

    name: str
    source: str
    sha256: str | None
    ids: str
    reduced: bool
    ranked_queries: int
    depth: int  # the longest ranking: the Judged@k cutoff of a metric without one
    without_ranking: list[str] = field(default_factory=list)
    unknown_queries: list[str] = field(default_factory=list)  # not in the release: ignored


@dataclass
class Evaluation:
    """``scope``: every query in scope (``query_scope``); ``per_query``: one row per run
    and counted or unanswerable query (``run``, ``query_id``, ``status``, ``top_score``,
    ``retrieved``, each metric, ``judged@k`` for each cutoff, and ``<metric>:condensed``
    when asked); ``summary``: per run, group and metric the mean, its interval, Recall's
    micro average, Judged@k and the condensed mean; ``unanswerable``: see
    ``unanswerable_figures``."""

    release: ReleaseData
    settings: Settings
    runs: list[RunInfo]
    scope: pd.DataFrame
    groups: dict[str, set[str]]
    per_query: pd.DataFrame
    summary: pd.DataFrame
    unanswerable: pd.DataFrame

    @property
    def baseline(self) -> str:
        return self.runs[0].name

    @property
    def counted(self) -> int:
        """How many queries the metrics average over."""
        return int((self.scope["status"] == "counted").sum())

    def mean(self, metric: str, run: str | None = None, group: str = "all") -> float:
        """The mean of ``metric`` (a name such as ``ndcg@10``) for ``run`` (default: the
        first) over ``group``'s counted queries; NaN when none counts."""
        summary = self.summary
        row = summary[
            (summary["run"] == (run or self.baseline))
            & (summary["group"] == group)
            & (summary["metric"] == metric)
        ]
        return float(row["value"].iloc[0]) if len(row) else float("nan")


def judged_cutoff(metric: Metric, depth: int) -> int:
    """The k of the Judged@k shown beside ``metric``: its own, else the run's depth."""
    return metric.k or max(depth, 1)


def _measured(
    scores: dict[str, dict[str, float]],
    qrels: dict,
    marked: dict,
    metrics: list[Metric],
    threshold: int,
) -> dict[str, dict[str, float]]:
    """Metric name -> query id -> value, from ir_measures, for the queries ``scores`` ranks;
    ``marked``: the same queries' qrels with the pooled-but-unjudged ids graded -1, for
    the metrics that read them (infAP)."""
    import ir_measures

    values: dict[str, dict[str, float]] = {m.name: {} for m in metrics}
    for judged in (qrels, marked):
        chosen = [m for m in metrics if m.reads_pool_marks == (judged is marked)]
        names = {str(m.measure(threshold)): m.name for m in chosen}
        ranked = {q: docs for q, docs in scores.items() if docs and q in judged}
        if ranked and chosen:
            measures = [m.measure(threshold) for m in chosen]
            for row in ir_measures.iter_calc(measures, judged, ranked):
                values[names[str(row.measure)]][row.query_id] = float(row.value)
    return values


def score_run(
    release: ReleaseData, source: RunFile, scope: pd.DataFrame, settings: Settings
) -> tuple[pd.DataFrame, RunInfo]:
    """Per-query rows of one run (see ``Evaluation.per_query``) and how it was read.
    Raises ``LocalizedError`` when the run ranks none of the release's queries (another
    query set) or its ids do not fit the release (``checked_run``)."""
    known = set(release.queries["query_id"])
    strangers = sorted(set(source.run.scores) - known)
    if source.run.scores and len(strangers) == len(source.run.scores):
        raise LocalizedError(
            "run_queries_unknown", run=source.run.name, count=len(strangers), example=strangers[0]
        )
    checked, ids = checked_run(source.run, release.parents, settings.level, release.corpus_version)
    ordered = trec_order(checked)
    counted = list(scope.loc[scope["status"] == "counted", "query_id"])
    qrels = release.qrels_at(settings.level)
    judged_qrels = {q: qrels[q] for q in counted}
    marks = release.qrels_with_pool_marks(settings.level)
    marked_qrels = {q: marks[q] for q in counted}
    metrics = list(settings.metrics)
    depth = max((len(r) for r in checked.scores.values()), default=1)
    ks = sorted({judged_cutoff(m, depth) for m in metrics})
    values = _measured(ordered.scores, judged_qrels, marked_qrels, metrics, settings.threshold)
    judged = coverage(judged_qrels, ordered, ks).per_query if counted else None
    rows = []
    for query in scope[scope["status"] != "no_relevant"].itertuples():
        ranking = checked.scores.get(query.query_id, {})
        row = {
            "run": source.run.name,
            "query_id": query.query_id,
            "status": query.status,
            "top_score": max(ranking.values()) if ranking else np.nan,
            "retrieved": len(ranking),
        }
        if query.status == "counted":
            row.update({m.name: values[m.name].get(query.query_id, 0.0) for m in metrics})
        rows.append(row)
    columns = ["run", "query_id", "status", "top_score", "retrieved", *(m.name for m in metrics)]
    frame = pd.DataFrame(rows, columns=columns)
    if judged is not None:
        wide = judged.pivot(index="query_id", columns="k", values="judged_at_k")
        frame = frame.join(wide.rename(columns=lambda k: f"judged@{k}"), on="query_id")
    else:
        frame = frame.assign(**{f"judged@{k}": np.nan for k in ks})
    if settings.condensed:
        kept = {
            q: {d: s for d, s in ordered.scores.get(q, {}).items() if d in judged_qrels[q]}
            for q in counted
        }
        condensed = _measured(kept, judged_qrels, marked_qrels, metrics, settings.threshold)
        for m in metrics:
            frame[f"{m.name}:condensed"] = [
                condensed[m.name].get(q, 0.0) if s == "counted" else np.nan
                for q, s in zip(frame["query_id"], frame["status"], strict=True)
            ]
    info = RunInfo(
        name=source.run.name,
        source=source.source,
        sha256=source.sha256,
        ids=ids,
        reduced=checked is not source.run,
        ranked_queries=len(checked.scores),
        depth=depth,
        without_ranking=sorted(q for q in counted if not checked.scores.get(q)),
        unknown_queries=strangers,
    )
    return frame, info


def summarize(
    per_query: pd.DataFrame,
    query_sets: dict[str, set[str]],
    scope: pd.DataFrame,
    settings: Settings,
    depths: dict[str, int],
) -> pd.DataFrame:
    """Per run, group and metric: ``queries``, ``value`` (the mean over the group's counted
    queries), ``low``/``high`` (its bootstrap interval), ``micro`` (Recall only: relevant
    found over relevant, summed over queries), ``judged_k`` and ``judged`` (mean
    Judged@k), ``beyond_context`` (whether the metric reads deeper than the context
    budget: ``Metric.beyond``), ``condensed`` (the mean on condensed lists, when asked).
    ``depths``: each run's longest ranking (``RunInfo.depth``)."""
    relevant = dict(zip(scope["query_id"], scope["relevant"], strict=True))
    counted = per_query[per_query["status"] == "counted"]
    rows = []
    for run, depth in depths.items():
        frame = counted[counted["run"] == run]
        for group, members in query_sets.items():
            part = frame[frame["query_id"].isin(members)]
            for metric in settings.metrics:
                values = part[metric.name].to_numpy(dtype=float)
                low, high = bootstrap_interval(values, settings.rounds, settings.seed)
                k = judged_cutoff(metric, depth)
                row = {
                    "run": run,
                    "group": group,
                    "metric": metric.name,
                    "queries": len(values),
                    "value": float(values.mean()) if len(values) else np.nan,
                    "low": low,
                    "high": high,
                    "micro": np.nan,
                    "judged_k": k,
                    "judged": float(part[f"judged@{k}"].mean()) if len(values) else np.nan,
                    "beyond_context": metric.beyond(settings.context_k),
                }
                if metric.family == "recall" and len(values):
                    weights = part["query_id"].map(relevant).to_numpy(dtype=float)
                    row["micro"] = float((values * weights).sum() / weights.sum())
                if settings.condensed:
                    row["condensed"] = float(part[f"{metric.name}:condensed"].mean())
                rows.append(row)
    return pd.DataFrame(rows)


def evaluate(release: ReleaseData, runs: list[RunFile], settings: Settings) -> Evaluation:
    """Score every run in ``runs`` (the first is the baseline of any comparison) on the
    release's queries in scope. Raises ``LocalizedError`` for a run whose ids do not fit
    the release (``checked_run``), two runs of one name (``check_names``) and when no run
    is given."""
    if not runs:
        raise LocalizedError("evaluate_no_runs")
    check_name(settings.level, LEVELS, "what_level")
    check_names(runs)
    scope = query_scope(release, settings.level, settings.threshold, settings.split)
    query_sets = query_groups(scope, settings.by)
    frames, infos = [], []
    for source in runs:
        frame, info = score_run(release, source, scope, settings)
        frames.append(frame)
        infos.append(info)
    per_query = pd.concat(frames, ignore_index=True)
    return Evaluation(
        release=release,
        settings=settings,
        runs=infos,
        scope=scope,
        groups=query_sets,
        per_query=per_query,
        summary=summarize(
            per_query, query_sets, scope, settings, {info.name: info.depth for info in infos}
        ),
        unanswerable=unanswerable_figures(per_query, query_sets),
    )


def low_judged(evaluation: Evaluation) -> pd.DataFrame:
    """The summary rows whose Judged@k is below ``LOW_JUDGED``, one per run, group and k."""
    summary = evaluation.summary
    if summary.empty:
        return summary
    low = summary[summary["judged"] < LOW_JUDGED]
    return low.drop_duplicates(subset=["run", "group", "judged_k"])[
        ["run", "group", "judged_k", "judged"]
    ]
