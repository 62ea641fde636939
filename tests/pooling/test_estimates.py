"""The PPI++ / IPW estimator of pooling.estimates: hand-computed cases, the degenerate
models, unequal probabilities, strata, and Monte-Carlo coverage small enough for CI."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pooling import estimates
from pooling.i18n import LocalizedError

# -- hand-computed -------------------------------------------------------------------------

MODEL = [0.2, 0.4, 0.6, 0.8, 0.5, 0.1]
HUMAN = [0.3, 0.4, 0.5, 0.8, np.nan, np.nan]  # people judged the first four queries
SAMPLED = [True, True, True, True, False, False]


def test_a_closed_form_case():
    # On the sample: model mean 0.5, human mean 0.5; centred sums of squares and products
    # smm = 0.09+0.01+0.01+0.09 = 0.2, shm = 0.06+0.01+0+0.09 = 0.16,
    # shh = 0.04+0.01+0+0.09 = 0.14.  λ = 0.16/0.2 = 0.8.
    # Model mean over all six: 2.6/6.  Estimate = 0.8·2.6/6 + 0.5 − 0.8·0.5 = 13.4/30.
    # Residual sum of squares 0.14 − 2·0.8·0.16 + 0.64·0.2 = 0.012, over n − 2 = 2.
    # Variance = (0.14/3)/6 + (0.012/2)·(1/4 − 1/6) = 7/900 + 1/2000 = 149/18000.
    parts = estimates.uniform(MODEL, HUMAN, SAMPLED)
    assert parts.weight == pytest.approx(0.8)
    assert parts.value == pytest.approx(13.4 / 30)
    assert parts.variance == pytest.approx(149 / 18000)
    assert parts.dof == 2 and parts.human_queries == 4
    low, high = parts.interval()
    half = 4.302652729749464 * np.sqrt(149 / 18000)  # t(0.975, 2 df)
    assert (low, high) == pytest.approx((13.4 / 30 - half, 13.4 / 30 + half))
    # Without the s²/N term: the mean over exactly these six queries.
    alone = estimates.uniform(MODEL, HUMAN, SAMPLED, population=False)
    assert alone.variance == pytest.approx(1 / 2000)


def test_weight_zero_is_the_human_only_mean_with_its_classical_interval():
    parts = estimates.uniform(MODEL, HUMAN, SAMPLED, weight=0.0)
    assert parts.value == pytest.approx(0.5)
    assert parts.variance == pytest.approx(0.14 / 3 / 4)  # s²/n
    assert parts.dof == 3


def test_the_weight_is_clipped_to_between_zero_and_one():
    steep = estimates.uniform([0.0, 0.1, 0.2, 0.3], [0.0, 0.3, 0.6, 0.9], [True] * 4)
    assert steep.weight == 1.0
    against = estimates.uniform([0.0, 0.1, 0.2, 0.3], [0.9, 0.6, 0.3, 0.0], [True] * 4)
    assert against.weight == 0.0
    flat = estimates.uniform([0.5] * 4, [0.1, 0.2, 0.3, 0.4], [True] * 4)
    assert flat.weight == 0.0  # a constant model says nothing


def test_the_interval_of_a_proportion_stays_inside_zero_and_one():
    """Issue 40: Recall and Hit near 1 on a small sample had intervals above 1. Within
    ``bounds`` the estimate and both intervals are clipped; the figure lies there, so the
    clipped interval covers it whenever the whole one did."""
    rng = np.random.default_rng(0)
    human = np.where(rng.random(40) < 0.9, 1.0, 0.0)  # Hit@5: nearly always 1
    model = np.clip(human + rng.normal(0, 0.3, 40), 0, 1)
    sampled = np.arange(40) < 12
    loose = estimates.estimate(model, human, sampled)
    assert loose.high > 1 and loose.human_high > 1  # what the clipping is for
    kept = estimates.estimate(model, human, sampled, bounds=(0.0, 1.0))
    for low, high in ((kept.low, kept.high), (kept.human_low, kept.human_high)):
        assert 0.0 <= low <= high <= 1.0
    assert kept.high == min(loose.high, 1.0) and kept.low == max(loose.low, 0.0)
    assert 0.0 <= kept.value <= 1.0


def test_inverse_probability_weights_by_hand():
    model = [0.5, 0.5, 0.2, 0.8]
    human = [1.0, np.nan, 0.4, np.nan]
    sampled = [True, False, True, False]
    pi = [0.5, 0.25, 1.0, 0.5]
    # λ = 1: z = model + (human − model)·ξ/π = [1.5, 0.5, 0.4, 0.8]; mean 0.8;
    # var(z) = (0.49 + 0.09 + 0.16 + 0)/3; variance = var(z)/4.
    full = estimates.weighted(model, human, sampled, pi, weight=1.0)
    assert full.value == pytest.approx(0.8)
    assert full.variance == pytest.approx(0.74 / 3 / 4)
    # λ = 0: Horvitz–Thompson, human·ξ/π averaged over all N = (2 + 0.4)/4.
    ht = estimates.weighted(model, human, sampled, pi, weight=0.0)
    assert ht.value == pytest.approx(0.6)
    # Tuned: A = [2, 0, 0.4, 0], C = model·(ξ/π − 1) = [0.5, −0.5, 0, −0.8];
    # cov(A, C)/var(C) = 1.48/0.98 > 1, clipped to 1.
    assert estimates.weighted(model, human, sampled, pi).weight == 1.0
    # Design variance alone: Σ ξ·r²·(1 − π)/π² / N², r = human − model = [0.5, ·, 0.2, ·].
    alone = estimates.weighted(model, human, sampled, pi, weight=1.0, population=False)
    assert alone.variance == pytest.approx(0.25 * 0.5 / 0.25 / 16)
    with pytest.raises(LocalizedError, match="inclusion probability"):
        estimates.weighted(model, human, sampled, [0.5, 0.0, 1.0, 0.5])


def test_strata_are_weighted_by_their_share_of_the_queries():
    rng = np.random.default_rng(3)
    model = rng.random(30)
    human = model + rng.normal(0, 0.1, 30)
    sampled = np.zeros(30, bool)
    sampled[[0, 1, 2, 3, 4, 20, 21, 22, 23, 24, 25, 26]] = True
    strata = np.array(["a"] * 10 + ["b"] * 20)
    whole = estimates.stratified(model, human, sampled, strata)
    a = estimates.uniform(model[:10], human[:10], sampled[:10])
    b = estimates.uniform(model[10:], human[10:], sampled[10:])
    assert whole.value == pytest.approx(a.value / 3 + 2 * b.value / 3)
    assert whole.variance == pytest.approx(a.variance / 9 + 4 * b.variance / 9)
    va, vb = a.variance / 9, 4 * b.variance / 9
    assert whole.dof == pytest.approx((va + vb) ** 2 / (va**2 / a.dof + vb**2 / b.dof))
    assert whole.human_queries == 12


# -- the one-group entry point ----------------------------------------------------------------


def test_too_few_human_queries_give_no_interval_and_say_why():
    model, human = np.linspace(0, 1, 40), np.linspace(0, 1, 40)
    sampled = np.arange(40) < estimates.MIN_HUMAN_QUERIES - 1
    few = estimates.estimate(model, human, sampled)
    assert few.value is few.low is few.high is None
    assert few.reason == estimates.TOO_FEW and few.human_queries == 9 and few.queries == 40
    assert few.model_only == pytest.approx(0.5)  # the model's figure is still shown
    enough = estimates.estimate(model, human, np.arange(40) < estimates.MIN_HUMAN_QUERIES)
    assert enough.reason is None and enough.low < enough.value < enough.high
    assert enough.human_share == pytest.approx(0.25)


def test_a_sample_on_which_people_s_values_do_not_vary_gives_no_interval():
    # Every sampled query at Recall 1: a normal interval would be [1, 1] whatever the
    # unsampled queries hold.
    model = np.linspace(0.5, 1, 100)
    human = np.r_[np.ones(99), 0.0]
    result = estimates.estimate(model, human, np.arange(100) < 30)
    assert result.reason == estimates.NO_VARIATION and result.value is result.low is None
    assert result.human_only == 1.0 and result.model_only == pytest.approx(0.75)
    assert estimates.estimate(model, human, np.arange(100) >= 70).reason is None


def test_a_stratum_without_enough_human_queries_is_named():
    model = np.linspace(0, 1, 40)
    sampled = np.r_[np.ones(18, bool), np.zeros(20, bool), np.ones(2, bool)]
    strata = ["easy"] * 20 + ["hard"] * 20
    result = estimates.estimate(model, model, sampled, strata=strata)
    assert result.reason == estimates.TOO_FEW_IN_STRATUM and result.detail == "hard"
    assert result.design == "stratified" and result.value is None


def test_inputs_of_different_lengths_are_refused():
    with pytest.raises(LocalizedError, match="differ in length"):
        estimates.estimate([0.1, 0.2], [0.1], [True, True])


# -- degenerate models ----------------------------------------------------------------------


def _uniform_samples(rng, reps: int, total: int, n: int) -> np.ndarray:
    order = np.argsort(rng.random((reps, total)), axis=1)
    sampled = np.zeros((reps, total), bool)
    np.put_along_axis(sampled, order[:, :n], True, axis=1)
    return sampled


def test_a_model_that_agrees_with_people_gives_its_own_figure_and_a_narrow_interval():
    rng = np.random.default_rng(4)
    human = rng.beta(2, 3, 200)
    sampled = _uniform_samples(rng, 1, 200, 40)[0]
    result = estimates.estimate(human, human, sampled)
    assert result.weight == 1.0
    assert result.value == pytest.approx(human.mean())  # the model figure, exactly
    width, human_width = result.high - result.low, result.human_high - result.human_low
    # Only the queries' own spread is left: the interval of all 200 queries judged.
    census = 2 * stats.t.ppf(0.975, 38) * human[sampled].std(ddof=1) / np.sqrt(200)
    assert width == pytest.approx(census)
    assert width < 0.5 * human_width


def test_a_model_of_pure_noise_gives_about_the_human_only_interval():
    rng = np.random.default_rng(5)
    reps, total, n = 2000, 200, 40
    human = rng.beta(2, 3, (reps, total))
    noise = rng.random((reps, total))
    sampled = _uniform_samples(rng, reps, total, n)
    tuned = estimates.uniform(noise, human, sampled)
    alone = estimates.uniform(noise, human, sampled, weight=0.0)
    ratio = np.sqrt(tuned.variance).mean() / np.sqrt(alone.variance).mean()
    assert 0.95 < ratio < 1.05
    assert tuned.weight.mean() < 0.15


# -- Monte-Carlo coverage ---------------------------------------------------------------------

REPS, TOTAL, SHARE = 6000, 200, 0.3


def _population(rng, reps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-query (model, human) values drawn afresh for each repetition from one
    superpopulation whose human mean is 0.5: a model that explains 80% of the variance."""
    model = rng.normal(0.5, 0.2, (reps, TOTAL))
    human = 0.5 + 0.9 * (model - 0.5) + rng.normal(0, 0.2 * np.sqrt(0.19), (reps, TOTAL))
    return model, human


def _naive_ppi_variance(model, human, sampled) -> tuple[np.ndarray, np.ndarray]:
    """PPI++ as if the N queries were an unlabelled set apart from the labelled one:
    λ = cov/((1 + n/N)·var), variance s²(human − λ·model)/n + λ²·var(model)/N."""
    mask = sampled.astype(float)
    n = mask.sum(-1)
    mh = (np.where(sampled, human, 0)).sum(-1) / n
    mm = (model * mask).sum(-1) / n
    cov = ((human - mh[:, None]) * (model - mm[:, None]) * mask).sum(-1) / (n - 1)
    lam = np.clip(cov / ((1 + n / TOTAL) * model.var(-1, ddof=1)), 0, 1)
    value = lam * model.mean(-1) + mh - lam * mm
    residual = human - lam[:, None] * model
    rm = (residual * mask).sum(-1) / n
    sr = ((residual - rm[:, None]) ** 2 * mask).sum(-1) / (n - 1)
    return value, sr / n + lam**2 * model.var(-1, ddof=1) / TOTAL


def _covered(value, variance, truth, dof) -> float:
    half = stats.t.ppf(0.975, dof) * np.sqrt(variance)
    return float((np.abs(value - truth) <= half).mean())


def test_the_interval_covers_the_population_mean_95_percent_of_the_time():
    rng = np.random.default_rng(6)
    model, human = _population(rng, REPS)
    sampled = _uniform_samples(rng, REPS, TOTAL, int(SHARE * TOTAL))
    parts = estimates.uniform(model, human, sampled)
    coverage = _covered(parts.value, parts.variance, 0.5, parts.dof)
    assert 0.94 <= coverage <= 0.96  # 6000 repetitions: one standard error is 0.003
    # The check has teeth: each plausible mistake in the variance misses the band.
    naive_value, naive_variance = _naive_ppi_variance(model, human, sampled)
    assert _covered(naive_value, naive_variance, 0.5, parts.dof) < 0.935  # cross term lost
    design_only = estimates.uniform(model, human, sampled, population=False)
    assert _covered(design_only.value, design_only.variance, 0.5, parts.dof) < 0.9


def test_the_design_interval_covers_the_mean_of_one_fixed_set_of_queries():
    rng = np.random.default_rng(7)
    model, human = _population(rng, 1)
    sampled = _uniform_samples(rng, REPS, TOTAL, 40)
    parts = estimates.uniform(model, human, sampled, population=False)
    assert 0.94 <= _covered(parts.value, parts.variance, human.mean(), parts.dof) <= 0.96
    wide = estimates.uniform(model, human, sampled)  # the default is conservative here
    assert _covered(wide.value, wide.variance, human.mean(), wide.dof) > 0.97


def test_unequal_probabilities_are_unbiased_and_cover():
    rng = np.random.default_rng(8)
    model, human = _population(rng, REPS)
    # Queries the model grades above 0.5 get three times the share of the other half of the
    # budget; half is spread evenly, as qrels sample does, so that no weight 1/π is extreme.
    favoured = np.where(model > 0.5, 3.0, 1.0)
    pi = 20 / TOTAL + 20 * favoured / favoured.sum(-1, keepdims=True)
    sampled = rng.random(pi.shape) < pi
    parts = estimates.weighted(model, human, sampled, pi)
    assert abs(parts.value.mean() - 0.5) < 0.002
    assert 0.94 <= _covered(parts.value, parts.variance, 0.5, parts.dof) <= 0.96
    plain = (np.where(sampled, human, 0)).sum(-1) / sampled.sum(-1)
    assert plain.mean() > 0.52  # the sample's plain mean is biased towards favoured queries


def test_stratified_samples_cover():
    rng = np.random.default_rng(9)
    model, human = _population(rng, REPS)
    strata = np.repeat([0, 1, 2, 3], TOTAL // 4)
    human = human + 0.1 * strata  # strata differ in level
    truth = 0.5 + 0.15
    sampled = np.concatenate(
        [_uniform_samples(rng, REPS, TOTAL // 4, k) for k in (5, 10, 10, 15)], axis=1
    )
    parts = estimates.stratified(model, human, sampled, strata)
    assert abs(parts.value.mean() - truth) < 0.002
    assert 0.94 <= _covered(parts.value, parts.variance, truth, parts.dof) <= 0.96
