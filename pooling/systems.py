"""The systems a pool is built from, named as on the command line: ``bm25``, ``vector``,
a fusion method (``rrf``, ``combsum``, ``combmnz``) over all the other systems listed, and
``run:NAME`` for a run imported with ``qrels import run``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace

from tqdm.auto import tqdm

from pooling.fusion import FUSION, RRF_K, fuse
from pooling.i18n import LocalizedError, check_name
from pooling.pool import STRATEGIES, Candidate, check_size, pool
from pooling.retrievers import BM25Retriever, Corpus, VectorRetriever, encoder_from_spec
from pooling.run import Run
from pooling.tokenize import DEFAULT_TOKENIZER, TokenizerConfig

logger = logging.getLogger(__name__)

# An active pool's systems rank this many times deeper than its reach: a candidate inside
# one system's reach is often ranked by another just beyond it.
ACTIVE_PRIOR_DEPTH = 2
RUN_PREFIX = "run:"
RETRIEVERS = {"bm25": "lexical", "vector": "vector"}
VALID_NAMES = (*RETRIEVERS, *FUSION, f"{RUN_PREFIX}<name>")


@dataclass(frozen=True)
class SystemSpec:
    """A system as named in ``--systems``, and its kind (lexical, vector, fusion,
    external_run)."""

    name: str
    kind: str

    @property
    def run_name(self) -> str:
        """The imported run's name, for ``run:NAME``."""
        return self.name[len(RUN_PREFIX) :]


def parse_systems(text: str) -> list[SystemSpec]:
    """``"bm25,vector,rrf,run:NAME"`` as specs; raises ``ValueError`` for an unknown or
    repeated name, an empty list, or a fusion with fewer than two systems to fuse."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise LocalizedError("no_systems", valid=", ".join(VALID_NAMES))
    specs = []
    for name in names:
        if name in RETRIEVERS:
            specs.append(SystemSpec(name, RETRIEVERS[name]))
        elif name in FUSION:
            specs.append(SystemSpec(name, "fusion"))
        elif name.startswith(RUN_PREFIX) and name[len(RUN_PREFIX) :].strip():
            specs.append(SystemSpec(name, "external_run"))
        else:
            check_name(name, VALID_NAMES, "what_system")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise LocalizedError("system_twice", names=", ".join(repeated))
    bases = [s for s in specs if s.kind != "fusion"]
    if len(bases) < len(specs) and len(bases) < 2:
        raise LocalizedError("fusion_needs_two")
    return specs


OPENAI_PREFIX = "openai:"
# The settings only an ``openai:`` encoder reads, and the option that names each on the
# command line (the app's form reaches them through the same fields).
ENDPOINT_OPTIONS = {
    "embeddings_url": "--embeddings-url",
    "api_key_env": "--api-key-env",
    "passage_prefix": "--passage-prefix",
    "query_prefix": "--query-prefix",
    "query_model": "--query-model",
    "embeddings_batch": "--embeddings-batch",
}


@dataclass(frozen=True)
class RetrievalOptions:
    """How the built-in systems retrieve: tokenizer, vector encoder (``tfidf-svd``,
    ``st:PATH``, ``npy:DIR`` or ``openai:MODEL`` with its endpoint) and its size, how deep
    each system ranks, and the fusion constant. Stored with a pool, so that a top-up
    retrieves the same way."""

    tokenizer: TokenizerConfig = DEFAULT_TOKENIZER
    encoder: str = "tfidf-svd"
    vector_dim: int = 256
    depth: int = 100
    fusion_k: int = RRF_K
    # openai:MODEL: where, the variable holding the key (never the key), prefixes, and a
    # model of its own for the queries (``pooling.embeddings_client``)
    embeddings_url: str | None = None
    api_key_env: str | None = None
    passage_prefix: str = ""
    query_prefix: str = ""
    query_model: str | None = None
    embeddings_batch: int = 64  # texts per request: fewer for a slow (CPU) server

    def embeddings(self) -> dict:
        """The ``EmbeddingsEndpoint`` fields for an ``openai:`` encoder."""
        return {
            "url": self.embeddings_url,
            "key_variable": self.api_key_env,
            "passage_prefix": self.passage_prefix,
            "query_prefix": self.query_prefix,
            "query_model": self.query_model,
            "batch_size": self.embeddings_batch,
        }

    def check(self) -> None:
        """Refuse now what retrieval would refuse minutes later (BM25 runs first): an
        unknown encoder, an ``st:`` folder or library missing, an endpoint's bad URL, key
        variable or batch size, a key variable that is not set; and an endpoint's settings
        given to another encoder, which would read none of them (``ENDPOINT_OPTIONS``).
        ``LocalizedError``; the one check for the command line and the app alike."""
        if not self.encoder.startswith(OPENAI_PREFIX):
            given = [
                option
                for field, option in ENDPOINT_OPTIONS.items()
                if getattr(self, field) != getattr(RetrievalOptions, field)
            ]
            if given:
                raise LocalizedError(
                    "endpoint_options_without_openai",
                    options=", ".join(given),
                    encoder=self.encoder,
                )
        encoder = encoder_from_spec(
            self.encoder, self.tokenizer, self.vector_dim, self.embeddings()
        )
        check = getattr(encoder, "check", None)  # the encoders that can fail late have one
        if check is not None:
            check()

    def to_dict(self) -> dict:
        return {**asdict(self), "tokenizer": self.tokenizer.to_dict()}

    @classmethod
    def from_dict(cls, data: dict) -> RetrievalOptions:
        return cls(**{**data, "tokenizer": TokenizerConfig(**data["tokenizer"])})


def run_systems(
    specs: list[SystemSpec],
    corpus: Corpus,
    queries: Mapping[str, str],
    external: Mapping[str, Run],
    options: RetrievalOptions = RetrievalOptions(),  # noqa: B008  (frozen, never mutated)
    *,
    progress: bool = False,
) -> tuple[dict[str, Run], dict[str, dict]]:
    """Each system's run over ``queries`` at ``options.depth``, keyed by its name, and each
    system's config. ``external`` holds the imported runs by name (without ``run:``).
    Raises ``ValueError`` for a ``run:NAME`` that ``external`` does not hold."""
    missing = [s.run_name for s in specs if s.kind == "external_run" and s.run_name not in external]
    if missing:
        known = ", ".join(sorted(external)) or "-"
        raise LocalizedError("run_unknown", name=missing[0], known=known)
    runs: dict[str, Run] = {}
    configs: dict[str, dict] = {}
    for spec in tqdm(specs, desc="systems", disable=not progress, unit="system"):
        if spec.kind == "fusion":
            continue
        if spec.kind == "external_run":
            run = external[spec.run_name]
            runs[spec.name] = Run(
                {q: dict(run.ranking(q, options.depth)) for q in queries if q in run}, spec.name
            )
            configs[spec.name] = {"kind": "external_run", "run": spec.run_name}
            continue
        retriever: BM25Retriever | VectorRetriever
        if spec.kind == "lexical":
            retriever = BM25Retriever(corpus, options.tokenizer, name=spec.name)
        else:
            encoder = encoder_from_spec(
                options.encoder, options.tokenizer, options.vector_dim, options.embeddings()
            )
            retriever = VectorRetriever(corpus, encoder, name=spec.name, progress=progress)
        logger.info("retrieving with %s for %d queries", spec.name, len(queries))
        runs[spec.name] = retriever.search(dict(queries), options.depth)
        configs[spec.name] = retriever.config
    bases = list(runs.values())
    for spec in specs:
        if spec.kind == "fusion":
            fused = fuse(bases, spec.name, k=options.fusion_k).top(options.depth)
            runs[spec.name] = Run(fused.scores, spec.name)
            configs[spec.name] = {
                "kind": "fusion",
                "method": spec.name,
                "k": options.fusion_k,
                "over": [b.name for b in bases],
            }
    return {s.name: runs[s.name] for s in specs}, {s.name: configs[s.name] for s in specs}


def build_candidates(
    specs: list[SystemSpec],
    corpus: Corpus,
    queries: Mapping[str, str],
    external: Mapping[str, Run],
    *,
    strategy: str,
    size: int,
    fusion: str = "rrf",
    options: RetrievalOptions = RetrievalOptions(),  # noqa: B008  (frozen, never mutated)
    progress: bool = False,
) -> tuple[list[Candidate], dict]:
    """Run the systems and pool their runs with ``strategy`` (``depth``, ``budget`` or
    ``active``, whose ``size`` is its reach) at ``size``; returns the candidates and the
    config to store with the pool. With ``budget`` and ``active`` the fusion is ``fusion``
    over all systems, so fusion methods may not be listed too. Parameters are checked
    before any retrieval starts."""
    check_name(strategy, STRATEGIES, "what_strategy")
    check_size(size, "reach" if strategy == "active" else strategy)
    if strategy != "depth":
        listed = [s.name for s in specs if s.kind == "fusion"]
        if listed:
            raise LocalizedError("budget_no_fusion_systems", names=", ".join(listed))
        check_name(fusion, FUSION, "what_fusion")
    # Each system ranks at least as deep as the pool reaches; for active pooling deeper
    # still, so that the fused rank it starts from hears every system on each candidate.
    deepest = size * (ACTIVE_PRIOR_DEPTH if strategy == "active" else 1)
    options = replace(options, depth=max(options.depth, deepest))
    runs, configs = run_systems(specs, corpus, queries, external, options, progress=progress)
    candidates = pool(runs, strategy, size, fusion=fusion)
    config = {
        "strategy": strategy,
        "size": size,
        "fusion": fusion if strategy != "depth" else None,
        "systems": configs,
        "retrieval": options.to_dict(),
    }
    return candidates, config
