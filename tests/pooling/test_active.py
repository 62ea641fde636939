"""Active pooling: the order reacts to judgments, and the stopping rule."""

from __future__ import annotations

import pytest

from pooling.learner import MIN_JUDGED, QueryLearner, StoppingRule, estimate_remaining
from pooling.tokenize import Tokenizer

QUERY = "new materials for more efficient solar cells"
# In the order the systems fused them; the perovskite chunks come late.
TEXTS = [
    "solar panels on rooftops convert sunlight into electricity for homes",
    "wind turbine blades are made from glass fibre composites",
    "offshore wind farms need strong foundations in the seabed",
    "grid batteries store energy when demand is low",
    "perovskite crystals absorb light strongly and are cheap to make",
    "wind speed measurements guide where turbines are placed",
    "lithium batteries age faster when kept fully charged",
    "tidal power uses the rise and fall of the sea",
    "stable perovskite films resist moisture and heat for years",
    "perovskite layers stacked on silicon reach record efficiency",
    # The systems' deeper results, off the topic.
    "bread dough rises faster in a warm kitchen",
    "the football season starts in august",
    "tomatoes need plenty of sun and water",
    "trains connect the two cities every hour",
    "the museum opens a new gallery of modern art",
    "coffee beans are roasted at high temperature",
    "the orchestra rehearses twice a week",
    "mountain trails close when snow falls",
    "children learn to read with picture books",
    "the bakery sells fresh croissants each morning",
]
PEROVSKITE = {4, 8, 9}


@pytest.fixture(scope="module")
def learner():
    tokenizer = Tokenizer()
    return QueryLearner(tokenizer.tokens(QUERY), tokenizer(TEXTS))


def test_without_judgments_the_order_follows_the_systems(learner):
    order = learner.order({})
    assert sorted(order) == list(range(len(TEXTS)))
    assert order[:4] == [0, 1, 2, 3]  # the fused order, nudged by closeness to the query


def test_a_relevant_judgment_moves_similar_chunks_up(learner):
    before = learner.order({0: False, 1: False})
    after = learner.order({0: False, 1: False, 4: True})
    similar = PEROVSKITE - {4}
    assert all(after.index(chunk) <= before.index(chunk) for chunk in similar)
    assert sum(map(after.index, similar)) < sum(map(before.index, similar))
    assert similar <= set(after[:3])


def test_judged_candidates_are_never_offered_again(learner):
    labels = {0: False, 4: True, 8: True}
    assert not set(learner.order(labels)) & set(labels)


@pytest.mark.parametrize(
    ("texts", "labels"),
    [
        (["solar perovskite"] * 2, {1: True}),  # the lower half is judged, and relevant
        (["solar perovskite", "wind"], {0: True, 1: True}),  # everything judged relevant
        (["of the", "and", "the"], {0: True}),  # no candidate has a word
    ],
)
def test_learning_copes_with_nothing_non_relevant_to_learn_from(texts, labels):
    tokenizer = Tokenizer()
    learner = QueryLearner(tokenizer.tokens(QUERY), tokenizer(texts))
    assert learner.order(labels) == [i for i in range(len(texts)) if i not in labels]


def test_stopping_rule_reasons():
    rule = StoppingRule(budget=5, below=1.0)
    assert rule.reason(2, None, 100) is None  # too few judgments to estimate
    assert rule.reason(2, 3.0, 100) is None
    assert rule.reason(2, 0.4, 100) == "estimate"
    assert rule.reason(5, 3.0, 100) == "budget"
    assert rule.reason(4, 3.0, 4) == "exhausted"
    assert StoppingRule(budget=5, below=0).reason(2, 0.0, 100) is None  # never early


def test_estimate_needs_enough_judgments():
    assert estimate_remaining([True] * (MIN_JUDGED - 1), 100) is None
    assert estimate_remaining([False] * MIN_JUDGED, MIN_JUDGED) == 0.0  # nothing left


def test_estimate_falls_as_misses_follow_the_hits():
    hits_then_misses = [True, True, True, False, True] + [False] * 45
    estimates = [estimate_remaining(hits_then_misses[:n], 400) for n in (MIN_JUDGED, 30, 50)]
    assert estimates[0] > estimates[1] > estimates[2]
    assert estimates[2] < 1.0  # 45 misses in a row: little is left


def test_estimate_stays_high_while_hits_keep_coming():
    steady = [True, False] * 10
    assert estimate_remaining(steady, 400) > 3 * estimate_remaining([True] * 5 + [False] * 15, 400)
