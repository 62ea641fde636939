"""Active pools: which candidate of a query is judged next, and where each query stands
against its stopping rule. No Streamlit in here: the assignment of work
(``annotator.labeling.assignment``), the CLI and the lead's pages call these.

A candidate counts as relevant for learning when the mean of its human grades is at least
1; what annotators see never says why an item was chosen.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotator.labeling import guidance
from pooling.guided import Agreement, GuidedLearner, guided_estimate, model_weight
from pooling.learner import QueryLearner, StoppingRule, estimate_remaining
from pooling.tokenize import Tokenizer, TokenizerConfig
from storage import active_records
from storage.catalog import query_keys
from storage.db import referenced, snapshot_scope
from storage.models import Pool, Query, QuerySet
from storage.pool_records import get_pool
from storage.sample_records import is_sampled, sampled_query_keys

RELEVANT_GRADE = 1
SAMPLE = "sample"  # why a sampled query's candidate was asked about
COMPLETE = "complete"  # a sampled query: every candidate asked about, whatever the budget


def stopping_rule(pool: Pool) -> StoppingRule:
    settings = pool.config["active"]
    return StoppingRule(budget=settings["budget"], below=settings["stop_below"])


def _relevant(grades: list[int]) -> bool:
    return sum(grades) / len(grades) >= RELEVANT_GRADE


@dataclass(frozen=True)
class QueryStatus:
    """One query of an active pool: candidates it may reach, chosen so far, judged, found
    relevant, the estimated relevant ones left among the unjudged, why it stopped
    (``budget``, ``estimate``, ``exhausted``, ``complete``) or None while it goes on, and
    how many it is to choose in all: the budget (or its candidates, if fewer), every
    candidate for a query of the pool's sample in force (``sampled``)."""

    query_id: str
    candidates: int
    chosen: int
    judged: int
    relevant: int
    estimate: float | None
    stopped: str | None
    target: int
    sampled: bool = False

    @property
    def state(self) -> str:
        """``open`` while the query goes on, else why it stopped."""
        return self.stopped or "open"


def _status(
    pool: Pool,
    query_id: str,
    candidates: list[active_records.QueryCandidate],
    guide: tuple[list[float], float] | None = None,
    sampled: bool = False,
) -> QueryStatus:
    """``guide``: the guiding model's chances per candidate and its weight, for the
    stopping rule to hear it (``pooling.guided``). A ``sampled`` query is judged completely:
    neither the budget nor the estimate stops it (``evaluate --estimate`` needs that)."""
    asked = sorted(
        (
            (c.first_assignment, i)
            for i, c in enumerate(candidates)
            if c.chosen and c.grades and c.first_assignment is not None
        ),
    )  # each one asked has its first assignment: the order they were asked in
    outcomes = [_relevant(candidates[i].grades) for _, i in asked]
    if guide is None:
        estimate = _estimate(tuple(outcomes), len(candidates))
    else:
        chances, weight = guide
        strata = tuple(chances[i] >= 0.5 for _, i in asked)
        estimate = _guided_estimate(
            tuple(outcomes), strata, sum(ch >= 0.5 for ch in chances), len(candidates), weight
        )
    chosen = sum(c.chosen for c in candidates)
    rule = stopping_rule(pool)
    if sampled:
        stopped = COMPLETE if chosen >= len(candidates) else None
    else:
        stopped = rule.reason(chosen, estimate, len(candidates))
    return QueryStatus(
        query_id=query_id,
        candidates=len(candidates),
        chosen=chosen,
        judged=len(outcomes),
        relevant=sum(outcomes),
        estimate=estimate,
        stopped=stopped,
        target=len(candidates) if sampled else min(rule.budget, len(candidates)),
        sampled=sampled,
    )


@lru_cache(maxsize=4096)
def _estimate(outcomes: tuple[bool, ...], candidates: int) -> float | None:
    """``estimate_remaining``, kept: a query's status is asked for far more often than its
    judgments change."""
    return estimate_remaining(outcomes, candidates)


@lru_cache(maxsize=4096)
def _guided_estimate(
    outcomes: tuple[bool, ...],
    strata: tuple[bool, ...],
    favoured: int,
    candidates: int,
    weight: float,
) -> float | None:
    """``pooling.guided.guided_estimate``, kept as ``_estimate`` is."""
    return guided_estimate(outcomes, strata, favoured, candidates, weight)


LEARNERS_KEPT = 32
TOKENS_KEPT = 20_000  # chunks whose tokens stay in memory: a chunk shared by queries is cut once
# Streamlit serves each session in a thread of one process: the learners are shared under a
# lock, tokenizers (a stemmer keeps state) are one per thread.
_learners: OrderedDict[tuple, QueryLearner] = OrderedDict()
_learners_lock = threading.Lock()
_per_thread = threading.local()


def _tokenizer(config: TokenizerConfig) -> Tokenizer:
    kept = _per_thread.__dict__.setdefault("tokenizers", {})
    if config not in kept:
        kept[config] = Tokenizer(config)
    return kept[config]


@lru_cache(maxsize=TOKENS_KEPT)
def _chunk_tokens(config: TokenizerConfig, chunk_key: int, text: str) -> list[str]:
    return _tokenizer(config).tokens(text)


def _learner(pool: Pool, query: Query, ids: tuple[int, ...], session: Session) -> QueryLearner:
    """The query's learner, kept while its candidates stay the same; their texts are read
    and tokenized (Chinese tokenization the dearest part) only when it is made."""
    bind = session.get_bind()
    engine = bind if isinstance(bind, Engine) else bind.engine
    database = engine.url.render_as_string(hide_password=True)
    key = (database, pool.id, query.id, ids)
    with _learners_lock:
        learner = _learners.get(key)
        if learner is not None:
            _learners.move_to_end(key)
            return learner
    chunks = active_records.candidate_texts(pool, query.id, session=session)
    texts = [chunks[i][1] for i in ids]
    config = TokenizerConfig(**pool.config["retrieval"]["tokenizer"])
    config = _tokenizer(config).resolved(texts).config
    documents = [_chunk_tokens(config, *chunks[i]) for i in ids]
    learner = QueryLearner(_tokenizer(config).tokens(query.text), documents)
    with _learners_lock:
        _learners[key] = learner
        while len(_learners) > LEARNERS_KEPT:
            _learners.popitem(last=False)  # the least recently used
    return learner


def choose_next(pool: Pool, query_key: int, *, session: Session) -> int | None:
    """Choose the query's next candidate from the judgments so far and ask for it (the
    candidate id), or None when the query's stopping rule says stop. The transaction must
    hold ``storage.active_records.lock``."""
    query = referenced(Query, query_key, session=session)
    candidates = active_records.query_candidates(pool, query_key, session=session)
    labels = {i: _relevant(c.grades) for i, c in enumerate(candidates) if c.grades}
    sampled = is_sampled(pool, query_key, session=session)
    guided = None if sampled else _guide(pool, query, candidates, labels, session)
    if _status(pool, query.query_id, candidates, guided, sampled).stopped:
        return None
    learner = _learner(pool, query, tuple(c.candidate_id for c in candidates), session)
    if guided is not None:
        chances, weight = guided
        chosen = {i for i, c in enumerate(candidates) if c.chosen}
        pick = GuidedLearner(learner, chances).choose(labels, chosen, weight)
        if pick is None:
            return None
        i, why = pick
        active_records.choose(pool, candidates[i].candidate_id, session=session, reason=why)
        return candidates[i].candidate_id
    # a sampled query is judged completely and unguided, in the learner's order (people's
    # grades only), so that estimates keep their guarantees (docs/estimates.md)
    reason = SAMPLE if sampled else None
    for i in learner.order(labels):
        if not candidates[i].chosen:
            active_records.choose(pool, candidates[i].candidate_id, session=session, reason=reason)
            return candidates[i].candidate_id
    return None


def _guide(
    pool: Pool,
    query: Query,
    candidates: list[active_records.QueryCandidate],
    labels: Mapping[int, bool],
    session: Session,
) -> tuple[list[float], float] | None:
    """The guiding model's chances for the query's candidates and its weight; None when no
    model guides the pool. Not asked for a sampled query (judged unguided)."""
    chances = guidance.model_chances(pool, query.id, candidates, session=session)
    if chances is None:
        return None
    here = Agreement.of([(chances[i] >= 0.5, y) for i, y in labels.items()])
    return chances, model_weight(here, guidance.pool_agreement(pool, session=session))


def pool_status(engine: Engine, pool_name: str) -> list[QueryStatus]:
    """Every query of an active pool against its stopping rule, by query id."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        keys = query_keys(referenced(QuerySet, pool.query_set_id, session=session), session=session)
        sampled = sampled_query_keys(pool, session=session)
        status = []
        for query_id, key in sorted(keys.items()):
            candidates = active_records.query_candidates(pool, key, session=session)
            labels = {i: _relevant(c.grades) for i, c in enumerate(candidates) if c.grades}
            query = referenced(Query, key, session=session)
            guided = None if key in sampled else _guide(pool, query, candidates, labels, session)
            status.append(_status(pool, query_id, candidates, guided, key in sampled))
        return status
