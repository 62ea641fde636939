"""pooling.grade_calibration: P(human grade | model grade) fitted on the sampled queries,
cross-fitted so that no sampled query is predicted from its own grades; a closed-form case
where the calibrated predictor is people's metric exactly; and a Monte-Carlo check that
PPI with the calibrated predictor covers and narrows the interval on Recall, where a
lenient judge's raw grades hardly help."""

from __future__ import annotations

import numpy as np
import pytest

from pooling import estimates, grade_calibration
from pooling.qrels import Qrels


def test_folds_deal_the_sampled_queries_evenly_and_leave_the_rest_out():
    sampled = np.array([True, False] * 12)
    fold = grade_calibration.query_folds(sampled, 5, np.random.default_rng(0))
    assert (fold[~sampled] == -1).all()
    assert sorted(np.bincount(fold[sampled])) == [2, 2, 2, 3, 3]
    few = grade_calibration.query_folds(np.array([True, True, False]), 5, np.random.default_rng(0))
    assert sorted(few[:2]) == [0, 1]  # two sampled queries: two folds


def test_tables_count_people_s_grades_per_model_grade_without_the_fold():
    # Two queries in folds 0 and 1: each fold's table is the other query's counts.
    pair_query = np.array([0, 0, 0, 1, 1, 1])
    model = np.array([1, 1, 0, 1, 0, 0])
    human = np.array([0, 1, 0, 1, 0, 0])
    tables = grade_calibration.grade_tables(pair_query, model, human, np.array([0, 1]), prior=0.0)
    # fold 0 is fitted on query 1: model 1 -> human 1, model 0 -> human 0
    assert tables[0, 1] == pytest.approx([0, 1, 0, 0])
    assert tables[0, 0] == pytest.approx([1, 0, 0, 0])
    # fold 1 on query 0: model 1 -> human 0 or 1 half each
    assert tables[1, 1] == pytest.approx([0.5, 0.5, 0, 0])
    # a model grade never seen falls back on people's grade shares (smoothed)
    assert tables[0, 3].sum() == pytest.approx(1) and (tables[0, 3] > 0).all()
    # with a prior, each row leans towards people's shares
    smoothed = grade_calibration.grade_tables(pair_query, model, human, np.array([0, 1]), prior=1.0)
    assert 0 < smoothed[0, 1, 0] < 0.5 and smoothed[0, 1, 1] > 0.5


def world(queries: int = 60, docs: int = 40, seed: int = 0):
    """People's grades (sparse relevance, a few strongly relevant), a lenient judge that
    calls a query-dependent share of the non-relevant candidates relevant (grade 1), and a
    run's ranking that favours the relevant ones."""
    rng = np.random.default_rng(seed)
    human = np.where(rng.random((queries, docs)) < 0.12, rng.integers(1, 4, (queries, docs)), 0)
    leniency = rng.uniform(0.05, 0.5, queries)[:, None]
    model = np.where(human > 0, np.clip(human + rng.integers(0, 2, human.shape), 1, 3), 0) + (
        (human == 0) & (rng.random(human.shape) < leniency)
    )
    scores = rng.random((queries, docs)) + 0.6 * (human > 0)
    ranking = np.argsort(-scores, axis=1)
    return human, model.astype(int), ranking


def recall_at(grades: np.ndarray, ranking: np.ndarray, k: int = 10) -> np.ndarray:
    """Per query Recall@k of ``ranking`` under ``grades[..., Q, D]`` (0 with nothing
    relevant)."""
    relevant = grades >= 1
    found = np.take_along_axis(relevant, np.broadcast_to(ranking, grades.shape), -1)[..., :k]
    total = relevant.sum(-1)
    return np.where(total > 0, found.sum(-1) / np.maximum(total, 1), 0.0)


def predicted(model, human, sampled, ranking, rng, prior=grade_calibration.PRIOR):
    queries, docs = model.shape
    pair_query = np.repeat(np.arange(queries), docs)
    fold = grade_calibration.query_folds(sampled, grade_calibration.FOLDS, rng)
    tables = grade_calibration.grade_tables(pair_query, model.ravel(), human.ravel(), fold, prior)
    drawn = grade_calibration.draw_grades(
        tables, pair_query, model.ravel(), fold, grade_calibration.DRAWS, rng
    )
    return recall_at(drawn.reshape(-1, queries, docs), ranking).mean(0)


def test_a_sampled_query_is_never_predicted_from_its_own_grades():
    human, model, ranking = world()
    sampled = np.zeros(len(human), dtype=bool)
    sampled[:20] = True
    changed = human.copy()
    changed[3] = np.where(human[3] > 0, 0, 3)  # people say the opposite on query 3
    first = predicted(model, human, sampled, ranking, np.random.default_rng(5))
    second = predicted(model, changed, sampled, ranking, np.random.default_rng(5))
    assert first[3] == second[3]  # its own prediction: fitted without it
    assert not np.allclose(first, second)  # the others read its grades


def test_closed_form_people_s_grades_a_function_of_the_model_s():
    # People's grade is the model's minus one: the calibrated grades are people's exactly,
    # so the predictor is people's Recall on every query, λ is 1, the estimate is the mean
    # over all N queries and only the population term s²(y)/N is left of the variance.
    rng = np.random.default_rng(1)
    model = rng.integers(0, 4, (50, 30))
    human = np.maximum(model - 1, 0)
    ranking = np.argsort(-rng.random((50, 30)), axis=1)
    sampled = np.zeros(50, dtype=bool)
    sampled[rng.permutation(50)[:15]] = True
    truth = recall_at(human, ranking)
    guess = predicted(model, human, sampled, ranking, rng, prior=0.0)
    assert guess == pytest.approx(truth)
    found = estimates.uniform(guess, truth, sampled)
    assert float(found.weight) == pytest.approx(1.0)
    assert float(found.value) == pytest.approx(truth.mean())
    assert float(found.variance) == pytest.approx(truth[sampled].var(ddof=1) / 50)


def test_calibrated_qrels_draw_for_every_model_graded_candidate_and_are_seeded():
    model = Qrels({"q1": {"a": 1, "b": 0}, "q2": {"c": 3}, "q3": {"d": 1}}, "m")
    human = Qrels({"q1": {"a": 0, "b": 0}, "q2": {"c": 2}})
    first = grade_calibration.calibrated_qrels(model, human, ["q1", "q2", "q3"], {"q1", "q2"}, 7)
    again = grade_calibration.calibrated_qrels(model, human, ["q1", "q2", "q3"], {"q1", "q2"}, 7)
    assert len(first) == grade_calibration.DRAWS
    assert [q.to_dict() for q in first] == [q.to_dict() for q in again]
    assert all(set(q["q1"]) == {"a", "b"} and set(q["q3"]) == {"d"} for q in first)


@pytest.mark.parametrize("share", [0.2, 0.35])
def test_ppi_on_the_calibrated_predictor_covers_and_narrows_the_interval(share):
    """A small Monte-Carlo check (fast enough for CI): over 300 random samples of the same
    120 queries, the interval for their mean Recall@10 holds it about 95% of the time, and
    is narrower than people's alone, by more than with the judge's raw grades."""
    human, model, ranking = world(queries=120)
    truth = recall_at(human, ranking)
    raw = recall_at(model, ranking)
    n = round(share * len(truth))
    covered, widths = [], {"calibrated": [], "raw": [], "people": []}
    for rep in range(300):
        rng = np.random.default_rng([11, rep])
        sampled = np.zeros(len(truth), dtype=bool)
        sampled[rng.permutation(len(truth))[:n]] = True
        guess = predicted(model, human, sampled, ranking, rng)
        for name, parts in (
            ("calibrated", estimates.uniform(guess, truth, sampled, population=False)),
            ("raw", estimates.uniform(raw, truth, sampled, population=False)),
            ("people", estimates.uniform(raw, truth, sampled, 0.0, population=False)),
        ):
            low, high = parts.interval()
            widths[name].append(float(high - low))
            if name == "calibrated":
                covered.append(bool(low <= truth.mean() <= high))
    assert np.mean(covered) >= 0.92
    people = np.mean(widths["people"])
    assert np.mean(widths["calibrated"]) < np.mean(widths["raw"]) < people
