"""Guided active pooling: the model judge's grades as one more voice in which candidate
people judge next, and in when a query stops.

The learner (``pooling.learner``) fuses its voices by reciprocal rank (each at most
1 / ``FUSION_K``); guiding adds the model's: its chance that a candidate is relevant
(``relevant_chance``: from the probability of its grade where the server gave token
probabilities, else 1 or 0 by its grade; 0.5 where it gave none) times ``MODEL_STRENGTH``
times the model's agreement with people so far. A voice by rank would not do: the model
grades most candidates alike, and tied ranks barely separate under reciprocal rank.
So people see first what the model calls relevant,
then what it is unsure of, and what it firmly calls irrelevant late but not never:

- **exploration**: one choice in every ``EXPLORATION_EVERY`` (at a seeded position in each
  block, so nobody can tell which) is the learner's best candidate, without the model,
  among those the model calls irrelevant. The learner and the stopping rule thus see the
  model's misses, and a passage's place in the order does not give the model's opinion
  away;
- **agreement**: Cohen's kappa between the model (relevant: chance >= 0.5) and people
  (mean grade >= 1) on the candidates judged so far, per query once it has
  ``PER_QUERY_MIN`` of them, shrunk towards the pool's, which is shrunk towards
  ``AGREEMENT_PRIOR`` (``PRIOR_ITEMS`` pseudo-judgments each). Clipped to [0, 1] it is the
  model's weight: a model that disagrees with people fades to the plain learner.

The stopping rule hears the model the same way: the plain decay fit
(``pooling.learner.decay_estimate``) over the query's order, and the same fit within each
of the model's two strata (what it calls relevant, what it does not) summed, mixed by the
model's weight. ``benchmarks/pool_recall.py`` measures the strategy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pooling.learner import FUSION_K, MIN_JUDGED, QueryLearner, decay_estimate

EXPLORATION_EVERY = 5  # one choice in 5 is drawn from outside the model's top
# The model's voice at full agreement: as much as the learner's three voices all ranking a
# candidate first, so a trusted model's "relevant" comes before all its "irrelevant".
MODEL_STRENGTH = 3 / FUSION_K
AGREEMENT_PRIOR = 0.5  # the weight of a model nobody has checked yet
PRIOR_ITEMS = 10  # pseudo-judgments the prior (and the pool, for a query) counts as
PER_QUERY_MIN = 10  # judged candidates before a query's own agreement counts
UNGRADED_CHANCE = 0.5  # a candidate the model did not grade: unsure

GUIDED = "guided"
EXPLORATION = "exploration"


def relevant_chance(grade: int | None, probability: float | None = None) -> float:
    """The model's chance that a candidate is relevant (grade >= 1): with the probability
    it gave the grade it chose (from the server's token probabilities), that probability
    for a relevant grade and its complement for 0 (the rest assumed on the other side);
    else 1 or 0 by its grade; ``UNGRADED_CHANCE`` where it gave none."""
    if grade is None:
        return UNGRADED_CHANCE
    sure = 1.0 if probability is None else min(1.0, max(0.0, probability))
    return sure if grade >= 1 else 1.0 - sure


@dataclass(frozen=True)
class Agreement:
    """Counts of (model says relevant, people say relevant) on judged candidates."""

    both: int = 0
    model_only: int = 0
    people_only: int = 0
    neither: int = 0

    @classmethod
    def of(cls, pairs: Sequence[tuple[bool, bool]]) -> Agreement:
        """From (model relevant, people relevant) pairs."""
        return cls(
            both=sum(1 for m, p in pairs if m and p),
            model_only=sum(1 for m, p in pairs if m and not p),
            people_only=sum(1 for m, p in pairs if p and not m),
            neither=sum(1 for m, p in pairs if not m and not p),
        )

    def __add__(self, other: Agreement) -> Agreement:
        return Agreement(
            self.both + other.both,
            self.model_only + other.model_only,
            self.people_only + other.people_only,
            self.neither + other.neither,
        )

    @property
    def total(self) -> int:
        return self.both + self.model_only + self.people_only + self.neither

    def kappa(self) -> float | None:
        """Cohen's kappa; None with nothing judged or when chance agreement is certain."""
        n = self.total
        if n == 0:
            return None
        model = (self.both + self.model_only) / n
        people = (self.both + self.people_only) / n
        expected = model * people + (1 - model) * (1 - people)
        if expected >= 1:
            return None
        return ((self.both + self.neither) / n - expected) / (1 - expected)

    def interval(self, z: float = 1.96) -> tuple[float, float] | None:
        """A 95% interval of ``kappa`` (the large-sample standard error of Cohen's kappa,
        sqrt(po·(1 − po) / (n·(1 − pe)²)), clipped to [-1, 1]); None where kappa is."""
        kappa = self.kappa()
        if kappa is None:
            return None
        n = self.total
        model = (self.both + self.model_only) / n
        people = (self.both + self.people_only) / n
        expected = model * people + (1 - model) * (1 - people)
        observed = (self.both + self.neither) / n
        error = (observed * (1 - observed) / n) ** 0.5 / (1 - expected)
        return max(-1.0, kappa - z * error), min(1.0, kappa + z * error)


def _shrunk(agreement: Agreement, towards: float) -> float:
    kappa = agreement.kappa()
    if kappa is None:
        return towards
    n = agreement.total
    return (n * kappa + PRIOR_ITEMS * towards) / (n + PRIOR_ITEMS)


def model_weight(query: Agreement, pool: Agreement) -> float:
    """The model's weight in [0, 1]: its agreement with people on the query once the query
    has ``PER_QUERY_MIN`` judged candidates, on the pool before, each shrunk towards the
    level above."""
    weight = _shrunk(pool, AGREEMENT_PRIOR)
    if query.total >= PER_QUERY_MIN:
        weight = _shrunk(query, weight)
    return min(1.0, max(0.0, weight))


def is_exploration(seed: str, choice: int) -> bool:
    """Whether the query's ``choice``-th choice (from 0) explores: one at a seeded position
    in each block of ``EXPLORATION_EVERY``."""
    block, place = divmod(choice, EXPLORATION_EVERY)
    digest = hashlib.sha256(f"{seed}\x02{block}".encode()).digest()
    return place == int.from_bytes(digest[:8], "big") % EXPLORATION_EVERY


class GuidedLearner:
    """One query's learner with the model's ``chances`` (``relevant_chance`` per candidate,
    in the learner's candidate order)."""

    def __init__(self, learner: QueryLearner, chances: Sequence[float]) -> None:
        if len(chances) != len(learner):
            raise ValueError(f"{len(chances)} model chances for {len(learner)} candidates")
        self.learner = learner
        self.chances = np.asarray(chances, dtype=float)
        self.model_relevant = self.chances >= 0.5

    def __len__(self) -> int:
        return len(self.learner)

    def agreement(self, labels: Mapping[int, bool]) -> Agreement:
        """The model against people on the judged candidates of this query."""
        return Agreement.of([(bool(self.model_relevant[i]), y) for i, y in labels.items()])

    def scores(self, labels: Mapping[int, bool], weight: float) -> np.ndarray:
        """The learner's fused scores with the model's voice at ``weight``."""
        return self.learner.scores(labels) + MODEL_STRENGTH * weight * self.chances

    def order(self, labels: Mapping[int, bool], weight: float) -> list[int]:
        """Unjudged candidates in the guided order (what ``choose`` takes from when it does
        not explore)."""
        score = self.scores(labels, weight)
        unjudged = [i for i in range(len(self)) if i not in labels]
        return sorted(unjudged, key=lambda i: (-score[i], i))

    def choose(
        self, labels: Mapping[int, bool], chosen: Collection[int], weight: float
    ) -> tuple[int, str] | None:
        """The next candidate to ask about and why (``GUIDED`` or ``EXPLORATION``), given
        the judgments ``labels``, the candidates ``chosen`` so far (judged or not) and the
        model's ``weight``; None when every candidate was chosen."""
        left = [i for i in range(len(self)) if i not in chosen and i not in labels]
        if not left:
            return None
        if is_exploration(self.learner.seed, len(chosen)):
            plain = self.learner.scores(labels)
            outside = [i for i in left if not self.model_relevant[i]] or left
            return min(outside, key=lambda i: (-plain[i], i)), EXPLORATION
        score = self.scores(labels, weight)
        return min(left, key=lambda i: (-score[i], i)), GUIDED

    def estimate_remaining(self, asked: Sequence[tuple[int, bool]], weight: float) -> float | None:
        """Expected relevant chunks among the candidates not judged yet, from ``asked``
        (candidate, judged relevant) in the order they were asked for (``guided_estimate``)."""
        strata = tuple(bool(self.model_relevant[i]) for i, _ in asked)
        favoured = int(self.model_relevant.sum())
        outcomes = tuple(y for _, y in asked)
        return guided_estimate(outcomes, strata, favoured, len(self), weight)


def guided_estimate(
    outcomes: Sequence[bool],
    strata: Sequence[bool],
    favoured: int,
    candidates: int,
    weight: float,
) -> float | None:
    """Expected relevant chunks among the ``candidates`` not judged yet, from ``outcomes``
    (judged relevant, in the order asked for) and ``strata`` (whether the model called each
    relevant; ``favoured`` of the candidates it calls so): the plain decay fit and the fit
    within each of the model's strata summed, mixed by ``weight``. None before
    ``MIN_JUDGED`` judgments."""
    if len(outcomes) < MIN_JUDGED:
        return None
    plain = decay_estimate(outcomes, candidates)
    stratified = 0.0
    for stratum, size in ((True, favoured), (False, candidates - favoured)):
        within = [y for y, s in zip(outcomes, strata, strict=True) if s == stratum]
        if size > len(within):
            stratified += decay_estimate(within, size)
    return weight * stratified + (1 - weight) * plain
