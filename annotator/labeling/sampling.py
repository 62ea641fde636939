"""``qrels sample``: choose the queries of a pool that people judge completely, so that a
model judge's grades on every query and people's on these can be combined into metric
estimates with honest intervals (``pooling.estimates``, ``annotator.evaluation.estimation``).
The draw itself is ``pooling.query_sampling``; the sample is recorded (``storage.
sample_records``) and the app hands its queries out first (``annotator.labeling.assignment``).

A pool whose sample people have begun to judge is not drawn again unless the lead says so
and why (``redraw``, ``why``): every draw is kept with its reason and with how many sampled
queries people had judged, travels in releases and is shown with every estimate, so that
drawing until an estimate favours a run cannot go unseen.

The population is the answerable queries of the pool's query set (unanswerable ones are
evaluated apart). By uncertainty, a query's uncertainty is the share of its candidates the
model graded 1 or 2, or did not grade: the grades between "clearly not" and "clearly yes",
where a judge and people part most often and where the relevance threshold is decided.
"""

from __future__ import annotations

import secrets
from collections import Counter

from sqlalchemy.engine import Engine

from pooling import query_sampling
from pooling.i18n import LocalizedError, check_name
from pooling.readers import refuse_control
from storage import history, sample_records
from storage.accounts import acting, get_user
from storage.db import referenced, session_scope, snapshot_scope
from storage.models import QuerySet
from storage.pool_records import get_pool
from storage.release_records import queries_of

BY = ("slice", "uncertainty")
BORDERLINE = (1, 2)  # model grades that leave a candidate uncertain


def uncertainty(
    candidates: dict[str, int], model_grades: list[tuple[str, int]], queries: list[str]
) -> dict[str, float]:
    """Per query, the share of its ``candidates`` (query id -> how many) the model graded
    1 or 2 or not at all (``model_grades``: (query id, grade) per graded candidate); 1 for
    a query without candidates (the model tells nothing about it)."""
    settled = Counter(q for q, grade in model_grades if grade not in BORDERLINE)
    return {q: (1.0 if not candidates.get(q) else 1 - settled[q] / candidates[q]) for q in queries}


def draw_sample(
    engine: Engine,
    pool_name: str,
    queries: str,
    *,
    by: str | None = None,
    seed: int | None = None,
    model: str | None = None,
    lead: int | None = None,
    redraw: bool = False,
    why: str | None = None,
) -> sample_records.SampleRecord:
    """Draw and record a sample of ``queries`` (``"50"`` or ``"20%"``) of the pool's
    answerable queries: uniformly, by ``slice`` (stratified) or by ``uncertainty`` (the
    model judge ``model``'s grades set unequal probabilities); ``seed`` (default: a random
    one, recorded). By the lead ``lead`` (None: the command line). When people have
    judged queries of the pool's sample in force, only with ``redraw`` and a reason
    ``why``, both kept with the draw. Raises ``LocalizedError`` for a size that does not
    fit, an unknown ``by``, a missing or unknown model, a model without grades in the pool,
    a new draw over judged queries without ``redraw`` and ``why``; ``Refused`` for a
    non-lead."""
    if by is not None:
        check_name(by, BY, "what_sample_design")
    if by == "uncertainty" and not model:
        raise LocalizedError("sample_needs_model")
    if redraw and not (why or "").strip():
        raise LocalizedError("sample_redraw_needs_why")
    reason = refuse_control(why, "what_redraw_reason").strip() if why else None
    seed = secrets.randbelow(2**31) if seed is None else seed
    with session_scope(engine) as session:
        user = acting(lead, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        judged = sample_records.judged_sampled_queries(pool, session=session)
        if judged and not redraw:
            raise LocalizedError("sample_redraw_refused", pool=pool_name, judged=judged)
        population = [
            q
            for q in queries_of(
                referenced(QuerySet, pool.query_set_id, session=session), session=session
            )
            if q.answerable
        ]
        ids = [q.query_id for q in population]
        size = query_sampling.sample_size(queries, len(ids))
        config: dict = {}
        if by == "slice":
            strata = {q.query_id: query_sampling.stratum_of(q.slices) for q in population}
            members = query_sampling.stratified(strata, size, seed)
            counts = Counter(strata.values())
            drawn = Counter(m.stratum for m in members)
            config = {"strata": {s: {"queries": counts[s], "drawn": drawn[s]} for s in counts}}
        elif by == "uncertainty" and model:  # a model is required above
            if get_user(model, session=session).kind != "model":
                raise LocalizedError("sample_not_a_model", name=model)
            grades = history.model_candidate_judgments(pool, session=session, model=model)
            if not grades:
                raise LocalizedError("sample_no_model_grades", name=model, pool=pool_name)
            per_query = sample_records.candidates_per_query(pool, session=session)
            unsure = uncertainty(per_query, [(q, g) for _, q, _, g, _ in grades], ids)
            members = query_sampling.by_uncertainty(unsure, size, seed)
            config = {"expected_size": size, "uncertainty": "share of candidates graded 1-2 or not"}
        else:
            members = query_sampling.uniform(ids, size, seed)
        sample_records.record_sample(
            pool,
            members,
            design={"slice": "stratified", "uncertainty": "uncertainty"}.get(by or "", "uniform"),
            requested=queries.strip(),
            population=len(ids),
            seed=seed,
            model=model if by == "uncertainty" else None,
            config=config,
            user=user,
            judged_before=judged,
            reason=reason,
            session=session,
        )
        recorded = sample_records.current_sample(pool, session=session)
        if recorded is None:
            raise LookupError(f"the sample just recorded in {pool_name} is not found")  # a bug
        return recorded


def judged_in_sample(engine: Engine, pool_name: str) -> int:
    """How many queries of the pool's sample in force people have judged: when more than
    none, a new draw needs ``redraw`` and a reason (``draw_sample``)."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        return sample_records.judged_sampled_queries(pool, session=session)


def current(engine: Engine, pool_name: str) -> sample_records.SampleRecord | None:
    """The pool's sample in force, or None."""
    with snapshot_scope(engine) as session:
        return sample_records.current_sample(get_pool(pool_name, session=session), session=session)
