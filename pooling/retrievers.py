"""Retrievers that find candidates: BM25 (bm25s) and dense vectors (numpy, faiss optional).

Each is built once per corpus version and configuration and kept on disk under the cache
folder (``QRELS_CACHE_DIR``, default ``~/.cache/qrels-studio``); a second build with the
same corpus fingerprint and config loads it instead. ``search`` takes queries by id and
returns a ``Run`` holding only chunks with a positive match.

Loading a cached index can run code (a vectorizer is a pickle), so an index is loaded only
from folders and files that belong to this user and that nobody else may write to, from
the cache folder down; anything else is refused with the path and the reason. What this
module writes there is made so (folders 0755 at most, files without group or other write).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from pooling import settings
from pooling.i18n import LocalizedError, check_name, t
from pooling.run import Run
from pooling.tokenize import DEFAULT_TOKENIZER, Tokenizer, TokenizerConfig, pretokenized
from pooling.vectors import unit_vectors

logger = logging.getLogger(__name__)

INDEX_FORMAT = 1  # bump when the on-disk layout or scoring changes


@dataclass(frozen=True)
class Corpus:
    """What retrievers index: chunk ids and texts, and the corpus version's content hash."""

    fingerprint: str
    ids: list[str]
    texts: list[str]


def indexed_text(title: str, text: str) -> str:
    """What retrievers index for a chunk: its document's title, then its text."""
    return f"{title}\n{text}" if title else text


def cache_dir() -> Path:
    """Where indexes are kept: ``$QRELS_CACHE_DIR``, else ``~/.cache/qrels-studio``
    (``pooling.settings``)."""
    return settings.current().cache_dir


def _cache_path(kind: str, fingerprint: str, config: dict) -> Path:
    payload = json.dumps({"format": INDEX_FORMAT, "corpus": fingerprint, **config}, sort_keys=True)
    return cache_dir() / kind / hashlib.sha256(payload.encode()).hexdigest()[:20]


def _cached(path: Path, build: Callable[[Path], None]) -> Path:
    """``path`` if it is complete, else build it in a temporary folder moved into place, so
    that an interrupted build or two processes building at once never leave half an index.
    Raises ``LocalizedError`` when a folder or file on the way is not safe to load from."""
    _make_folders(path.parent)
    if not (path / "complete").exists():
        staging = Path(tempfile.mkdtemp(prefix=path.name + ".", dir=path.parent))
        try:
            build(staging)
            (staging / "complete").write_text("ok")
            _no_write_by_others(staging)
            try:
                staging.rename(path)
            except OSError:  # another process finished first
                if not (path / "complete").exists():
                    shutil.rmtree(path, ignore_errors=True)
                    staging.rename(path)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    check_trusted(path)
    return path


def _make_folders(folder: Path) -> None:
    """``folder`` and the cache folders above it, made 0755 at most where missing (a mode
    given to mkdir is narrowed by the umask, never widened)."""
    root = cache_dir()
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    relative = folder.relative_to(root)
    for level in [*reversed(relative.parents), relative]:
        (root / level).mkdir(mode=0o755, exist_ok=True)


def _no_write_by_others(folder: Path) -> None:
    """Take group and other write permission off what a build wrote (its libraries write
    with the umask, which may leave files group-writable)."""
    for item in [folder, *folder.rglob("*")]:
        mode = item.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & (stat.S_IWGRP | stat.S_IWOTH):
            item.chmod(stat.S_IMODE(mode) & ~(stat.S_IWGRP | stat.S_IWOTH))


def check_trusted(path: Path) -> None:
    """Raise ``LocalizedError`` unless the cache folder, each folder from it down to
    ``path``, and everything in ``path`` belong to this user, are not symbolic links
    (below the cache folder) and cannot be written by anyone else."""
    if not hasattr(os, "getuid"):  # no owners to compare (Windows)
        return
    root = cache_dir()
    chain = [root / level for level in reversed(path.relative_to(root).parents)]
    for item in [*chain, path, *sorted(path.rglob("*"))]:
        details = item.stat() if item == root else item.lstat()
        reason = None
        if details.st_uid != os.getuid():
            reason = t("cache_not_yours", owner=details.st_uid, uid=os.getuid())
        elif stat.S_ISLNK(details.st_mode):
            reason = t("cache_link")
        elif details.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            reason = t("cache_writable", mode=oct(stat.S_IMODE(details.st_mode)))
        if reason:
            raise LocalizedError("cache_untrusted", path=item, reason=reason)


class Retriever(Protocol):
    """Anything that ranks the chunks of one corpus for queries given by id and text."""

    name: str
    config: dict

    def search(self, queries: dict[str, str], k: int) -> Run: ...


def _to_run(
    name: str, query_ids: list[str], ids: list[str], rows: np.ndarray, scores: np.ndarray
) -> Run:
    run: dict[str, dict[str, float]] = {}
    for query_id, row, row_scores in zip(query_ids, rows, scores, strict=True):
        run[query_id] = {ids[i]: float(s) for i, s in zip(row, row_scores, strict=True) if s > 0}
    return Run(run, name)


# -- BM25 -------------------------------------------------------------------------------


class BM25Retriever:
    """BM25 (Lucene variant, k1=1.5, b=0.75) over language-aware tokens, on bm25s."""

    def __init__(
        self,
        corpus: Corpus,
        tokenizer: TokenizerConfig = DEFAULT_TOKENIZER,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        name: str = "bm25",
    ) -> None:
        import bm25s

        self.name = name
        requested = {"tokenizer": tokenizer.to_dict(), "k1": k1, "b": b}
        path = _cache_path("bm25", corpus.fingerprint, requested)

        built = None

        def build(folder: Path) -> None:
            nonlocal built
            tokenize = Tokenizer(tokenizer).resolved(corpus.texts)
            built = bm25s.BM25(k1=k1, b=b)
            # bm25s's own four bars (vocabulary, ids, counts, scores) say nothing a person
            # needs, on every new index: the command's bar over the systems is enough.
            built.index(tokenize(corpus.texts), show_progress=False)
            built.save(folder, show_progress=False)
            meta = {"ids": corpus.ids, "tokenizer": tokenize.config.to_dict()}
            (folder / "qrels.json").write_text(json.dumps(meta, ensure_ascii=False))

        self.path = _cached(path, build)
        meta = json.loads((self.path / "qrels.json").read_text())
        self.ids: list[str] = meta["ids"]
        self._tokenizer = Tokenizer(TokenizerConfig(**meta["tokenizer"]))
        self.index = built or bm25s.BM25.load(self.path, show_progress=False)
        # The config as resolved: "auto" language replaced by the one detected.
        self.config = {"kind": "lexical", **requested, "tokenizer": meta["tokenizer"]}

    def search(self, queries: dict[str, str], k: int) -> Run:
        query_ids = list(queries)
        tokens = [self._tokenizer.tokens(queries[q]) for q in query_ids]
        k = min(k, len(self.ids))
        answerable = [i for i, t in enumerate(tokens) if t]
        run = Run({q: {} for q in query_ids}, self.name)
        if answerable and k > 0:
            rows, scores = self.index.retrieve(
                [tokens[i] for i in answerable], k=k, show_progress=False, n_threads=1
            )
            found = _to_run(self.name, [query_ids[i] for i in answerable], self.ids, rows, scores)
            run.scores.update(found.scores)
        return run


# -- dense vectors ----------------------------------------------------------------------


class Encoder(Protocol):
    """Turns texts (or ids, for precomputed vectors) into unit vectors."""

    config: dict

    def encode_corpus(self, corpus: Corpus, folder: Path) -> np.ndarray: ...

    def encode_queries(self, queries: dict[str, str], folder: Path) -> np.ndarray: ...


# Vectorizers pickled in caches built before ``pretokenized`` name their analyzer so.
_identity = pretokenized


class TfidfSvdEncoder:
    """The built-in default: TF-IDF over the same tokens as BM25, reduced with TruncatedSVD
    (latent semantic indexing). Needs no download and works offline in both languages."""

    def __init__(
        self, tokenizer: TokenizerConfig = DEFAULT_TOKENIZER, dim: int = 256, seed: int = 0
    ):
        self.tokenizer, self.dim, self.seed = tokenizer, dim, seed
        self.config = {
            "encoder": "tfidf-svd",
            "tokenizer": tokenizer.to_dict(),
            "dim": dim,
            "seed": seed,
        }

    def encode_corpus(self, corpus: Corpus, folder: Path) -> np.ndarray:
        import joblib
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        tokenizer = Tokenizer(self.tokenizer).resolved(corpus.texts)
        tfidf = TfidfVectorizer(analyzer=pretokenized, sublinear_tf=True, min_df=1)
        matrix = tfidf.fit_transform(tokenizer(corpus.texts))
        dim = max(1, min(self.dim, matrix.shape[0] - 1, matrix.shape[1] - 1))
        svd = TruncatedSVD(n_components=dim, random_state=self.seed)
        vectors = svd.fit_transform(matrix)
        joblib.dump((tokenizer.config, tfidf, svd), folder / "model.joblib")
        return unit_vectors(vectors)

    def encode_queries(self, queries: dict[str, str], folder: Path) -> np.ndarray:
        import joblib

        config, tfidf, svd = joblib.load(folder / "model.joblib")
        tokenizer = Tokenizer(config)
        return unit_vectors(svd.transform(tfidf.transform(tokenizer(queries.values()))))


class SentenceTransformerEncoder:
    """A sentence-transformers model loaded from a local folder (no download)."""

    def __init__(self, model_path: str | Path, batch_size: int = 64):
        self.model_path, self.batch_size = Path(model_path), batch_size
        self.config = {"encoder": "sentence-transformers", "model": str(self.model_path.resolve())}
        self._model = None

    def check(self) -> None:
        """What loading would refuse, found without loading (torch takes seconds to import):
        the library missing or no model folder; ``LocalizedError``."""
        if importlib.util.find_spec("sentence_transformers") is None:
            raise LocalizedError(
                "needs_install", what="sentence-transformers", package="'qrels-studio[st]'"
            )
        if not self.model_path.is_dir():
            raise LocalizedError("st_model_missing", path=self.model_path)

    def _load(self):
        if self._model is None:
            self.check()
            from sentence_transformers import SentenceTransformer

            # local_files_only: a folder on disk, never a name looked up on a model hub.
            self._model = SentenceTransformer(
                str(self.model_path), device="cpu", local_files_only=True
            )
        return self._model

    def _encode(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        return unit_vectors(
            model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True)
        )

    def encode_corpus(self, corpus: Corpus, folder: Path) -> np.ndarray:
        return self._encode(corpus.texts)

    def encode_queries(self, queries: dict[str, str], folder: Path) -> np.ndarray:
        return self._encode(list(queries.values()))


class PrecomputedEncoder:
    """Embeddings computed elsewhere: ``chunks.npy`` with ``chunk_ids.txt`` (one id a line, in
    the rows' order) and ``queries.npy`` with ``query_ids.txt``, in one folder."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        digest = hashlib.sha256()
        for name in ("chunks.npy", "chunk_ids.txt"):
            digest.update(self._file(name).read_bytes())
        self.config = {"encoder": "precomputed", "chunks_sha256": digest.hexdigest()}

    def _file(self, name: str) -> Path:
        path = self.folder / name
        if not path.is_file():
            raise FileNotFoundError(t("embeddings_missing", path=path))
        return path

    def _load(self, vectors: str, ids: str) -> dict[str, np.ndarray]:
        matrix = np.load(self._file(vectors))
        names = self._file(ids).read_text(encoding="utf-8").split()
        if matrix.ndim != 2 or len(names) != matrix.shape[0]:
            raise LocalizedError(
                "embeddings_shape",
                path=self.folder / vectors,
                shape=matrix.shape,
                count=len(names),
                ids=ids,
            )
        return dict(zip(names, unit_vectors(matrix), strict=True))

    def encode_corpus(self, corpus: Corpus, folder: Path) -> np.ndarray:
        by_id = self._load("chunks.npy", "chunk_ids.txt")
        missing = [c for c in corpus.ids if c not in by_id]
        if missing:
            raise LocalizedError(
                "embeddings_without", count=len(missing), what="@kind_chunks", example=missing[0]
            )
        return np.stack([by_id[c] for c in corpus.ids])

    def encode_queries(self, queries: dict[str, str], folder: Path) -> np.ndarray:
        by_id = self._load("queries.npy", "query_ids.txt")
        missing = [q for q in queries if q not in by_id]
        if missing:
            raise LocalizedError(
                "embeddings_without", count=len(missing), what="@kind_queries", example=missing[0]
            )
        return np.stack([by_id[q] for q in queries])


class VectorRetriever:
    """Cosine similarity between unit vectors: brute force with numpy in batches (exact, fine
    up to a few million chunks), or faiss's exact inner-product index when asked for."""

    def __init__(
        self,
        corpus: Corpus,
        encoder: Encoder | None = None,
        *,
        name: str = "vector",
        backend: str = "numpy",
        progress: bool = False,
    ) -> None:
        check_name(backend, ("numpy", "faiss"), "what_backend")
        self.name, self.backend = name, backend
        self.encoder = encoder or TfidfSvdEncoder()
        self.config = {"kind": "vector", **self.encoder.config}
        path = _cache_path("vector", corpus.fingerprint, self.encoder.config)

        def build(folder: Path) -> None:
            np.save(folder / "vectors.npy", self.encoder.encode_corpus(corpus, folder))
            (folder / "ids.json").write_text(json.dumps(corpus.ids))

        self.path = _cached(path, build)
        self.ids: list[str] = json.loads((self.path / "ids.json").read_text())
        self.vectors = np.load(self.path / "vectors.npy", mmap_mode="r")
        self._faiss_index = None

    def search(self, queries: dict[str, str], k: int, batch: int = 64) -> Run:
        query_ids = list(queries)
        if not query_ids:
            return Run({}, self.name)
        matrix = self.encoder.encode_queries(queries, self.path)
        k = min(k, len(self.ids))
        if self.backend == "faiss":
            scores, rows = self._faiss().search(np.ascontiguousarray(matrix), k)
            return _to_run(self.name, query_ids, self.ids, rows, scores)
        all_rows, all_scores = [], []
        for start in range(0, len(query_ids), batch):
            similarity = matrix[start : start + batch] @ self.vectors.T
            top = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
            top_scores = np.take_along_axis(similarity, top, axis=1)
            order = np.argsort(-top_scores, axis=1, kind="stable")
            all_rows.append(np.take_along_axis(top, order, axis=1))
            all_scores.append(np.take_along_axis(top_scores, order, axis=1))
        return _to_run(self.name, query_ids, self.ids, np.vstack(all_rows), np.vstack(all_scores))

    def _faiss(self):
        if self._faiss_index is None:
            try:
                import faiss
            except ImportError as exc:
                raise ImportError(t("needs_install", what="faiss", package="faiss-cpu")) from exc
            self._faiss_index = faiss.IndexFlatIP(self.vectors.shape[1])
            self._faiss_index.add(np.ascontiguousarray(self.vectors, dtype=np.float32))
        return self._faiss_index


ENCODERS = ("tfidf-svd", "st:<model folder>", "npy:<embeddings folder>", "openai:<model>")


def encoder_from_spec(
    spec: str,
    tokenizer: TokenizerConfig = DEFAULT_TOKENIZER,
    dim: int = 256,
    embeddings: dict | None = None,
) -> Encoder:
    """An encoder from its name on the command line: ``tfidf-svd`` (built in, the default),
    ``st:PATH`` (a sentence-transformers model folder), ``npy:DIR`` (precomputed) or
    ``openai:MODEL`` (an OpenAI-compatible endpoint; ``embeddings`` holds the
    ``EmbeddingsEndpoint`` fields other than the model: ``url`` at least)."""
    if spec.startswith("openai:") and spec[7:]:
        from pooling.embeddings_client import EmbeddingsEndpoint, OpenAIEncoder

        settings = {k: v for k, v in (embeddings or {}).items() if v is not None}
        if not settings.get("url"):
            raise LocalizedError("embeddings_needs_url")
        return OpenAIEncoder(EmbeddingsEndpoint(model=spec[7:], **settings))
    if spec == "tfidf-svd":
        return TfidfSvdEncoder(tokenizer, dim)
    if spec.startswith("tfidf-svd:"):  # the app's form: a model typed with TF-IDF chosen
        raise LocalizedError("tfidf_takes_no_model", model=spec[len("tfidf-svd:") :])
    if spec.startswith("st:") and spec[3:]:
        return SentenceTransformerEncoder(spec[3:])
    if spec.startswith("npy:") and spec[4:]:
        return PrecomputedEncoder(spec[4:])
    check_name(spec, ENCODERS, "what_encoder")
    raise AssertionError("unreachable")
