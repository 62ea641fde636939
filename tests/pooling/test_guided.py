"""Guided active pooling: the model's voice in the order, exploration, and fading."""

from __future__ import annotations

import numpy as np
import pytest

from pooling.guided import (
    AGREEMENT_PRIOR,
    EXPLORATION,
    EXPLORATION_EVERY,
    GUIDED,
    MODEL_STRENGTH,
    Agreement,
    GuidedLearner,
    is_exploration,
    model_weight,
    relevant_chance,
)
from pooling.learner import FUSION_K, QueryLearner
from pooling.tokenize import Tokenizer
from tests.pooling.test_active import QUERY, TEXTS


class FusedRankOnly:
    """A learner that hears the systems' fused rank alone: candidate i scores
    1 / (FUSION_K + i), so the guided scores can be worked out by hand."""

    seed = "hand"

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def scores(self, labels) -> np.ndarray:
        return 1.0 / (FUSION_K + np.arange(self.n, dtype=float))


def test_the_guided_order_of_a_stated_model_worked_by_hand():
    # The model calls candidates 2 and 3 relevant, 0 and 1 not. Its voice is
    # MODEL_STRENGTH (0.3) x weight x chance, added to the fused rank's 1/(10 + i): at full
    # weight 0: 0.1, 1: 0.0909, 2: 0.0833 + 0.3 = 0.3833, 3: 0.0769 + 0.3 = 0.3769.
    guided = GuidedLearner(FusedRankOnly(4), [0.0, 0.0, 1.0, 1.0])  # type: ignore[arg-type]
    assert pytest.approx(0.3) == MODEL_STRENGTH
    assert guided.order({}, weight=1.0) == [2, 3, 0, 1]
    assert guided.order({}, weight=0.0) == [0, 1, 2, 3]  # no weight: the learner's order
    # at 0.05 the model adds 0.015: 0: 0.1, 2: 0.0983, 3: 0.0919, 1: 0.0909
    assert guided.order({}, weight=0.05) == [0, 2, 3, 1]
    assert guided.order({2: True}, weight=1.0) == [3, 0, 1]
    # a chance of 0.5 (the model unsure, or it gave no grade) comes between
    unsure = GuidedLearner(FusedRankOnly(4), [0.0, 0.5, 1.0, 0.0])  # type: ignore[arg-type]
    assert unsure.order({}, weight=1.0) == [2, 1, 0, 3]


def test_the_model_s_chance_comes_from_its_token_probabilities_when_given():
    assert relevant_chance(2) == 1.0
    assert relevant_chance(0) == 0.0
    assert relevant_chance(None) == 0.5
    assert relevant_chance(0, 0.6) == pytest.approx(0.4)  # unsure it is irrelevant
    assert relevant_chance(3, 0.7) == pytest.approx(0.7)


def test_one_choice_in_five_explores_outside_the_model_s_top():
    n = 200
    chances = [1.0 if i % 2 else 0.0 for i in range(n)]  # the odd ones: the model's top
    guided = GuidedLearner(FusedRankOnly(n), chances)  # type: ignore[arg-type]
    labels: dict[int, bool] = {}
    reasons = []
    for _ in range(100):
        pick = guided.choose(labels, labels, weight=1.0)
        assert pick is not None
        i, reason = pick
        reasons.append(reason)
        assert (reason == EXPLORATION) == (chances[i] == 0.0)  # guided picks the top here
        labels[i] = False
    blocks = [reasons[b : b + EXPLORATION_EVERY] for b in range(0, 100, EXPLORATION_EVERY)]
    assert all(block.count(EXPLORATION) == 1 for block in blocks)
    assert reasons.count(GUIDED) == 80
    # the exploring place moves from block to block: the order does not give it away
    assert len({block.index(EXPLORATION) for block in blocks}) > 1
    assert [is_exploration("hand", c) for c in range(100)] == [r == EXPLORATION for r in reasons]


def test_exploration_takes_the_learner_s_best_outside_and_any_when_none_is_outside():
    c = next(c for c in range(50) if is_exploration("hand", c))  # an exploring choice
    # candidates 0..c-1 were chosen already; of the rest the model calls c+2 and c+3 not
    # relevant, and the learner (fused rank) likes c+2 better
    chances = [1.0] * (c + 2) + [0.0, 0.0] + [1.0] * 3
    guided = GuidedLearner(FusedRankOnly(len(chances)), chances)  # type: ignore[arg-type]
    assert guided.choose({}, set(range(c)), weight=1.0) == (c + 2, EXPLORATION)
    assert guided.choose({}, set(range(c + 1)), weight=1.0)[1] == GUIDED  # type: ignore[index]
    everyone_top = GuidedLearner(FusedRankOnly(c + 3), [1.0] * (c + 3))  # type: ignore[arg-type]
    assert everyone_top.choose({}, set(range(c)), weight=1.0) == (c, EXPLORATION)


def test_agreement_is_cohen_s_kappa():
    agreement = Agreement.of([(True, True)] * 20 + [(False, False)] * 15 + [(True, False)] * 5)
    # observed 35/40; chance: 0.625 x 0.5 + 0.375 x 0.5 = 0.5; kappa 0.75
    assert agreement.kappa() == pytest.approx(0.75)
    low, high = agreement.interval()  # type: ignore[misc]
    # po 0.875, pe 0.5: se = sqrt(0.875 x 0.125 / 40) / 0.5 = 0.1046
    assert (low, high) == pytest.approx((0.75 - 1.96 * 0.1046, 0.75 + 1.96 * 0.1046), abs=1e-3)
    assert Agreement().kappa() is None
    assert Agreement().interval() is None
    assert Agreement.of([(True, True)] * 3).kappa() is None  # chance agreement certain


def test_the_weight_starts_at_the_prior_and_moves_with_people():
    assert model_weight(Agreement(), Agreement()) == AGREEMENT_PRIOR
    agreeing = Agreement(both=10, neither=30)
    disagreeing = Agreement(model_only=30, people_only=10)
    assert model_weight(Agreement(), agreeing) > AGREEMENT_PRIOR
    assert model_weight(Agreement(), disagreeing) < AGREEMENT_PRIOR
    # a query's own agreement counts once it has enough judged candidates
    assert model_weight(disagreeing, agreeing) < model_weight(Agreement(), agreeing)
    assert model_weight(Agreement(model_only=1), agreeing) == model_weight(Agreement(), agreeing)


def test_a_model_that_disagrees_with_people_fades_to_the_learner_s_order():
    tokenizer = Tokenizer()
    learner = QueryLearner(tokenizer.tokens(QUERY), tokenizer(TEXTS))
    # a model that calls the off-topic chunks relevant and the perovskite ones not
    chances = [1.0 if i >= 10 else 0.0 for i in range(len(TEXTS))]
    guided = GuidedLearner(learner, chances)
    labels = {4: True, 10: False, 11: False, 12: False}
    trusted = guided.order(labels, weight=1.0)
    assert set(trusted[:3]) <= set(range(13, 20))  # trusted, it leads people astray
    # people's judgments across the pool said otherwise: its weight is nothing
    pool = Agreement(model_only=60, people_only=20)
    weight = model_weight(guided.agreement(labels), pool)
    assert weight == 0.0
    assert guided.order(labels, weight) == learner.order(labels)


def test_the_stopping_rule_hears_the_model_by_its_weight():
    n = 100
    chances = [1.0 if i < 10 else 0.0 for i in range(n)]
    guided = GuidedLearner(FusedRankOnly(n), chances)  # type: ignore[arg-type]
    # people found the model's 10 relevant and nothing in 15 of the others
    asked = [(i, True) for i in range(10)] + [(i, False) for i in range(10, 25)]
    assert guided.estimate_remaining(asked[:19], 1.0) is None
    trusting = guided.estimate_remaining(asked, 1.0)
    plain = guided.estimate_remaining(asked, 0.0)
    assert trusting is not None and plain is not None
    # the model's stratum is exhausted; the other one's fit sees only misses
    assert trusting < plain
