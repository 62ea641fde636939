"""How far annotators agree. Plain functions over a data frame of judgments; no Streamlit,
no database (``annotator.quality.pool_quality`` reads a pool's frame).

The frame (``pooling.resolution.frame_of``) has one row per (annotator, query, chunk) with
the annotator's current grade: columns ``annotator``, ``query_id``, ``chunk_id``, ``grade``
(0–3, or missing when the judgment is "unsure": unsure judgments are left out of every
figure), and for breakdowns ``slices`` (a list of tags) and ``split``.

A figure that cannot be computed is reported as undefined with the reason (fewer than two
shared items, only one grade in use), never as 0, NaN or an error.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from annotator.quality.alpha import alpha_parts, alpha_why, alphas
from pooling.grades import GRADES
from pooling.i18n import check_name, t
from pooling.resampling import resampled, resampled_together

KAPPAS = ("unweighted", "linear", "quadratic", "binary_ge1", "binary_ge2")
PAGE_ROUNDS = 200  # bootstrap resamplings on the lead's Agreement page (the CLI: 500)


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


def without_gold(frame: pd.DataFrame, gold: set[tuple[str, str]]) -> pd.DataFrame:
    """The judgments ``frame`` without those of the gold items ``gold`` ((query id, chunk
    id) keys): checks of annotators against a settled grade, not grades to agree on or to
    adjudicate, so they take no part in agreement (a release's alpha included) nor in the
    adjudication queue."""
    if not gold or frame.empty:
        return frame
    keys = pd.Series(
        list(zip(frame["query_id"], frame["chunk_id"], strict=True)), index=frame.index
    )
    return frame[~keys.isin(gold)]


def _undefined(reason: str) -> Figure:
    """A figure that cannot be computed, for the reason with message key ``reason``."""
    return Figure(None, t(reason, "en"))


def _weights(kind: str) -> np.ndarray:
    """The disagreement weights of a kappa over the scale (binary kinds collapse first)."""
    size = 2 if kind.startswith("binary_ge") else len(GRADES)
    i, j = np.indices((size, size))
    if kind == "linear":
        return np.abs(i - j).astype(float)
    if kind == "quadratic":
        return ((i - j) ** 2).astype(float)
    return (i != j).astype(float)


def _collapsed(matrices: np.ndarray, kind: str) -> np.ndarray:
    """0–3 confusion matrices (the last two axes) as the kind sees them: binary kinds as
    relevant or not."""
    if not kind.startswith("binary_ge"):
        return matrices
    cut = int(kind[-1])
    low, high = slice(None, cut), slice(cut, None)
    blocks = [[matrices[..., r, c].sum(axis=(-2, -1)) for c in (low, high)] for r in (low, high)]
    return np.moveaxis(np.array(blocks), (0, 1), (-2, -1))


def _kappas(matrices: np.ndarray, kind: str) -> np.ndarray:
    """Cohen's kappa of each confusion matrix in ``matrices`` (shape ``(..., 4, 4)``), NaN
    where undefined: the formula of scikit-learn's ``cohen_kappa_score``."""
    matrix = _collapsed(np.asarray(matrices, dtype=float), kind)
    total = matrix.sum(axis=(-2, -1))
    columns, rows = matrix.sum(axis=-2), matrix.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = columns[..., :, None] * rows[..., None, :] / total[..., None, None]
        weights = _weights(kind)
        value = 1 - (weights * matrix).sum(axis=(-2, -1)) / (weights * expected).sum(axis=(-2, -1))
    used = np.count_nonzero(columns + rows, axis=-1)
    return np.where((total >= 2) & (used >= 2), value, np.nan)


def kappa_of(confusion: np.ndarray, kind: str = "unweighted") -> Figure:
    """Cohen's kappa from a 0–3 confusion matrix (rows one annotator's grades, columns the
    other's), as scikit-learn's ``cohen_kappa_score`` defines it: ``unweighted``,
    ``linear`` or ``quadratic`` weighted, or binary at ``binary_ge1`` / ``binary_ge2``
    (relevant means grade >= 1 / >= 2)."""
    check_name(kind, KAPPAS, "what_kappa")
    matrix = _collapsed(np.asarray(confusion, dtype=float), kind)
    if matrix.sum() < 2:
        return _undefined("reason_few_shared")
    if np.count_nonzero(matrix.sum(axis=0) + matrix.sum(axis=1)) < 2:
        return _undefined("reason_one_grade")
    return Figure(float(_kappas(np.asarray(confusion, dtype=float), kind)))


def kappa(a: list[int], b: list[int], kind: str = "unweighted") -> Figure:
    """Cohen's kappa between two annotators' grades on the same items (``kappa_of``)."""
    return kappa_of(np.asarray(confusion(a, b)), kind)


def confusion(a: list[int], b: list[int]) -> list[list[int]]:
    """How often each pair of grades was given: rows ``a``'s grade, columns ``b``'s."""
    # Counted with numpy, the same count as scikit-learn's confusion_matrix without
    # importing scikit-learn at every release and page start. Grades are their own indexes
    # (0-3).
    matrix = np.zeros((len(GRADES), len(GRADES)), dtype=int)
    np.add.at(matrix, (np.asarray(a, dtype=int), np.asarray(b, dtype=int)), 1)
    return matrix.tolist()


class Additive:
    """A statistic over a frame of judgments that adds up over queries: ``parts(frame)``
    gives each query's share (query ids and an array, one row each); ``values(totals)`` the
    statistic of each row of summed shares (NaN where undefined), all at once; ``why(total)``
    the message key of why one total has no figure, or None. Calling it computes the
    figure; ``bootstrap`` resamples queries by re-weighting the shares, a thousand rounds in
    one array, instead of rebuilding frames."""

    def __init__(self, parts, values, why, doc: str = "") -> None:
        self.parts, self.values, self.why, self.__doc__ = parts, values, why, doc

    def finish(self, total: np.ndarray) -> Figure:
        """The figure of one sum of shares."""
        # The value first: ``why`` (a whole kappa again for kappas) only when there is none.
        value = float(self.values(total[None, :])[0])
        reason = self.why(total) if np.isnan(value) else None
        return _undefined(reason) if reason else Figure(value)

    def __call__(self, frame: pd.DataFrame) -> Figure:
        _, shares = self.parts(frame)
        return self.finish(shares.sum(axis=0))


def _per_query(frame: pd.DataFrame, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` (one row per line of ``frame``) summed per query."""
    queries, index = np.unique(frame["query_id"].to_numpy(dtype=str), return_inverse=True)
    sums = np.zeros((len(queries), values.shape[1]))
    np.add.at(sums, index, values)
    return queries, sums


krippendorff_alpha = Additive(
    alpha_parts,
    alphas,
    alpha_why,
    """Krippendorff's alpha, ordinal, over all annotators; items judged by one annotator
    only (missing judgments) take no part.""",
)


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


def _pair_parts(both: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each query's confusion matrix of two annotators' shared items, flattened."""
    size = len(GRADES)
    cells = both["grade_a"].astype(int).to_numpy() * size + both["grade_b"].astype(int).to_numpy()
    values = np.zeros((len(both), size * size))
    values[np.arange(len(both)), cells] = 1
    return _per_query(both, values)


def _percents(totals: np.ndarray) -> np.ndarray:
    matrices = totals.reshape(-1, len(GRADES), len(GRADES))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trace(matrices, axis1=1, axis2=2) / matrices.sum(axis=(1, 2))


def _kappa_why(kind: str):
    def why(total: np.ndarray) -> str | None:
        figure = kappa_of(total.reshape(len(GRADES), len(GRADES)), kind)
        return None if figure.value is not None else _reason_key(figure)

    return why


def _reason_key(figure: Figure) -> str:
    return next(k for k in REASONS if t(k, "en") == figure.undefined)


def pair_statistic(kind: str) -> Additive:
    """``percent`` agreement or a kappa, on a frame of two sets of grades of the same items
    (columns ``query_id``, ``grade_a``, ``grade_b``: two annotators' shared items, or an
    annotator against gold)."""
    if kind == "percent":
        return Additive(
            _pair_parts, _percents, lambda total: None if total.sum() else "reason_no_shared"
        )
    size = len(GRADES)
    return Additive(
        _pair_parts, lambda totals: _kappas(totals.reshape(-1, size, size), kind), _kappa_why(kind)
    )


_PAIR_STATISTICS = {k: pair_statistic(k) for k in ("percent", *KAPPAS)}


def pair_agreement(frame: pd.DataFrame, first: str, second: str, rounds: int = 0) -> PairAgreement:
    """Two annotators on the items both graded; with ``rounds``, each figure carries its
    bootstrap interval over queries."""
    return pairwise(frame, rounds, [(first, second)])[0]


def pairs_of_shares(
    pairs: list[tuple[str, str]], places: list[np.ndarray], shares: list[np.ndarray], rounds: int
) -> list[PairAgreement]:
    """Each pair's ``PairAgreement`` from its per-query confusion counts (``shares[i]``: a
    row of 16 per query where pair ``i`` shares a graded item, at query indexes
    ``places[i]``, one order for all). With ``rounds``, every figure carries its interval
    from one draw of the queries for all pairs (``resampling.resampled_together``): a
    sparse product for 66 pairs, not 66 resamplings."""
    cells = len(GRADES) ** 2
    totals = [share.sum(axis=0) for share in shares]
    # All pairs in one call per statistic; ``finish`` says why where there is no figure.
    stacked = np.array(totals, dtype=float).reshape(len(totals), cells)
    values = {k: s.values(stacked) for k, s in _PAIR_STATISTICS.items()}
    points = [
        {
            k: s.finish(total) if np.isnan(values[k][i]) else Figure(float(values[k][i]))
            for k, s in _PAIR_STATISTICS.items()
        }
        for i, total in enumerate(totals)
    ]
    figures = [dict(point) for point in points]
    if rounds and any(p.value is not None for point in points for p in point.values()):
        drawn = resampled_together(places, shares, rounds).reshape(-1, cells)  # rounds x pairs
        kinds = list(_PAIR_STATISTICS)
        resampled = np.array([_PAIR_STATISTICS[k].values(drawn) for k in kinds])
        resampled = resampled.reshape(len(kinds), rounds, len(pairs))
        bounds = np.percentile(resampled, [2.5, 97.5], axis=1)  # NaN where a round is
        for i, point in enumerate(points):
            for j, k in enumerate(kinds):
                if point[k].value is None:
                    continue
                low, high = bounds[:, j, i]
                row = resampled[j, :, i]
                figures[i][k] = (
                    Figure(point[k].value, None, float(low), float(high))
                    if not np.isnan([low, high]).any()
                    else _with_interval(point[k], row[~np.isnan(row)])
                )
    return [
        PairAgreement(
            annotators=pair,
            shared=int(total.sum()),
            percent=figure.pop("percent"),
            kappas=figure,
            confusion=total.reshape(len(GRADES), len(GRADES)).astype(int).tolist(),
        )
        for pair, total, figure in zip(pairs, totals, figures, strict=True)
    ]


def confusion_frame(pair: PairAgreement) -> pd.DataFrame:
    """A pair's confusion matrix as rows: ``first`` (the first annotator's grade),
    ``second`` (the second's) and ``count``, for every pair of grades."""
    cells = [(a, b, pair.confusion[a][b]) for a in GRADES for b in GRADES]
    return pd.DataFrame(cells, columns=["first", "second", "count"])


def pairwise(
    frame: pd.DataFrame, rounds: int = 0, pairs: list[tuple[str, str]] | None = None
) -> list[PairAgreement]:
    """Every pair of annotators in name order, or ``pairs`` (``pairs_of_shares``)."""
    if pairs is None:
        pairs = list(itertools.combinations(sorted(frame["annotator"].unique()), 2))
    parts = [_pair_parts(_shared(frame, a, b)) for a, b in pairs]
    ids = np.unique(np.concatenate([np.zeros(0, str), *(queries for queries, _ in parts)]))
    places = [np.searchsorted(ids, queries) for queries, _ in parts]
    return pairs_of_shares(pairs, places, [shares for _, shares in parts], rounds)


def bootstrap(
    frame: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], Figure],
    rounds: int = 500,
    seed: int = 0,
) -> Figure:
    """``statistic`` on ``frame`` with a 95% percentile interval from resampling queries
    (with replacement; a query drawn twice counts twice). An ``Additive`` statistic is
    resampled by re-weighting its per-query shares."""
    if isinstance(statistic, Additive):
        return bootstrap_shares(statistic, statistic.parts(frame)[1], rounds, seed)
    point = statistic(frame)
    if point.value is None or rounds == 0:
        return point
    rng = np.random.default_rng(seed)
    # A statistic that does not add up over queries: frames rebuilt per round.
    queries = frame["query_id"].unique()
    groups = {q: g for q, g in frame.groupby("query_id")}
    samples = (
        pd.concat(
            [groups[q].assign(query_id=f"{q}#{i}") for i, q in enumerate(drawn)],
            ignore_index=True,
        )
        for drawn in (rng.choice(queries, size=len(queries)) for _ in range(rounds))
    )
    values = [v for v in (statistic(sample).value for sample in samples) if v is not None]
    return _with_interval(point, values)


def _with_interval(point: Figure, values) -> Figure:
    """``point`` with the 95% percentile interval of ``values`` (itself when none)."""
    if not len(values):
        return point
    low, high = np.percentile(values, [2.5, 97.5])
    return Figure(point.value, None, float(low), float(high))


def bootstrap_shares(
    statistic: Additive,
    shares: np.ndarray,
    rounds: int = 500,
    seed: int = 0,
) -> Figure:
    """An ``Additive`` statistic from its per-query ``shares`` (a small count table, not
    judgments) with its 95% interval from ``rounds`` resamplings of the queries."""
    point = statistic.finish(shares.sum(axis=0))
    if point.value is None or rounds == 0:
        return point
    drawn = resampled(shares, rounds, seed)
    values = statistic.values(drawn)
    return _with_interval(point, values[~np.isnan(values)])


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
        figures: list[tuple[str | None, Figure]]
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


def pairs_frame(result: AgreementReport, lang: str | None = None) -> pd.DataFrame:
    """Each pair's figures in ``result``, a row per pair and figure (percent agreement,
    then each kappa): ``pair`` (``"a × b"``), ``shared`` items, ``measure`` (its name in
    ``MEASURES``) and ``value`` (the figure and its interval, or why there is none, in
    ``lang``). A row per figure, not a column: seven columns of "0.800 [0.692, 0.924]"
    did not fit a laptop's page."""
    rows = [
        (" × ".join(p.annotators), p.shared, measure, figure.text(lang))
        for p in result.pairs
        for measure, figure in [("percent", p.percent), *p.kappas.items()]
    ]
    return pd.DataFrame(rows, columns=["pair", "shared", "measure", "value"])


def to_json(reports: list[AgreementReport]) -> list[dict]:
    """The reports as plain data: the stable layout documented in the README."""
    return [asdict(r) for r in reports]
