"""A metric's mean over a group of queries, estimated from a model judge's grades on every
query and people's grades on a random sample of the queries: prediction-powered inference
with the power-tuned weight (PPI++: Angelopoulos, Duchi & Zrnic 2023), stratified by slice,
or by inverse probability weights when queries were sampled unequally (Zrnic & Candès 2024,
"Active statistical inference"). Pure numpy/scipy; no database.

Inputs are per-query values of one metric for one run, over the N queries of a group:
``model`` (the metric under the model's grades, every query), ``human`` (under people's
grades, read only where ``sampled``) and ``sampled`` (the query is in the human sample). A
paired difference between two runs is the same estimate over per-query differences.

Uniform sample of n of the N queries (simple random sampling, fixed n)::

    estimate  = λ·mean_N(model) + mean_n(human − λ·model)
    variance  = s²(human)/N + s²(human − λ·model)·(1/n − 1/N)
    λ         = cov_n(human, model) / var_n(model), clipped to [0, 1]

The estimate is the model's figure over every query corrected by the human-model difference
on the sample; λ = 0 is the human-only mean on the sample, λ = 1 trusts the model's
differences fully. The variance is the law of total variance over the two sources of
chance: which queries were sampled (the finite-population variance of the corrected mean,
(1/n − 1/N)·s², exact for a fixed λ) and the group's queries themselves as a sample of the
queries a system will meet (s²(human)/N: what the ordinary evaluation's bootstrap over
queries reports, and all that is left when every query is sampled). ``population=False``
drops that term, for the mean over exactly these N queries (what a benchmark on one fixed
collection can check; the default interval is wider than that by the s²/N term).

PPI++ writes the unlabelled part as λ²·var(model)/N and tunes λ = cov/((1 + n/N)·var) for
an unlabelled set drawn apart from the labelled one; here the sampled queries are among the
N, the cross term 2λ·cov(human − λ·model, model)/N between the two parts does not vanish,
and with it the variance above is what remains, minimised by the plain slope cov/var
(algebraically this is PPI++ with the N − n unsampled queries as its unlabelled set). λ is
estimated from the same n queries as the correction, so the residual variance has n − 2
degrees of freedom and the interval uses Student's t with n − 2 (n − 1 for a given λ).

Stratified (``strata``): the estimate above within each stratum, weighted by the stratum's
share of the N queries; variances add with squared weights, degrees of freedom by
Welch–Satterthwaite. Unequal probabilities (``probabilities``: each query was included
independently with its recorded probability π, Poisson sampling)::

    z_i      = λ·model_i + (human_i − λ·model_i)·ξ_i/π_i      (ξ_i: sampled)
    estimate = mean_N(z),  variance = var_N(z)/N
    λ        = cov_N(A, C) / var_N(C), clipped to [0, 1],  A = human·ξ/π,  C = model·(ξ/π − 1)

(Horvitz–Thompson form; z = A − λ·C, so λ minimises var(z)). Under every design λ = 0 gives
the human-only figure with its interval, the comparison an estimate is read against.

Fewer than ``MIN_HUMAN_QUERIES`` sampled queries in a group (or fewer than
``MIN_PER_STRATUM`` in a stratum): no estimate and no interval, and the reason says why. The
same when people's values on the sample are all equal (every sampled query at Recall 1, say):
a normal interval would have width 0 however rare the exceptions are among the unsampled
queries, so none is given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from pooling.i18n import LocalizedError

MIN_HUMAN_QUERIES = 10  # below this in a group: no interval (a CLT interval is not credible)
MIN_PER_STRATUM = 3  # a stratum's own λ and residual variance need n - 2 >= 1
CONFIDENCE = 0.95
TOO_FEW = "too_few_human_queries"
NO_VARIATION = "human_values_constant"
TOO_FEW_IN_STRATUM = "too_few_in_stratum"


@dataclass(frozen=True)
class Parts:
    """Estimates as arrays (one per leading index of the inputs): ``value``, ``variance``,
    ``dof`` (degrees of freedom of the t interval), ``weight`` (λ; NaN where strata each
    have their own), ``human_queries`` (n) and ``varies`` (people's values on the sample
    are not all equal: where they are, a normal interval has width 0 and means nothing)."""

    value: np.ndarray
    variance: np.ndarray
    dof: np.ndarray
    weight: np.ndarray
    human_queries: np.ndarray
    varies: np.ndarray

    def interval(self, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: value ± t quantile × standard error; NaN where undefined."""
        with np.errstate(invalid="ignore"):
            dof = np.where(self.dof >= 1, self.dof, np.nan)
            from scipy import stats  # when needed: importing it takes a second

            half = stats.t.ppf(0.5 + confidence / 2, dof) * np.sqrt(self.variance)
        return self.value - half, self.value + half


@dataclass(frozen=True)
class Estimate:
    """One estimate: ``value`` with its ``low``/``high`` interval (all None, with ``reason``
    saying why, when the sample is too small), ``human_queries`` (n) of ``queries`` (N),
    ``weight`` (λ), and beside it ``model_only`` (the model's mean over every query) and
    ``human_only`` with ``human_low``/``human_high`` (people's grades on the sample alone)."""

    value: float | None
    low: float | None
    high: float | None
    human_queries: int
    queries: int
    weight: float | None
    model_only: float | None
    human_only: float | None
    human_low: float | None
    human_high: float | None
    design: str
    reason: str | None = None
    detail: str | None = None  # e.g. the stratum that was too small

    @property
    def human_share(self) -> float:
        return self.human_queries / self.queries if self.queries else float("nan")


def _varies(human: np.ndarray, sampled: np.ndarray) -> np.ndarray:
    """Whether the sampled human values are not all equal (over the last axis)."""
    highest = np.where(sampled, human, -np.inf).max(-1)
    lowest = np.where(sampled, human, np.inf).min(-1)
    return highest > lowest


def _aligned(model, human, sampled) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three inputs broadcast to one shape, human values 0 where not sampled (they
    may be NaN there)."""
    model, human = np.asarray(model, dtype=float), np.asarray(human, dtype=float)
    sampled = np.asarray(sampled, dtype=bool)
    shape = np.broadcast_shapes(model.shape, human.shape, sampled.shape)
    sampled = np.broadcast_to(sampled, shape)
    return np.broadcast_to(model, shape), np.where(sampled, human, 0.0), sampled


def uniform(
    model: np.ndarray,
    human: np.ndarray,
    sampled: np.ndarray,
    weight: float | None = None,
    population: bool = True,
) -> Parts:
    """PPI++ for a uniform random sample (see the module's docstring). ``model``, ``human``
    and ``sampled`` have shape ``(..., N)``; ``weight`` fixes λ (0: human-only) instead of
    tuning it; ``population=False`` leaves out s²(human)/N, for the mean over exactly these
    N queries. Where fewer than 2 (3 when tuning) queries are sampled the result is NaN."""
    model, human, sampled = _aligned(model, human, sampled)
    mask = sampled.astype(float)
    total = model.shape[-1]
    n = mask.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        human_mean = human.sum(-1) / n
        model_mean = (model * mask).sum(-1) / n
        dh = (human - human_mean[..., None]) * mask
        dm = (model - model_mean[..., None]) * mask
        shh, smm, shm = (dh * dh).sum(-1), (dm * dm).sum(-1), (dh * dm).sum(-1)
        if weight is None:
            lam = np.clip(np.where(smm > 0, shm / np.where(smm > 0, smm, 1.0), 0.0), 0.0, 1.0)
            lost = 2
        else:
            lam = np.full(n.shape, float(weight))
            lost = 1
        # sum of squares of the residual human - λ·model about its sample mean
        srr = np.maximum(shh - 2 * lam * shm + lam * lam * smm, 0.0)
        value = lam * model.mean(-1) + human_mean - lam * model_mean
        variance = srr / (n - lost) * (1 / n - 1 / total)
        if population:
            variance = variance + shh / (n - 1) / total
    dof = n - lost
    undefined = dof < 1
    return Parts(
        value=np.where(n > 0, value, np.nan),
        variance=np.where(undefined, np.nan, variance),
        dof=dof.astype(float),
        weight=lam,
        human_queries=n.astype(int),
        varies=_varies(human, sampled),
    )


def stratified(
    model: np.ndarray,
    human: np.ndarray,
    sampled: np.ndarray,
    strata: np.ndarray,
    weight: float | None = None,
    population: bool = True,
) -> Parts:
    """The uniform estimate within each stratum (``strata``: one label per query, shape
    ``(N,)``), weighted by the stratum's share of the queries. A stratum too small for its
    own estimate makes the whole NaN (``estimate`` says which)."""
    model, human, sampled = _aligned(model, human, sampled)
    strata = np.asarray(strata)
    total = model.shape[-1]
    value = np.zeros(model.shape[:-1])
    variance = np.zeros(model.shape[:-1])
    dof_terms = np.zeros(model.shape[:-1])
    n = np.zeros(model.shape[:-1], dtype=int)
    for label in np.unique(strata):
        inside = strata == label
        part = uniform(
            model[..., inside], human[..., inside], sampled[..., inside], weight, population
        )
        share = inside.sum() / total
        value = value + share * part.value
        variance = variance + share**2 * part.variance
        with np.errstate(invalid="ignore", divide="ignore"):
            dof_terms = dof_terms + (share**2 * part.variance) ** 2 / part.dof
        n = n + part.human_queries
    with np.errstate(invalid="ignore", divide="ignore"):
        dof = np.where(dof_terms > 0, variance**2 / dof_terms, n - 2.0)
    return Parts(value, variance, dof, np.full(value.shape, np.nan), n, _varies(human, sampled))


def weighted(
    model: np.ndarray,
    human: np.ndarray,
    sampled: np.ndarray,
    probabilities: np.ndarray,
    weight: float | None = None,
    population: bool = True,
) -> Parts:
    """The inverse-probability-weighted (Horvitz–Thompson) estimate for queries sampled
    independently with ``probabilities`` (each in (0, 1]); see the module's docstring.
    ``population=False``: the design variance alone, Σ ξ·r²·(1 − π)/π² / N² with
    r = human − λ·model, for the mean over exactly these N queries. Raises
    ``LocalizedError`` for a probability outside (0, 1]."""
    model, human, sampled = _aligned(model, human, sampled)
    pi = np.broadcast_to(np.asarray(probabilities, dtype=float), model.shape)
    if not np.all((pi > 0) & (pi <= 1)):
        raise LocalizedError("estimate_probability", value=float(pi[(pi <= 0) | (pi > 1)][0]))
    total = model.shape[-1]
    scaled = sampled / pi
    a = human * scaled  # human · ξ/π
    c = model * (scaled - 1)  # model · (ξ/π − 1)
    n = sampled.sum(-1)
    if weight is None:
        da, dc = a - a.mean(-1, keepdims=True), c - c.mean(-1, keepdims=True)
        scc, sac = (dc * dc).sum(-1), (da * dc).sum(-1)
        lam = np.clip(np.where(scc > 0, sac / np.where(scc > 0, scc, 1.0), 0.0), 0.0, 1.0)
        lost = 2
    else:
        lam = np.full(n.shape, float(weight))
        lost = 1
    z = a - lam[..., None] * c
    dof = (n - lost).astype(float)
    if population:
        variance = z.var(-1, ddof=1) / total
    else:
        residual = human - lam[..., None] * model
        variance = (sampled * residual**2 * (1 - pi) / pi**2).sum(-1) / total**2
    return Parts(
        value=np.where(n > 0, z.mean(-1), np.nan),
        variance=np.where(dof >= 1, variance, np.nan),
        dof=dof,
        weight=lam,
        human_queries=n.astype(int),
        varies=_varies(human, sampled),
    )


def _scalar(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value


def parts(
    model: np.ndarray,
    human: np.ndarray,
    sampled: np.ndarray,
    *,
    strata=None,
    probabilities=None,
    weight: float | None = None,
    population: bool = True,
) -> Parts:
    """The estimate's parts under the sample's design: ``weighted`` for ``probabilities``
    (an unequal sample), ``stratified`` for ``strata``, else ``uniform``."""
    if probabilities is not None:
        return weighted(model, human, sampled, probabilities, weight, population)
    if strata is not None:
        return stratified(model, human, sampled, np.asarray(strata), weight, population)
    return uniform(model, human, sampled, weight, population)


def estimate(
    model,
    human,
    sampled,
    *,
    strata=None,
    probabilities=None,
    confidence: float = CONFIDENCE,
    population: bool = True,
    bounds: tuple[float, float] | None = None,
) -> Estimate:
    """The estimate for one group: ``model``, ``human`` and ``sampled`` are sequences over
    the group's N queries (``human`` read only where sampled); ``strata`` (a label per
    query) for a stratified sample, ``probabilities`` (per query) for an unequal one, else
    uniform. ``population=False`` estimates the mean over exactly these queries (no
    s²/N term). Below ``MIN_HUMAN_QUERIES`` sampled queries, or ``MIN_PER_STRATUM`` in a
    stratum, ``value``/``low``/``high`` are None and ``reason`` says why. Raises
    ``LocalizedError`` when the inputs differ in length or a probability is off (0, 1].
    ``bounds``: the values a figure can take (``(0, 1)`` for a proportion such as Recall
    or Hit): the estimates and both intervals are kept inside them. The figure itself lies
    inside, so an interval clipped to them covers it whenever the whole interval did."""
    model = np.asarray(model, dtype=float)
    human = np.asarray(human, dtype=float)
    sampled = np.asarray(sampled, dtype=bool)
    lengths = {len(model), len(human), len(sampled)}
    for extra in (strata, probabilities):
        if extra is not None:
            lengths.add(len(extra))
    if len(lengths) != 1 or model.ndim != 1:
        raise LocalizedError("estimate_lengths", lengths=", ".join(map(str, sorted(lengths))))
    n, total = int(sampled.sum()), len(model)
    design, reason, detail = "uniform", None, None
    if probabilities is not None:
        design = "probabilities"
    elif strata is not None:
        design = "stratified"
        labels = np.asarray(strata)
        small = [
            str(label)
            for label in np.unique(labels)
            if sampled[labels == label].sum() < MIN_PER_STRATUM
        ]
        if small:
            reason, detail = TOO_FEW_IN_STRATUM, ", ".join(small)

    def run(weight):
        return parts(
            model,
            human,
            sampled,
            strata=strata,
            probabilities=probabilities,
            weight=weight,
            population=population,
        )

    if n < MIN_HUMAN_QUERIES:
        reason, detail = TOO_FEW, None
    model_only = _scalar(model.mean()) if total else None
    blank = Estimate(None, None, None, n, total, None, model_only, None, None, None, design)
    if reason is not None:
        return replace(blank, reason=reason, detail=detail)
    tuned, human_only = run(None), run(0.0)
    if not bool(tuned.varies):
        return replace(blank, human_only=_scalar(human_only.value), reason=NO_VARIATION)
    low, high = tuned.interval(confidence)
    human_low, human_high = human_only.interval(confidence)
    inside = (lambda v: v) if bounds is None else (lambda v: np.clip(v, *bounds))
    return Estimate(
        value=_scalar(inside(tuned.value)),
        low=_scalar(inside(low)),
        high=_scalar(inside(high)),
        human_queries=n,
        queries=total,
        weight=_scalar(tuned.weight),
        model_only=model_only,
        human_only=_scalar(inside(human_only.value)),
        human_low=_scalar(inside(human_low)),
        human_high=_scalar(inside(human_high)),
        design=design,
    )
