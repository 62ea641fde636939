"""Drawing the queries people judge completely: sizes, uniform (nested), stratified with its
allocation, and Poisson sampling by uncertainty whose probabilities are what they say."""

from __future__ import annotations

import numpy as np
import pytest

from pooling import query_sampling as qs
from pooling.estimates import MIN_PER_STRATUM
from pooling.i18n import LocalizedError

IDS = [f"q{i:03d}" for i in range(200)]


@pytest.mark.parametrize(
    ("text", "size"), [("50", 50), ("20%", 40), (" 12.5 % ", 25), ("200", 200)]
)
def test_sizes(text, size):
    assert qs.sample_size(text, 200) == size


@pytest.mark.parametrize("text", ["", "x", "-5", "1.5", "0", "0%", "201", "101%"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(LocalizedError):
        qs.sample_size(text, 200)


def test_a_uniform_sample_is_seeded_and_grows_without_losing_its_queries():
    small, large = qs.uniform(IDS, 20, 5), qs.uniform(IDS, 60, 5)
    assert [m.query_id for m in small] == [m.query_id for m in large[:20]]
    assert {m.probability for m in large} == {0.3}
    assert qs.uniform(IDS, 20, 5) == small and qs.uniform(IDS, 20, 6) != small
    assert len({m.query_id for m in large}) == 60


def test_strata_partition_the_queries():
    assert qs.stratum_of(["zh", "en", "zh"]) == "en+zh"
    assert qs.stratum_of([]) == qs.NO_SLICE


def test_allocation_is_proportional_with_a_floor():
    assert qs.allocation({"a": 100, "b": 100}, 20) == {"a": 10, "b": 10}
    chosen = qs.allocation({"big": 180, "small": 15, "tiny": 5}, 20)
    assert sum(chosen.values()) == 20
    assert chosen["tiny"] == MIN_PER_STRATUM and chosen["small"] >= MIN_PER_STRATUM
    assert qs.allocation({"a": 2, "b": 50}, 10)["a"] == 2  # a stratum smaller than the floor
    with pytest.raises(LocalizedError, match="strata"):
        qs.allocation({s: 10 for s in "abcde"}, 8)


def test_a_stratified_sample_draws_each_stratum_s_share():
    strata = {q: ("a" if i < 150 else "b") for i, q in enumerate(IDS)}
    members = qs.stratified(strata, 40, 1)
    drawn = {s: [m for m in members if m.stratum == s] for s in "ab"}
    assert len(drawn["a"]) == 30 and len(drawn["b"]) == 10
    assert all(strata[m.query_id] == m.stratum for m in members)
    assert {m.probability for m in drawn["a"]} == {30 / 150}


def test_probabilities_by_uncertainty_sum_to_the_budget_and_stay_at_most_one():
    unsure = {q: (1.0 if i < 10 else 0.01 * (i % 7)) for i, q in enumerate(IDS)}
    pi = qs.inclusion_probabilities(unsure, 40)
    assert sum(pi.values()) == pytest.approx(40)
    assert max(pi.values()) <= 1 and min(pi.values()) >= 40 * 0.5 / 200 - 1e-12
    assert pi[IDS[0]] > pi[IDS[50]]  # the uncertain are likelier
    flat = qs.inclusion_probabilities(dict.fromkeys(IDS, 0.0), 40)
    assert list(flat.values()) == pytest.approx([0.2] * 200)


def test_poisson_sampling_draws_each_query_with_its_probability():
    unsure = {q: float(i % 5) for i, q in enumerate(IDS)}
    pi = qs.inclusion_probabilities(unsure, 50)
    counts = dict.fromkeys(IDS, 0)
    for seed in range(2000):
        for m in qs.by_uncertainty(unsure, 50, seed):
            counts[m.query_id] += 1
            assert m.probability == pi[m.query_id]
    share = np.array([counts[q] / 2000 for q in IDS])
    expected = np.array([pi[q] for q in IDS])
    assert np.abs(share - expected).max() < 4 * np.sqrt(0.25 / 2000)
