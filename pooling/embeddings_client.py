"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (vLLM, Ollama, Text
Embeddings Inference, LiteLLM, hosted APIs) as a vector encoder: ``--encoder openai:MODEL
--embeddings-url URL [--api-key-env VAR]``.

Texts go in batches through ``pooling.http_client`` (no redirect followed, answers capped
in size and time, 429/5xx/time-outs retried with backoff), at most ``rate`` requests a
second. The corpus's vectors are kept on disk like every vector index
(``pooling.retrievers``: per corpus version and encoder config), so a second build or a
top-up asks the server only for the queries. e5-style models want ``"query: "`` and
``"passage: "`` before the texts: both prefixes are settable, and so is a separate model
for the queries.

The key is read from the environment variable named (a name ending in ``_API_KEY``, so
that no other secret of the process can be sent), used only in the ``Authorization``
header, and never kept in the encoder's config (which names the variable), a cache, a
message or a log.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pooling.http_client import (
    KEY_VARIABLE,
    HttpFailure,
    Limits,
    RateLimit,
    api_key,
    check_base_url,
    post_json_retrying,
)
from pooling.i18n import LocalizedError
from pooling.vectors import unit_vectors

LARGEST_ANSWER = 64 * 1024 * 1024  # bytes: 64 vectors of 4,096 floats as JSON is ~6 MB


@dataclass(frozen=True)
class EmbeddingsEndpoint:
    """Where and how to ask: ``url`` up to ``/v1``, the ``model`` (and ``query_model`` for
    queries, when another), the prefixes put before passages and queries, texts per
    request, requests a second at most (None: no limit), tries after a failure, and the
    variable holding the key (the key itself is read when a request is made)."""

    url: str
    model: str
    key_variable: str | None = None
    passage_prefix: str = ""
    query_prefix: str = ""
    query_model: str | None = None
    batch_size: int = 64
    rate: float | None = None
    retries: int = 3
    limits: Limits = field(default_factory=lambda: Limits(60.0, 180.0, LARGEST_ANSWER))

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", check_base_url(self.url))
        if self.key_variable is not None and not KEY_VARIABLE.fullmatch(self.key_variable):
            raise LocalizedError("api_key_variable_name", variable=self.key_variable)
        if self.batch_size < 1:
            raise LocalizedError("embeddings_batch", value=self.batch_size)

    def api_key(self) -> str | None:
        return api_key(self.key_variable)


def embed(
    endpoint: EmbeddingsEndpoint,
    texts: list[str],
    model: str,
    pace: RateLimit | None = None,
    sleep=time.sleep,
) -> np.ndarray:
    """The vectors of ``texts`` from ``model`` at ``endpoint``, one row each, in order.
    Raises ``HttpFailure`` for a request that failed after its tries, and
    ``LocalizedError`` for an answer that is not a list of one vector per text of one
    length with finite numbers."""
    pace = pace or RateLimit(endpoint.rate)
    key = endpoint.api_key()
    rows: list[list[float]] = []
    for start in range(0, len(texts), endpoint.batch_size):
        batch = texts[start : start + endpoint.batch_size]
        pace.wait()
        reply = post_json_retrying(
            f"{endpoint.url}/embeddings",
            {"model": model, "input": batch, "encoding_format": "float"},
            api_key=key,
            limits=endpoint.limits,
            retries=endpoint.retries,
            sleep=sleep,
        )
        try:
            answer = reply.json() if reply.body else None
        except ValueError:  # not JSON (a proxy's page), or a number Python will not read
            raise LocalizedError("embeddings_bad_answer", model=model, what="not JSON") from None
        rows.extend(_vectors(answer, len(batch), model))
    if not rows:
        return np.zeros((0, 0), dtype=np.float32)
    if len({len(row) for row in rows}) != 1:
        raise LocalizedError("embeddings_bad_answer", model=model, what="vectors of two lengths")
    return np.asarray(rows, dtype=np.float32)


def _vectors(answer: object, count: int, model: str) -> list[list[float]]:
    """The answer's vectors in the order of the texts (by their ``index``)."""

    def bad(what: str) -> LocalizedError:
        return LocalizedError("embeddings_bad_answer", model=model, what=what)

    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        found = len(data) if isinstance(data, list) else "no"
        raise bad(f"{found} vectors for {count} texts")
    ordered: list[list[float] | None] = [None] * count
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or ordered[index] is not None:
            raise bad(f"item {position} has no index of its own")
        if (
            not isinstance(vector, list)
            or not vector
            or not all(isinstance(x, int | float) and math.isfinite(x) for x in vector)
        ):
            raise bad(f"item {position} is not a list of finite numbers")
        ordered[index] = vector
    return [row for row in ordered if row is not None]


class OpenAIEncoder:
    """A vector encoder whose vectors come from an OpenAI-compatible endpoint."""

    def __init__(self, endpoint: EmbeddingsEndpoint) -> None:
        self.endpoint = endpoint
        self._pace = RateLimit(endpoint.rate)
        # What the cached vectors depend on: never the key (only its variable's name is
        # known here, and it is not part of the vectors either).
        self.config = {
            "encoder": "openai",
            "url": endpoint.url,
            "model": endpoint.model,
            "passage_prefix": endpoint.passage_prefix,
        }

    def check(self) -> None:
        """Before any request: the key's variable, when one is named, is set."""
        self.endpoint.api_key()

    def _embed(self, texts: list[str], model: str, prefix: str) -> np.ndarray:
        try:
            vectors = embed(self.endpoint, [prefix + text for text in texts], model, self._pace)
        except HttpFailure as failure:
            raise LocalizedError(
                "embeddings_failed", url=self.endpoint.url, model=model, detail=failure.detail
            ) from None
        return unit_vectors(vectors)

    def encode_corpus(self, corpus, folder: Path) -> np.ndarray:
        return self._embed(corpus.texts, self.endpoint.model, self.endpoint.passage_prefix)

    def encode_queries(self, queries: dict[str, str], folder: Path) -> np.ndarray:
        model = self.endpoint.query_model or self.endpoint.model
        vectors = self._embed(list(queries.values()), model, self.endpoint.query_prefix)
        corpus = np.load(folder / "vectors.npy", mmap_mode="r").shape[1]
        if vectors.shape[1] != corpus:  # a query model of another size
            raise LocalizedError(
                "embeddings_dimensions", model=model, found=vectors.shape[1], expected=corpus
            )
        return vectors
