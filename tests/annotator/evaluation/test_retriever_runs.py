"""A retriever function scored directly against a release (``retriever_run``): the same
figures as the same ranking read from a file, every bad result refused with its query
named, and the example in docs/evaluation.md run as it is written."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

from annotator.evaluation import evaluation
from annotator.evaluation.retriever_runs import retriever_run
from annotator.evaluation.run_files import read_run_file
from pooling.i18n import LocalizedError
from pooling.run import Run
from tests.annotator.evaluation.test_evaluation import BASE, BETTER, make_release, settings

ROOT = Path(__file__).resolve().parents[3]


class Pipeline:
    """A team's retriever: query text in, (chunk id, score) pairs or ids out."""

    def __init__(self, release: evaluation.ReleaseData, scores: dict, pairs: bool = True):
        self.by_text = dict(zip(release.queries["text"], release.queries["query_id"], strict=True))
        self.scores, self.pairs = scores, pairs
        self.calls = 0

    def retrieve(self, text: str) -> list:
        self.calls += 1
        ranking = Run(self.scores).ranking(self.by_text[text])
        return ranking if self.pairs else [chunk for chunk, _ in ranking]


@pytest.fixture
def release(tmp_path) -> evaluation.ReleaseData:
    return evaluation.load_release(make_release(tmp_path / "v1"))


@pytest.mark.parametrize("pairs", [True, False])
def test_a_retriever_scores_as_its_run_file_does(release, tmp_path, pairs):
    pipeline = Pipeline(release, BETTER, pairs)
    called = retriever_run(release, pipeline.retrieve, name="better")
    assert pipeline.calls == len(release.queries)  # once per query
    Run(BETTER, "better").save(tmp_path / "better.trec")
    for path in (tmp_path / "better.trec",):
        from_file = evaluation.evaluate(release, [read_run_file(path)], settings())
        from_function = evaluation.evaluate(release, [called], settings())
        columns = ["run", "group", "metric", "queries", "value"]
        assert from_function.summary[columns].equals(from_file.summary[columns])
    assert called.source == "retriever:better" and called.sha256 is None


def test_k_keeps_the_best_of_each_query(release):
    run = retriever_run(release, Pipeline(release, BETTER).retrieve, k=1).run
    assert run.scores["q1"] == {"a#0": 3.0}
    ranked_ids = retriever_run(release, lambda text: ["b#0", "a#0", "c#0"], k=2).run
    assert ranked_ids.ranking("q1") == [("b#0", 3.0), ("a#0", 2.0)]


@pytest.mark.parametrize(
    ("result", "english", "chinese"),
    [
        (
            [("a#0", 1.0), 7],
            "the retriever's result 2 for query 'q1' is 7: expected a chunk id (a string) or a "
            "(chunk id, score) pair",
            "检索器对查询“q1”返回的第 2 个结果是 7：应为片段 id（字符串）或（片段 id, 分数）对",
        ),
        (
            [("a#0", math.nan)],
            "the retriever scored chunk 'a#0' for query 'q1' nan, not a finite number",
            "检索器对查询“q1”给片段“a#0”的分数 nan 不是有限数值",
        ),
        (
            ["a#0", "a#0"],
            "the retriever returned chunk 'a#0' twice for query 'q1'",
            "检索器对查询“q1”两次返回片段“a#0”",
        ),
        (
            None,
            "the retriever's answer for query 'q1' is None (NoneType), not a list of results: "
            "expected chunk ids (strings) best first, or (chunk id, score) pairs",
            "检索器对查询“q1”的回答是 None（NoneType），不是一组结果：应为片段 id（字符串，"
            "最好的在前）或（片段 id, 分数）对",
        ),
        (
            42,
            "the retriever's answer for query 'q1' is 42 (int), not a list of results: "
            "expected chunk ids (strings) best first, or (chunk id, score) pairs",
            "检索器对查询“q1”的回答是 42（int），不是一组结果：应为片段 id（字符串，"
            "最好的在前）或（片段 id, 分数）对",
        ),
        (  # one id, not a run of its characters
            "a#0",
            "the retriever's answer for query 'q1' is 'a#0' (str), not a list of results: "
            "expected chunk ids (strings) best first, or (chunk id, score) pairs",
            "检索器对查询“q1”的回答是 'a#0'（str），不是一组结果：应为片段 id（字符串，"
            "最好的在前）或（片段 id, 分数）对",
        ),
        (
            [("a#0", True)],
            "the retriever's result 1 for query 'q1' is ('a#0', True): expected a chunk id (a "
            "string) or a (chunk id, score) pair",
            "检索器对查询“q1”返回的第 1 个结果是 ('a#0', True)：应为片段 id（字符串）或（片段 "
            "id, 分数）对",
        ),
        (
            [("a#0", np.float32("nan"))],
            "the retriever scored chunk 'a#0' for query 'q1' nan, not a finite number",
            "检索器对查询“q1”给片段“a#0”的分数 nan 不是有限数值",
        ),
        (  # an integer too large for a float
            [("a#0", 10**400)],
            "the retriever scored chunk 'a#0' for query 'q1' inf, not a finite number",
            "检索器对查询“q1”给片段“a#0”的分数 inf 不是有限数值",
        ),
        (
            ["a 0"],
            "the retriever returned the id 'a 0' for query 'q1': an id is not blank and holds "
            "no whitespace",
            "检索器对查询“q1”返回了 id“a 0”：id 不能为空，也不能含空白",
        ),
    ],
)
def test_a_bad_result_is_refused_naming_the_query(release, result, english, chinese):
    with pytest.raises(LocalizedError) as caught:
        retriever_run(release, lambda text: result)
    assert caught.value.message("en") == english
    assert caught.value.message("zh") == chinese


def test_numpy_scores_are_scores(release):
    # What a vector search returns: numpy's floats (and ints), read as the numbers they are.
    answer = [("b#0", np.float32(0.75)), ("a#0", np.float64(0.5)), ("c#0", np.int64(0))]
    run = retriever_run(release, lambda text: answer).run
    assert run.ranking("q1") == [("b#0", 0.75), ("a#0", 0.5), ("c#0", 0.0)]
    ids = retriever_run(release, lambda text: (chunk for chunk in ("c#0", "a#0"))).run
    assert ids.ranking("q1") == [("c#0", 2.0), ("a#0", 1.0)]  # any iterable of results


def test_ids_the_release_does_not_know_are_refused_by_evaluate(release):
    run = retriever_run(release, lambda text: ["nope#0"])
    with pytest.raises(LocalizedError, match="nope#0"):
        evaluation.evaluate(release, [run], settings())


def test_the_example_in_docs_evaluation_runs(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    section = text[text.index("### Scoring a retriever in CI") :]
    (example,) = re.findall(r"```python\n(.*?)```", section, re.S)[:1]
    make_release(tmp_path / "releases" / "v3")
    release = evaluation.load_release(tmp_path / "releases" / "v3")
    (tmp_path / "runs").mkdir()
    Run(BASE, "bm25").save(tmp_path / "runs" / "bm25.trec")
    monkeypatch.chdir(tmp_path)
    namespace = {"pipeline": Pipeline(release, BETTER)}
    exec(compile(example, "docs/evaluation.md", "exec"), namespace)  # noqa: S102
    assert namespace["gated"]["gate"]["passed"]
    # The floor is a real check: a retriever that finds nothing fails it.
    namespace = {"pipeline": Pipeline(release, {q: {"d#0": 1.0} for q in BETTER})}
    with pytest.raises(AssertionError):
        exec(compile(example, "docs/evaluation.md", "exec"), namespace)  # noqa: S102
    assert os.getcwd() == str(tmp_path)


def test_a_mapping_is_chunk_ids_and_their_scores(release):
    # {chunk id: score}, as a search client may return it: iterated, it gave its ids alone
    # in the dict's order, their scores dropped.
    run = retriever_run(release, lambda text: {"a#0": 0.2, "b#0": 0.9}).run
    assert run.ranking("q1") == [("b#0", 0.9), ("a#0", 0.2)]
