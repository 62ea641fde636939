"""Agreement figures equal scikit-learn's and the krippendorff package's on the same data;
undefined cases are reported as such."""

from __future__ import annotations

import json
import random

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from annotator.quality.agreement import (
    bootstrap,
    confusion_frame,
    figures_frame,
    kappa,
    krippendorff_alpha,
    pair_agreement,
    report,
    to_json,
)
from pooling.grouping import groups

krippendorff = pytest.importorskip("krippendorff")


def frame_from(grades: dict[str, list[int | None]], slices=None, splits=None) -> pd.DataFrame:
    rows = []
    for annotator, values in grades.items():
        for item, grade in enumerate(values):
            if grade is None:
                continue
            rows.append(
                {
                    "annotator": annotator,
                    "query_id": f"q{item // 3}",
                    "chunk_id": f"c{item}",
                    "grade": grade,
                    "slices": (slices or {}).get(item // 3, []),
                    "split": (splits or {}).get(item // 3, "test"),
                }
            )
    return pd.DataFrame(rows)


def random_grades(seed: int, annotators: int = 3, items: int = 40, missing: float = 0.2):
    rng = random.Random(seed)
    truth = [rng.randint(0, 3) for _ in range(items)]
    return {
        f"a{n}": [
            None if rng.random() < missing else max(0, min(3, t + rng.choice([-1, 0, 0, 0, 1])))
            for t in truth
        ]
        for n in range(annotators)
    }


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn(weights):
    a = [0, 1, 2, 3, 3, 2, 1, 0, 2, 2]
    b = [0, 2, 2, 3, 2, 2, 1, 1, 3, 2]
    kind = weights or "unweighted"
    expected = cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=weights)
    assert kappa(a, b, kind).value == pytest.approx(expected)


@pytest.mark.parametrize("threshold", [1, 2])
def test_binary_kappa_equals_scikit_learn(threshold):
    a = [0, 1, 2, 3, 3, 2, 1, 0, 2, 2]
    b = [0, 2, 2, 3, 2, 2, 1, 1, 3, 0]
    expected = cohen_kappa_score([x >= threshold for x in a], [x >= threshold for x in b])
    assert kappa(a, b, f"binary_ge{threshold}").value == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "b", "kind", "reason"),
    [
        ([2], [2], "unweighted", "fewer than two shared items"),
        ([], [], "quadratic", "fewer than two shared items"),
        ([3, 3, 3], [3, 3, 3], "unweighted", "only one grade in use"),
        ([2, 3, 3], [3, 2, 2], "binary_ge2", "only one grade in use"),
    ],
)
def test_undefined_kappa_says_why(a, b, kind, reason):
    figure = kappa(a, b, kind)
    assert figure.value is None and figure.undefined.startswith(reason)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_alpha_equals_the_krippendorff_package_with_missing_judgments(seed):
    grades = random_grades(seed)
    reliability = np.array([[np.nan if g is None else g for g in row] for row in grades.values()])
    expected = krippendorff.alpha(
        reliability_data=reliability, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3]
    )
    assert krippendorff_alpha(frame_from(grades)).value == pytest.approx(expected)


def grouped_alpha_shares(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each query's share of the coincidence matrix as a grouped count of (query, chunk,
    grade) gave it, summed in the order of the query and chunk ids: what a release's alpha
    was before the bincount of integer codes."""
    graded = frame.dropna(subset=["grade"])
    counts = (
        graded.assign(grade=graded["grade"].astype(int))
        .groupby(["query_id", "chunk_id", "grade"])
        .size()
        .unstack(fill_value=0)
        .reindex(columns=[0, 1, 2, 3], fill_value=0)
    )
    values = counts.to_numpy(dtype=float)
    m = values.sum(axis=1)
    keep = m >= 2
    values, m = values[keep], m[keep]
    pairs = values[:, :, None] * values[:, None, :]
    pairs[:, np.arange(4), np.arange(4)] -= values
    units = (pairs / (m - 1)[:, None, None]).reshape(len(values), 16)
    queries, index = np.unique(
        counts.index.get_level_values(0)[keep].to_numpy(str), return_inverse=True
    )
    sums = np.zeros((len(queries), 16))
    np.add.at(sums, index, units)
    return queries, sums


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpha_shares_are_the_grouped_counts_to_the_last_bit(seed):
    """Up to five grades a unit (thirds and quarters that round), unsure judgments, unicode
    ids: the same queries, the same sums, not merely close ones."""
    rng = np.random.default_rng(seed)
    size = 20_000
    frame = pd.DataFrame(
        {
            "annotator": rng.choice(["a", "b", "c", "d", "e"], size),
            "query_id": rng.choice([f"q\u00e9{i}" for i in range(60)] + ["问", "\U0001f600"], size),
            "chunk_id": rng.choice([f"c{i}" for i in range(80)] + ["文档", "c\U0001f600"], size),
            "grade": pd.array(rng.integers(0, 4, size), dtype="Int64"),
        }
    ).drop_duplicates(["annotator", "query_id", "chunk_id"])
    frame.loc[frame.index[::13], "grade"] = pd.NA
    queries, shares = krippendorff_alpha.parts(frame)
    expected_queries, expected = grouped_alpha_shares(frame)
    assert queries.tolist() == expected_queries.tolist()
    assert np.array_equal(shares, expected)
    figure = krippendorff_alpha(frame)
    assert figure.value == krippendorff_alpha.finish(expected.sum(axis=0)).value


def test_alpha_undefined_cases():
    assert krippendorff_alpha(frame_from({"a": [1, 2], "b": [None, None]})).undefined == (
        "no item has two judgments"
    )
    assert krippendorff_alpha(frame_from({"a": [2, 2], "b": [2, 2]})).undefined.startswith(
        "only one grade in use"
    )


def test_pair_agreement_counts_and_confusion():
    frame = frame_from({"a": [0, 1, 2, 3, None], "b": [0, 2, 2, 3, 1], "c": [None] * 5})
    pair = pair_agreement(frame, "a", "b")
    assert pair.shared == 4 and pair.percent.value == 0.75
    assert pair.confusion[1][2] == 1 and sum(map(sum, pair.confusion)) == 4
    lonely = pair_agreement(frame, "a", "c")
    assert (
        lonely.shared == 0 and lonely.kappas["quadratic"].undefined == "fewer than two shared items"
    )


def test_bootstrap_interval_brackets_the_value_and_is_reproducible():
    frame = frame_from(random_grades(7, items=60))
    first = bootstrap(frame, krippendorff_alpha, rounds=200, seed=3)
    again = bootstrap(frame, krippendorff_alpha, rounds=200, seed=3)
    assert first == again
    assert first.low <= first.value <= first.high and first.low < first.high


def test_groups_by_slice_and_split_and_stable_json():
    grades = random_grades(9, items=12)
    frame = frame_from(
        grades, slices={0: ["zh"], 1: ["zh", "numeric"], 2: ["en"]}, splits={0: "dev", 3: "dev"}
    )
    by_slice = groups(frame, "slice")
    assert sorted(by_slice) == ["slice:en", "slice:numeric", "slice:zh"]
    assert set(by_slice["slice:numeric"]["query_id"]) == {"q1"}
    assert sorted(groups(frame, "split")) == ["split:dev", "split:test"]
    data = to_json([report(frame, rounds=50)])
    text = json.dumps(data, sort_keys=True)
    assert json.loads(text)[0]["alpha"]["low"] is not None
    assert set(data[0]["pairs"][0]["kappas"]) == {
        "unweighted",
        "linear",
        "quadratic",
        "binary_ge1",
        "binary_ge2",
    }


def test_pair_figures_carry_bootstrap_intervals():
    frame = frame_from(random_grades(11, annotators=2, items=45, missing=0.0))
    pair = report(frame, rounds=100).pairs[0]
    for figure in (pair.percent, *pair.kappas.values()):
        assert figure.low <= figure.value <= figure.high
    plain = report(frame, rounds=0).pairs[0]
    assert plain.kappas["quadratic"].value == pair.kappas["quadratic"].value
    assert plain.kappas["quadratic"].low is None


@pytest.mark.parametrize("kind", ["unweighted", "linear", "quadratic", "binary_ge1", "binary_ge2"])
def test_kappa_from_a_confusion_matrix_is_scikit_learns(kind):
    rng = random.Random(kind)
    a = [rng.choice([0, 1, 2, 3]) for _ in range(60)]
    b = [min(3, max(0, g + rng.choice([-1, 0, 0, 1]))) for g in a]
    x, y, labels, weights = np.array(a), np.array(b), [0, 1, 2, 3], None
    if kind.startswith("binary"):
        cut = int(kind[-1])
        x, y, labels = (x >= cut).astype(int), (y >= cut).astype(int), [0, 1]
    elif kind != "unweighted":
        weights = kind
    expected = cohen_kappa_score(x, y, labels=labels, weights=weights)
    assert kappa(a, b, kind).value == pytest.approx(expected)


def test_the_bootstrap_reweights_queries_as_resampling_them_would():
    """A resample that draws query q w times is the frame with q's rows w times over: the
    figures computed by re-weighting per-query shares equal those on that frame."""
    from annotator.quality.agreement import _shared, pair_statistic

    rng = random.Random(7)
    grades = {name: [rng.choice([0, 1, 2, 3, None]) for _ in range(30)] for name in "abc"}
    frame = frame_from(grades)
    weights = {f"q{i}": rng.choice([0, 1, 2, 3]) for i in range(10)}
    resampled = pd.concat(
        [
            frame[frame["query_id"] == q].assign(query_id=f"{q}#{copy}")
            for q, w in weights.items()
            for copy in range(w)
        ],
        ignore_index=True,
    )
    pairs = lambda f: _shared(f, "a", "b")  # noqa: E731
    cases = [(krippendorff_alpha, lambda f: f)]
    cases += [(pair_statistic(kind), pairs) for kind in ("percent", "linear", "binary_ge2")]
    for statistic, prepare in cases:
        queries, shares = statistic.parts(prepare(frame))
        weighted = np.array([weights[q] for q in queries]) @ shares
        expected = statistic(prepare(resampled)).value
        assert statistic.finish(weighted).value == pytest.approx(expected)


def test_figures_frame_one_row_per_group_and_pair_as_the_reports_say():
    frame = frame_from(random_grades(5, annotators=3, items=30), splits={0: "dev", 1: "dev"})
    reports = [report(part, name, rounds=20) for name, part in groups(frame, "split").items()]
    alpha = figures_frame(reports, "alpha")
    assert alpha["group"].tolist() == ["split:dev", "split:test"]
    assert alpha["pair"].isna().all()
    assert alpha["value"].tolist() == [r.alpha.value for r in reports]
    assert alpha["low"].tolist() == [r.alpha.low for r in reports]
    pairs = figures_frame(reports, "quadratic")
    assert pairs["pair"].tolist() == ["a0 × a1", "a0 × a2", "a1 × a2"] * 2
    expected = [p.kappas["quadratic"] for r in reports for p in r.pairs]
    assert pairs["high"].tolist() == [f.high for f in expected]
    assert figures_frame(reports, "percent")["value"].tolist() == [
        p.percent.value for r in reports for p in r.pairs
    ]


def test_figures_frame_says_why_a_figure_is_undefined_in_the_language_asked():
    frame = frame_from({"a": [1, 2, None], "b": [None, 2, 1]})
    rows = figures_frame([report(frame, rounds=0)], "linear", lang="zh")
    assert rows["value"].isna().all()
    assert rows["undefined"].tolist() == [agreement_figure_text("reason_few_shared", "zh")]
    with pytest.raises(ValueError, match="unknown agreement measure 'kendall'"):
        figures_frame([], "kendall")


def agreement_figure_text(reason: str, lang: str) -> str:
    from pooling.i18n import t

    return t("figure_undefined", lang, reason=t(reason, lang))


def test_confusion_frame_lists_every_pair_of_grades():
    frame = frame_from({"a": [0, 1, 1, 3], "b": [0, 2, 1, 3]})
    cells = confusion_frame(pair_agreement(frame, "a", "b"))
    assert len(cells) == 16 and cells["count"].sum() == 4
    counted = {(r.first, r.second): r.count for r in cells.itertuples() if r.count}
    assert counted == {(0, 0): 1, (1, 2): 1, (1, 1): 1, (3, 3): 1}


def test_every_pair_is_resampled_from_one_draw_of_the_queries():
    """A group's pairs share their bootstrap draws: each round draws the queries where some
    pair shares an item, with replacement, and every pair's interval is the percentiles of
    its figure on exactly that resample of its items (a query drawn twice counts twice)."""
    from annotator.quality.agreement import _shared, pair_statistic

    grades = random_grades(4, annotators=4, items=90, missing=0.4)
    grades["a3"][:45] = [None] * 45  # a3 shares items on the last queries only
    frame = frame_from(grades)
    rounds = 50
    pairs = report(frame, rounds=rounds).pairs
    assert len(pairs) == 6
    queries = sorted(set().union(*(set(_shared(frame, *p.annotators)["query_id"]) for p in pairs)))
    # The draws ``pairs_of_shares`` makes: seed 0, the queries in id order; a query drawn
    # w times weighs w (``test_the_bootstrap_reweights_queries_as_resampling_them_would``).
    drawn = np.random.default_rng(0).integers(0, len(queries), size=(rounds, len(queries)))
    weights = np.array([np.bincount(draw, minlength=len(queries)) for draw in drawn])
    for pair in pairs:
        for kind, figure in [("percent", pair.percent), *pair.kappas.items()]:
            statistic = pair_statistic(kind)
            mine, shares = statistic.parts(_shared(frame, *pair.annotators))
            values = statistic.values(weights[:, np.searchsorted(queries, mine)] @ shares)
            if figure.value is None:
                assert figure.low is None
                continue
            low, high = np.percentile(values[~np.isnan(values)], [2.5, 97.5])
            assert (figure.low, figure.high) == pytest.approx((low, high), abs=1e-12)
