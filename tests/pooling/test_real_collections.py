"""On CMRC 2018 (Chinese), default BM25 puts the known relevant passage in the top 10 for at
least 99% of queries, where splitting on whitespace finds almost none."""

from __future__ import annotations

import pytest

from pooling.collection import read_collection
from pooling.retrievers import BM25Retriever, Corpus
from pooling.tokenize import Tokenizer

pytestmark = pytest.mark.datasets


def load(folder):
    collection = read_collection(folder)
    queries = {q.query_id: q.text for q in collection.queries}
    return collection.retrieval_corpus("cmrc-test"), queries, collection.relevant


def hit_rate(run, relevant, k=10):
    hits = [bool(set(dict(run.ranking(q, k))) & chunks) for q, chunks in relevant.items()]
    return sum(hits) / len(hits)


def test_cmrc_bm25_top10_with_default_settings(datasets):
    corpus, queries, relevant = load(datasets / "cmrc2018-dev")
    retriever = BM25Retriever(corpus)
    assert retriever.config["tokenizer"]["language"] == "zh"
    assert hit_rate(retriever.search(queries, 10), relevant) >= 0.99


def test_cmrc_whitespace_tokens_find_almost_nothing(datasets, monkeypatch):
    corpus, queries, relevant = load(datasets / "cmrc2018-dev")
    monkeypatch.setattr(Tokenizer, "tokens", lambda self, text: text.lower().split())
    retriever = BM25Retriever(Corpus("cmrc-whitespace", corpus.ids, corpus.texts))
    assert hit_rate(retriever.search(queries, 10), relevant) < 0.3
