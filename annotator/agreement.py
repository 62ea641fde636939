"""How far annotators agree. Plain functions over a data frame of judgments; no Streamlit.

The frame has one row per (annotator, query, chunk) with the annotator's current grade:
columns ``annotator``, ``query_id``, ``chunk_id``, ``grade`` (0–3, or missing when the
judgment is "unsure": unsure judgments are left out of every figure), and for breakdowns
``slices`` (a list of tags) and ``split``.

A figure that cannot be computed is reported as undefined with the reason (fewer than two
shared items, only one grade in use), never as 0, NaN or an error.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from pooling.grades import GRADES
from pooling.i18n import check_name, t

KAPPAS = ("unweighted", "linear", "quadratic", "binary_ge1", "binary_ge2")
PAGE_ROUNDS = 200  # bootstrap resamplings on the lead's Agreement page (the CLI: 500)
GROUPINGS = ("slice", "split")


# Why a figure can be undefined: message keys. ``Figure.undefined`` holds the English text
# (the JSON layout is stable whatever the language); ``Figure.text`` translates it.
REASONS = ("reason_few_shared", "reason_one_grade", "reason_no_pairs", "reason_no_shared")


@dataclass(frozen=True)
class Figure:
    """A statistic, or why it is undefined; with a 95% bootstrap interval over queries when
    asked for."""

    value: float | None
    undefined: str | None = None
    low: float | None = None
    high: float | None = None

    def text(self, lang: str | None = None) -> str:
        """``0.712 [0.650, 0.780]``, or ``undefined: why`` in ``lang``."""
        if self.value is None:
            reason = next((k for k in REASONS if t(k, "en") == self.undefined), None)
            why = t(reason, lang) if reason else self.undefined
            return t("figure_undefined", lang, reason=why)
        if self.low is None:
            return f"{self.value:.3f}"
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def _undefined(reason: str) -> Figure:
    """A figure that cannot be computed, for the reason with message key ``reason``."""
    return Figure(None, t(reason, "en"))


def kappa(a: list[int], b: list[int], kind: str = "unweighted") -> Figure:
    """Cohen's kappa between two annotators' grades on the same items: ``unweighted``,
    ``linear`` or ``quadratic`` weighted over 0–3, or binary at ``binary_ge1`` /
    ``binary_ge2`` (relevant means grade >= 1 / >= 2). scikit-learn computes it."""
    if len(a) < 2:
        return _undefined("reason_few_shared")
    x, y = np.asarray(a), np.asarray(b)
    check_name(kind, KAPPAS, "what_kappa")
    labels: list[int] = list(GRADES)
    weights = None
    if kind.startswith("binary_ge"):
        threshold = int(kind[-1])
        x, y, labels = (x >= threshold).astype(int), (y >= threshold).astype(int), [0, 1]
    elif kind in ("linear", "quadratic"):
        weights = kind
    if len(set(x) | set(y)) < 2:
        return _undefined("reason_one_grade")
    return Figure(float(cohen_kappa_score(x, y, labels=labels, weights=weights)))


def confusion(a: list[int], b: list[int]) -> list[list[int]]:
    """How often each pair of grades was given: rows ``a``'s grade, columns ``b``'s."""
    if not a:
        return [[0] * len(GRADES) for _ in GRADES]
    return confusion_matrix(a, b, labels=list(GRADES)).tolist()


def krippendorff_alpha(frame: pd.DataFrame) -> Figure:
    """Krippendorff's alpha, ordinal, over all annotators; items judged by one annotator
    only (missing judgments) take no part."""
    units = frame.dropna(subset=["grade"]).groupby(["query_id", "chunk_id"])["grade"]
    size = len(GRADES)
    coincidence = np.zeros((size, size))
    for _, grades in units:
        values = grades.astype(int).to_numpy()
        if len(values) < 2:
            continue
        counts = np.bincount(values, minlength=size).astype(float)
        pairs = np.outer(counts, counts) - np.diag(counts)
        coincidence += pairs / (len(values) - 1)
    totals = coincidence.sum(axis=1)
    n = totals.sum()
    if n == 0:
        return _undefined("reason_no_pairs")
    if np.count_nonzero(totals) < 2:
        return _undefined("reason_one_grade")
    cumulative = np.cumsum(totals)
    distance = np.zeros((size, size))
    for c, k in itertools.product(range(size), repeat=2):
        low, high = min(c, k), max(c, k)
        between = cumulative[high] - (cumulative[low - 1] if low else 0)
        distance[c, k] = (between - (totals[c] + totals[k]) / 2) ** 2
    observed = (coincidence * distance).sum() / n
    expected = (np.outer(totals, totals) * distance).sum() / (n * (n - 1))
    return Figure(float(1 - observed / expected))


@dataclass
class PairAgreement:
    """Two annotators on the items both graded."""

    annotators: tuple[str, str]
    shared: int
    percent: Figure
    kappas: dict[str, Figure]
    confusion: list[list[int]]  # rows: first annotator's grade 0–3, columns: second's


def _shared(frame: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    graded = frame.dropna(subset=["grade"])
    left = graded[graded["annotator"] == first][["query_id", "chunk_id", "grade"]]
    right = graded[graded["annotator"] == second][["query_id", "chunk_id", "grade"]]
    return left.merge(right, on=["query_id", "chunk_id"], suffixes=("_a", "_b"))


def _pair_statistic(kind: str) -> Callable[[pd.DataFrame], Figure]:
    """``percent`` agreement or a kappa, on a frame of two annotators' shared items."""

    def statistic(both: pd.DataFrame) -> Figure:
        a, b = both["grade_a"].astype(int).tolist(), both["grade_b"].astype(int).tolist()
        if kind != "percent":
            return kappa(a, b, kind)
        return Figure(float(np.mean(np.equal(a, b)))) if a else _undefined("reason_no_shared")

    return statistic


def pair_agreement(frame: pd.DataFrame, first: str, second: str, rounds: int = 0) -> PairAgreement:
    """Two annotators on the items both graded; with ``rounds``, each figure carries its
    bootstrap interval over queries."""
    both = _shared(frame, first, second)
    a, b = both["grade_a"].astype(int).tolist(), both["grade_b"].astype(int).tolist()
    figures = {k: bootstrap(both, _pair_statistic(k), rounds) for k in ("percent", *KAPPAS)}
    return PairAgreement(
        annotators=(first, second),
        shared=len(a),
        percent=figures.pop("percent"),
        kappas=figures,
        confusion=confusion(a, b),
    )


def confusion_frame(pair: PairAgreement) -> pd.DataFrame:
    """A pair's confusion matrix as rows: ``first`` (the first annotator's grade),
    ``second`` (the second's) and ``count``, for every pair of grades."""
    cells = [(a, b, pair.confusion[a][b]) for a in GRADES for b in GRADES]
    return pd.DataFrame(cells, columns=["first", "second", "count"])


def pairwise(frame: pd.DataFrame, rounds: int = 0) -> list[PairAgreement]:
    """Every pair of annotators, in name order."""
    names = sorted(frame["annotator"].unique())
    return [pair_agreement(frame, a, b, rounds) for a, b in itertools.combinations(names, 2)]


def bootstrap(
    frame: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], Figure],
    rounds: int = 500,
    seed: int = 0,
) -> Figure:
    """``statistic`` on ``frame`` with a 95% percentile interval from resampling queries
    (with replacement; a query drawn twice counts twice)."""
    point = statistic(frame)
    if point.value is None or rounds == 0:
        return point
    queries = frame["query_id"].unique()
    groups = {q: g for q, g in frame.groupby("query_id")}
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(rounds):
        drawn = rng.choice(queries, size=len(queries), replace=True)
        sample = pd.concat(
            [groups[q].assign(query_id=f"{q}#{i}") for i, q in enumerate(drawn)], ignore_index=True
        )
        value = statistic(sample).value
        if value is not None:
            values.append(value)
    if not values:
        return point
    low, high = np.percentile(values, [2.5, 97.5])
    return Figure(point.value, None, float(low), float(high))


@dataclass
class AgreementReport:
    """Agreement for one group of judgments (all, a slice, or a split)."""

    group: str
    annotators: list[str]
    items: int
    alpha: Figure
    pairs: list[PairAgreement] = field(default_factory=list)


def report(frame: pd.DataFrame, group: str = "all", rounds: int = 500) -> AgreementReport:
    """Pairwise agreement and kappas, and Krippendorff's alpha, each with its bootstrap
    interval over queries (``rounds`` resamplings; 0 for none), for ``frame``."""
    return AgreementReport(
        group=group,
        annotators=sorted(frame["annotator"].unique()),
        items=int(frame[["query_id", "chunk_id"]].drop_duplicates().shape[0]),
        alpha=bootstrap(frame, krippendorff_alpha, rounds=rounds),
        pairs=pairwise(frame, rounds),
    )


MEASURES = ("alpha", "percent", *KAPPAS)


def figures_frame(
    reports: list[AgreementReport], measure: str, lang: str | None = None
) -> pd.DataFrame:
    """One figure of each report, as a frame to chart: one row per group for ``alpha``,
    per group and pair of annotators for ``percent`` or a kappa. Columns ``group``,
    ``pair`` (``"a × b"``; missing for alpha), ``value``, ``low`` and ``high`` (the
    bootstrap interval where one was computed) and ``undefined`` (why there is no value,
    in ``lang``). Raises ``LocalizedError`` for an unknown ``measure``."""
    check_name(measure, MEASURES, "what_measure")
    rows = []
    for result in reports:
        if measure == "alpha":
            figures = [(None, result.alpha)]
        else:
            figures = [
                (" × ".join(p.annotators), p.percent if measure == "percent" else p.kappas[measure])
                for p in result.pairs
            ]
        for pair, figure in figures:
            why = figure.text(lang) if figure.value is None else None
            rows.append((result.group, pair, figure.value, figure.low, figure.high, why))
    columns = ["group", "pair", "value", "low", "high", "undefined"]
    return pd.DataFrame(rows, columns=columns).astype(
        {"value": "Float64", "low": "Float64", "high": "Float64"}
    )


def groups(frame: pd.DataFrame, by: str | None) -> dict[str, pd.DataFrame]:
    """The frame whole, or split by ``slice`` (an item counts in each of its query's
    slices) or by ``split``."""
    if by is None:
        return {"all": frame}
    check_name(by, GROUPINGS, "what_grouping")
    if by == "split":
        return {f"split:{name}": part for name, part in frame.groupby("split")}
    exploded = frame.explode("slices")
    return {
        f"slice:{name}": part.drop(columns="slices")
        for name, part in exploded.dropna(subset=["slices"]).groupby("slices")
    }


def to_json(reports: list[AgreementReport]) -> list[dict]:
    """The reports as plain data: the stable layout documented in the README."""
    return [asdict(r) for r in reports]


def frame_of(rows: list[tuple]) -> pd.DataFrame:
    """The frame described above from ``storage.history.candidate_judgments`` rows (an
    unsure judgment has no grade)."""
    from storage.history import JUDGMENT_COLUMNS

    frame = pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
    frame["grade"] = frame["grade"].astype("Int64")
    return frame


def judgments_frame(engine, pool_name: str) -> pd.DataFrame:
    """The current human judgments on a pool's candidates, as the frame described above."""
    from storage.db import session_scope
    from storage.history import candidate_judgments
    from storage.pool_records import get_pool

    with session_scope(engine) as session:
        return frame_of(candidate_judgments(get_pool(pool_name, session=session), session=session))


@dataclass(frozen=True)
class PoolAgreement:
    """What the lead's Agreement page shows of a pool: a report per group, and each
    annotator against the final grades (``annotator.adjudication.versus_final``)."""

    reports: list[AgreementReport]
    versus_final: pd.DataFrame


def pool_agreement(
    engine, pool_name: str, policy: str, by: str | None = None, rounds: int = PAGE_ROUNDS
) -> PoolAgreement:
    """Agreement on pool ``pool_name``, whole or ``by`` slice or split (``groups``), final
    grades resolved under ``policy``. Raises ``NotFound`` for an unknown pool and
    ``LocalizedError`` for an unknown policy or grouping."""
    from annotator.adjudication import pool_table, versus_final

    table, decisions, frame = pool_table(engine, pool_name, policy)
    reports = [report(part, name, rounds) for name, part in groups(frame, by).items()]
    return PoolAgreement(reports, versus_final(frame, table, decisions))
