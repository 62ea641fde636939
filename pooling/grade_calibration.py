"""A model judge's grades calibrated on people, as the predictor of a metric estimate
(``pooling.estimates``). Pure numpy; no database.

The model's raw grades make a poor predictor where its errors pile up in a ratio: a lenient
judge calls many non-relevant candidates relevant, so under its grades Recall@100 mostly
measures how much of the pool a run's top 100 covers. Calibrated instead, on the queries
people judged completely: ``P(human grade | model grade)``, a table of counts over the
sampled queries' model-graded candidates (people's grade 0 where they gave none, as the
metrics read it), smoothed towards people's overall grade shares. The predictor of a
query's metric is then its expectation under that table: the mean of the metric over
``draws`` sets of grades drawn candidate by candidate from it (one way for every metric,
ratios included: a Recall's denominator is drawn with its numerator).

Cross-fitting keeps the estimate unbiased and its interval valid (Zrnic & Candès 2024,
"Cross-prediction-powered inference"): the sampled queries fall into ``folds`` folds; a
sampled query's grades are drawn from the table fitted on the other folds, never on
itself; every other query's draws go round the folds' tables (draw d from fold d mod K),
so its predictor is the folds' average. The correction ``human − λ·predictor`` on a
sampled query then has the same mean as on any query, as PPI needs.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from pooling.grades import GRADES
from pooling.qrels import Qrels

FOLDS = 5  # cross-fitting folds over the sampled queries
DRAWS = 10  # grade sets drawn per query (a multiple of FOLDS: each fold's table as often)
PRIOR = 1.0  # pseudo-candidates per model grade, spread as people's grade shares
LEVELS = len(GRADES)


def query_folds(sampled: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Per query (``sampled``: a bool per query), its fold 0..K-1 when sampled, -1 when
    not; the sampled queries are dealt into ``min(folds, n)`` folds at random."""
    sampled = np.asarray(sampled, dtype=bool)
    fold = np.full(sampled.shape, -1, dtype=np.int64)
    members = np.flatnonzero(sampled)
    count = max(1, min(folds, len(members)))
    fold[members[rng.permutation(len(members))]] = np.arange(len(members)) % count
    return fold


def grade_tables(
    pair_query: np.ndarray,
    model: np.ndarray,
    human: np.ndarray,
    fold: np.ndarray,
    prior: float = PRIOR,
) -> np.ndarray:
    """``[K, LEVELS, LEVELS]``: for each fold k, P(human grade | model grade) fitted on the
    candidates of the sampled queries outside fold k (``pair_query``: each candidate's
    query, ``model``/``human``: its grades, ``fold``: per query from ``query_folds``).
    Each row is smoothed by ``prior`` pseudo-candidates spread as people's grade shares,
    so a model grade seen rarely (or never) falls back on them."""
    folds = int(fold.max()) + 1
    pair_fold = fold[pair_query]
    counts = np.zeros((max(folds, 1), LEVELS, LEVELS))
    inside = pair_fold >= 0
    np.add.at(counts, (pair_fold[inside], model[inside], human[inside]), 1.0)
    held = counts.sum(0, keepdims=True) - counts  # fitted without fold k
    shares = (held.sum(1, keepdims=True) + 1.0) / (held.sum((1, 2), keepdims=True) + LEVELS)
    seen = held.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        table = (held + prior * shares) / (seen + prior)
    return np.where(seen + prior > 0, table, shares)


def draw_grades(
    tables: np.ndarray,
    pair_query: np.ndarray,
    model: np.ndarray,
    fold: np.ndarray,
    draws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``[draws, candidates]`` people's grades drawn from ``tables`` (``grade_tables``) for
    each model-graded candidate: a sampled query's from its own fold's table, any other
    query's draw d from fold d mod K's."""
    folds = len(tables)
    pair_fold = fold[pair_query]
    chosen = np.where(
        pair_fold[None, :] >= 0, pair_fold[None, :], np.arange(draws)[:, None] % folds
    )
    cumulative = np.cumsum(tables, axis=-1)[chosen, model[None, :]]  # [draws, pairs, LEVELS]
    # Stratified uniforms: a candidate's draws fall one in each of ``draws`` equal slices of
    # [0, 1), in random order. Each draw alone is still a fair draw; their mean strays far
    # less from the expectation than independent draws' would.
    strata = rng.permuted(np.broadcast_to(np.arange(draws), (len(model), draws)), axis=1).T
    u = (strata + rng.random((draws, len(model)))) / draws
    return np.minimum((u[..., None] >= cumulative).sum(-1), LEVELS - 1)


def calibrated_grades(
    pair_query: np.ndarray,
    model: np.ndarray,
    human: np.ndarray,
    sampled: np.ndarray,
    rng: np.random.Generator,
    folds: int = FOLDS,
    draws: int = DRAWS,
) -> np.ndarray:
    """The whole recipe: ``[draws, candidates]`` grades drawn, cross-fitted, from people's
    grades given the model's (see the module's docstring). ``pair_query`` indexes
    ``sampled`` (a bool per query); ``human`` is read only on sampled queries."""
    fold = query_folds(sampled, folds, rng)
    tables = grade_tables(pair_query, model, human, fold)
    return draw_grades(tables, pair_query, model, fold, draws, rng)


def calibrated_qrels(
    model: Qrels,
    human: Qrels,
    queries: Sequence[str],
    sampled: Collection[str],
    seed: int | Sequence[int],
    folds: int = FOLDS,
    draws: int = DRAWS,
) -> list[Qrels]:
    """``draws`` qrels of ``queries``' model-graded candidates, each grade drawn from
    people's given the model's (``calibrated_grades``), fitted cross-fold on the ``sampled``
    queries' grades in ``human`` (0 where people gave none). Seeded: the same inputs and
    ``seed`` always draw the same grades. The predictor of a metric is its mean over them."""
    pairs = [(q, c, g) for q in queries for c, g in model.grades.get(q, {}).items()]
    position = {q: i for i, q in enumerate(queries)}
    pair_query = np.array([position[q] for q, _, _ in pairs], dtype=np.int64)
    model_grades = np.array([g for _, _, g in pairs], dtype=np.int64)
    people = np.array([human.grades.get(q, {}).get(c, 0) for q, c, _ in pairs], dtype=np.int64)
    chosen = set(sampled)
    is_sampled = np.array([q in chosen for q in queries], dtype=bool)
    rng = np.random.default_rng(seed)
    drawn = calibrated_grades(pair_query, model_grades, people, is_sampled, rng, folds, draws)
    found = []
    for row in drawn:
        grades: dict[str, dict[str, int]] = {q: {} for q in queries}
        for (q, c, _), g in zip(pairs, row.tolist(), strict=True):
            grades[q][c] = g
        found.append(Qrels(grades, f"{model.name} calibrated"))
    return found
