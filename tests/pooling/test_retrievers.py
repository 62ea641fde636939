"""Each retriever on a small bilingual fixture, and the on-disk index cache."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import pooling.retrievers as retrievers
from pooling.i18n import LocalizedError
from pooling.retrievers import (
    BM25Retriever,
    Corpus,
    PrecomputedEncoder,
    SentenceTransformerEncoder,
    TfidfSvdEncoder,
    VectorRetriever,
    encoder_from_spec,
)
from pooling.systems import RetrievalOptions, parse_systems, run_systems
from pooling.tokenize import TokenizerConfig

QUERIES = {"zh": "绿茶怎么冷藏保存", "en": "how often should brake pads be replaced", "none": "的"}


def test_bm25_finds_the_right_chunk_in_both_languages(corpus):
    run = BM25Retriever(corpus).search(QUERIES, k=3)
    assert run.ranking("zh")[0][0] == "tea-1"
    assert run.ranking("en")[0][0] == "bike-1"
    assert run.ranking("none") == []  # only a stopword: nothing retrieved, no error
    assert all(score > 0 for _, score in run.ranking("en"))


def test_bm25_config_records_the_detected_language(corpus):
    retriever = BM25Retriever(corpus)
    assert retriever.config["tokenizer"]["language"] == "mixed"
    assert retriever.config["kind"] == "lexical"


def test_index_is_built_once_and_loaded_from_the_cache(corpus, monkeypatch, index_cache):
    first = BM25Retriever(corpus)
    calls = []
    monkeypatch.setattr(retrievers.Tokenizer, "resolved", lambda self, texts: calls.append(1))
    second = BM25Retriever(corpus)
    assert calls == [] and second.path == first.path
    assert (first.path / "complete").exists() and first.path.is_relative_to(index_cache)


def test_a_pool_build_shows_no_bars_of_bm25s(corpus, index_cache, capfd):
    # A new index, as on the first build of a corpus version: the command's own bar over
    # the systems, none of bm25s's four.
    specs = parse_systems("bm25")
    run_systems(specs, corpus, QUERIES, {}, RetrievalOptions(), progress=True)
    shown = capfd.readouterr().err
    assert "systems" in shown and "BM25S" not in shown


def test_another_config_or_corpus_gets_another_index(corpus):
    base = BM25Retriever(corpus).path
    assert BM25Retriever(corpus, TokenizerConfig(chinese="bigram")).path != base
    changed = Corpus("fixture-v2", corpus.ids, corpus.texts)
    assert BM25Retriever(changed).path != base


def test_tfidf_svd_vectors_find_related_chunks(corpus):
    retriever = VectorRetriever(corpus, TfidfSvdEncoder(dim=4))
    run = retriever.search(QUERIES, k=2)
    assert run.ranking("en")[0][0] in {"bike-1", "bike-2"}
    assert run.ranking("zh")[0][0] in {"tea-1", "tea-2"}
    assert retriever.vectors.shape == (6, 4)
    assert np.allclose(np.linalg.norm(retriever.vectors, axis=1), 1, atol=1e-5)


def test_precomputed_embeddings(corpus, tmp_path):
    folder = tmp_path / "emb"
    folder.mkdir()
    vectors = np.eye(6, dtype=np.float32)
    np.save(folder / "chunks.npy", vectors)
    (folder / "chunk_ids.txt").write_text("\n".join(corpus.ids))
    np.save(folder / "queries.npy", np.array([[0, 0, 0, 1, 0.5, 0]], dtype=np.float32))
    (folder / "query_ids.txt").write_text("en\n")
    run = VectorRetriever(corpus, PrecomputedEncoder(folder)).search({"en": "ignored"}, k=2)
    assert [c for c, _ in run.ranking("en")] == ["bike-1", "bike-2"]
    with pytest.raises(ValueError, match="1 queries have no precomputed vector, e.g. zh"):
        VectorRetriever(corpus, PrecomputedEncoder(folder)).search({"zh": "x"}, k=2)


def test_precomputed_embeddings_must_match_their_ids(corpus, tmp_path):
    np.save(tmp_path / "chunks.npy", np.eye(3, dtype=np.float32))
    (tmp_path / "chunk_ids.txt").write_text("a\nb\n")
    with pytest.raises(ValueError, match=r"shape \(3, 3\) does not match the 2 ids"):
        VectorRetriever(corpus, PrecomputedEncoder(tmp_path))


def test_sentence_transformers_is_optional(tmp_path):
    encoder = SentenceTransformerEncoder(tmp_path / "no-model")
    # Found by check() before any retrieval (RetrievalOptions.check), and again on loading.
    if importlib.util.find_spec("sentence_transformers") is None:
        expected = r"pip install 'qrels-studio\[st\]'"
    else:
        expected = "no sentence-transformers model"
    for found_by in (
        encoder.check,
        encoder._load,
        RetrievalOptions(encoder=f"st:{tmp_path}/no-model").check,
    ):
        with pytest.raises(LocalizedError, match=expected):
            found_by()


def test_faiss_is_an_optional_accelerator(corpus):
    retriever = VectorRetriever(corpus, TfidfSvdEncoder(dim=4), backend="faiss")
    try:
        import faiss  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install faiss-cpu"):
            retriever.search(QUERIES, k=2)
    else:
        numpy_run = VectorRetriever(corpus, TfidfSvdEncoder(dim=4)).search(QUERIES, k=2)
        assert retriever.search(QUERIES, k=2).scores.keys() == numpy_run.scores.keys()


def test_encoder_names(monkeypatch):
    assert isinstance(encoder_from_spec("tfidf-svd"), TfidfSvdEncoder)
    assert isinstance(encoder_from_spec("st:/models/x"), SentenceTransformerEncoder)
    with pytest.raises(ValueError, match="unknown vector encoder 'bert'; valid: tfidf-svd"):
        encoder_from_spec("bert")
    with pytest.raises(ValueError, match="unknown vector backend 'annoy'"):
        VectorRetriever(Corpus("x", ["a", "b", "c"], ["a b", "b c", "c d"]), backend="annoy")
