"""Pools for the CLI and the lead's pages: build and top them up, add candidates found
elsewhere, and read what they hold.

Retrieval can take minutes on a large corpus, so it runs between two short transactions
(one that reads the inputs, one that stores the pool) instead of inside one that would
keep annotators waiting.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from annotator.rubric import current_version
from pooling.i18n import LocalizedError
from pooling.pool import Candidate, check_size
from pooling.run import Run
from pooling.systems import RetrievalOptions, build_candidates, parse_systems, run_systems
from storage import pool_records, run_records
from storage.accounts import acting
from storage.catalog import resolve_corpus_version, resolve_query_set
from storage.db import referenced, session_scope
from storage.models import CorpusVersion, QuerySet

ACTIVE_REACH = 12  # an active pool reaches this many times its budget into each system
# The vector encoders the app's build form offers, as ``--encoder`` names them before ":".
ENCODER_KINDS = ("tfidf-svd", "st", "openai")


def encoder_options(
    kind: str, model: str = "", url: str = "", key_variable: str = ""
) -> RetrievalOptions:
    """The app's choice of encoder as the command line's options: ``--encoder`` (``st:`` and
    a model folder, ``openai:`` and a model name), ``--embeddings-url`` and
    ``--api-key-env`` (the variable's name: a key is never typed into the app). Checked by
    ``build_pool`` exactly as the command line's are: a URL or variable given to another
    encoder is refused there, as on the command line, and so is a model given to TF-IDF."""
    model = model.strip()
    return RetrievalOptions(
        encoder="tfidf-svd" if kind == "tfidf-svd" and not model else f"{kind}:{model}",
        embeddings_url=url.strip() or None,
        api_key_env=key_variable.strip() or None,
    )


def _inputs(engine: Engine, specs, query_set: str | None, corpus_version: str | None):
    with session_scope(engine) as session:
        qs = resolve_query_set(query_set, session=session)
        cv = resolve_corpus_version(corpus_version, session=session)
        names = [s.run_name for s in specs if s.kind == "external_run"]
        external = run_records.imported_runs(names, qs, cv, session=session)
        corpus = pool_records.retrieval_corpus(cv, session=session)
        queries = pool_records.query_texts(qs, session=session)
    return qs, cv, corpus, queries, external


def build_pool(
    engine: Engine,
    name: str,
    *,
    systems: str,
    depth: int | None = None,
    budget: int | None = None,
    active: bool = False,
    reach: int | None = None,
    stop_below: float = 1.0,
    fusion: str = "rrf",
    overlap: int = 2,
    query_set: str | None = None,
    corpus_version: str | None = None,
    options: RetrievalOptions = RetrievalOptions(),  # noqa: B008  (frozen, never mutated)
    progress: bool = False,
    by: int | None = None,
) -> pool_records.PoolResult:
    """Build pool ``name`` from ``systems`` (``"bm25,vector,rrf,run:NAME"``): the union of
    each system's top ``depth``, or the ``budget`` best by ``fusion``, or with ``active``
    every system's top ``reach`` (default ``12 × budget``) from which active pooling chooses
    up to ``budget`` per query as judgments arrive, stopping a query early once fewer than
    ``stop_below`` relevant chunks are estimated to remain. ``by`` is the acting lead (None:
    the command line). Raises ``ValueError`` for bad parameters, ``NotFound`` for unknown
    versions or runs and ``Refused`` for an account that is not an enabled lead's, before any
    retrieval starts."""
    if (depth is None) == (budget is None) or (active and budget is None):
        raise LocalizedError("depth_or_budget")
    if stop_below < 0:
        raise LocalizedError("stop_below_negative", value=stop_below)
    if overlap < 1:
        raise LocalizedError("overlap_positive", value=overlap)
    specs = parse_systems(systems)
    options.check()
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        if pool_records.find_pool(name, session=session) is not None:
            raise LocalizedError("pool_exists", name=name)
    qs, cv, corpus, queries, external = _inputs(engine, specs, query_set, corpus_version)
    strategy, size = ("depth", depth) if depth is not None else ("budget", budget)
    settings: dict = {}
    if active and budget is not None:  # an active pool without a budget is refused above
        check_size(budget, "budget")
        strategy, size = "active", reach or ACTIVE_REACH * budget
        settings = {"active": {"budget": budget, "stop_below": stop_below}}
    assert size is not None  # one of depth and budget is given (refused above otherwise)
    candidates, config = build_candidates(
        specs,
        corpus,
        queries,
        external,
        strategy=strategy,
        size=size,
        fusion=fusion,
        options=options,
        progress=progress,
    )
    with session_scope(engine) as session:
        acting(by, "lead", session=session)  # still, after minutes of retrieval
        return pool_records.create_pool(
            name,
            candidates,
            session=session,
            query_set=qs,
            corpus_version=cv,
            config={**config, **settings, "systems_spec": systems},
            overlap=overlap,
            rubric=current_version(),  # the grades that count in it (storage.one_grade)
        )


def topup_pool(
    engine: Engine,
    name: str,
    *,
    systems: str,
    depth: int,
    progress: bool = False,
    by: int | None = None,
) -> pool_records.PoolResult:
    """Add to pool ``name`` the top ``depth`` of ``systems`` that are neither in the pool
    nor judged yet; built-in systems retrieve as the pool was built (same options). ``by``
    is the acting lead (None: the command line)."""
    specs = parse_systems(systems)
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        pool = pool_records.get_pool(name, session=session)
        qs = referenced(QuerySet, pool.query_set_id, session=session)
        cv = referenced(CorpusVersion, pool.corpus_version_id, session=session)
        options = RetrievalOptions.from_dict(pool.config["retrieval"])
    _, _, corpus, queries, external = _inputs(engine, specs, qs.name, cv.name)
    candidates, config = build_candidates(
        specs,
        corpus,
        queries,
        external,
        strategy="depth",
        size=depth,
        options=options,
        progress=progress,
    )
    return add_candidates(engine, name, candidates, {**config, "systems_spec": systems}, by=by)


def add_candidates(
    engine: Engine, name: str, candidates: list[Candidate], config: dict, by: int | None = None
) -> pool_records.PoolResult:
    """Add ``candidates`` (a top-up's, or found elsewhere such as a new run's unjudged
    chunks) to pool ``name``: only those neither in the pool nor judged yet. ``by`` is the
    acting lead (None: the command line)."""
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        pool = pool_records.get_pool(name, session=session)
        return pool_records.topup_pool(
            pool, candidates, session=session, config=config, rubric=current_version()
        )


def system_runs(
    engine: Engine,
    systems: str,
    *,
    query_set: str | None = None,
    corpus_version: str | None = None,
    options: RetrievalOptions = RetrievalOptions(),  # noqa: B008  (frozen, never mutated)
) -> dict[str, Run]:
    """Each of ``systems`` (as ``build_pool`` takes them) ranking the query set's queries
    over the corpus version's chunks, ``options.depth`` deep: the runs a pool is built
    from, to score or to save."""
    specs = parse_systems(systems)
    _, _, corpus, queries, external = _inputs(engine, specs, query_set, corpus_version)
    return run_systems(specs, corpus, queries, external, options)[0]


def pool_names(engine: Engine) -> list[str]:
    """The names of all pools, oldest first."""
    with session_scope(engine) as session:
        return pool_records.pool_names(session=session)


def version_names(engine: Engine) -> tuple[list[str], list[str]]:
    """The names of all query sets and of all corpus versions, newest first."""
    from storage.catalog import version_names as names

    with session_scope(engine) as session:
        return names(session=session)
