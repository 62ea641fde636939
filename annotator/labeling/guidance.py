"""Active pools guided by a model judge (``pooling.guided``): which model guides a pool,
its chance that each of a query's candidates is relevant, and its agreement with people.
No Streamlit in here; ``annotator.labeling.active_pooling`` asks these when it chooses.

The model's grade is read here only to order the candidates: nothing of it reaches what an
annotator sees (``annotator.labeling.assignment`` hands out a candidate, never why).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

from pooling.guided import Agreement, relevant_chance
from pooling.i18n import LocalizedError, NotFound
from storage.accounts import acting
from storage.active_records import QueryCandidate
from storage.db import session_scope
from storage.history import latest_judgments
from storage.judge_tables import JudgeAnswer
from storage.models import Judgment, Pool, PoolCandidate, User
from storage.pool_records import get_pool

GUIDE = "guide"  # the key of the guiding model's account in an active pool's settings
AGREEMENT_KEPT_SECONDS = 60.0  # the pool's agreement is counted again at most this often
RELEVANT_GRADE = 1

_agreements: dict[tuple[str, int, str], tuple[float, Agreement]] = {}
_agreements_lock = threading.Lock()


def guide_of(pool: Pool) -> str | None:
    """The account name of the model guiding an active pool, or None."""
    return (pool.config.get("active") or {}).get(GUIDE)


def guide_pool(engine: Engine, pool_name: str, model: str | None, by: int | None = None) -> None:
    """Let ``model`` (a model account's name) guide active pool ``pool_name`` from now on,
    or (None) nobody. ``by`` is the acting lead (None: the command line)."""
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        if pool.config.get("strategy") != "active":
            raise LocalizedError("guide_needs_active", name=pool_name)
        if model is not None:
            account = session.exec(select(User).where(User.name == model)).first()
            if account is None:
                raise NotFound("guide_unknown", name=model)
            if account.kind != "model":
                raise LocalizedError("guide_not_model", name=model)
        settings = dict(pool.config["active"])
        settings.pop(GUIDE, None)
        if model is not None:
            settings[GUIDE] = model
        pool.config = {**pool.config, "active": settings}
        flag_modified(pool, "config")
        session.add(pool)


def _model_grades(
    model: str, query_key: int, *, session: Session
) -> dict[int, tuple[int | None, float | None]]:
    """Chunk key -> the model's latest grade of it for the query, with the probability it
    gave that grade (None where the server gave none)."""
    latest = latest_judgments(Judgment.query_id == query_key, User.name == model)
    rows = session.exec(
        select(Judgment.chunk_id, Judgment.grade, JudgeAnswer.probability)
        .join(latest, latest.c.id == Judgment.id)
        .outerjoin(JudgeAnswer, col(JudgeAnswer.judgment_id) == Judgment.id)
    ).all()
    return {chunk_key: (grade, probability) for chunk_key, grade, probability in rows}


def model_chances(
    pool: Pool, query_key: int, candidates: Sequence[QueryCandidate], *, session: Session
) -> list[float] | None:
    """The guiding model's chance that each of ``candidates`` is relevant, in their order;
    None when no model guides the pool."""
    model = guide_of(pool)
    if model is None:
        return None
    grades = _model_grades(model, query_key, session=session)
    return [relevant_chance(*grades.get(c.chunk_key, (None, None))) for c in candidates]


def pool_agreement(pool: Pool, *, session: Session) -> Agreement:
    """The guiding model against people (mean grade >= 1) on every candidate of the pool
    both graded, counted again at most every ``AGREEMENT_KEPT_SECONDS``: the count reads the
    pool's judgments, which must not happen on every key."""
    model = guide_of(pool)
    if model is None:
        return Agreement()
    bind = session.get_bind()
    engine = bind if isinstance(bind, Engine) else bind.engine
    key = (engine.url.render_as_string(hide_password=True), pool.id, model)
    now = time.monotonic()
    with _agreements_lock:
        kept = _agreements.get(key)
    if kept is not None and now - kept[0] < AGREEMENT_KEPT_SECONDS:
        return kept[1]
    agreement = count_agreement(pool, model, session=session)
    with _agreements_lock:
        _agreements[key] = (now, agreement)
    return agreement


def _in_pool(pool: Pool) -> tuple:
    """The join of judgments to ``pool``'s candidates."""
    return (
        PoolCandidate,
        (PoolCandidate.query_id == Judgment.query_id)
        & (PoolCandidate.chunk_id == Judgment.chunk_id),
    )


def _graded(
    pool: Pool, model: str, *, session: Session
) -> dict[tuple[int, int], tuple[bool, bool]]:
    """(query key, chunk key) -> (the model calls it relevant, people do: mean grade >= 1)
    for the pool's candidates both graded."""
    latest = latest_judgments(PoolCandidate.pool_id == pool.id, join=_in_pool(pool))
    rows = session.exec(
        select(Judgment.query_id, Judgment.chunk_id, Judgment.grade, User.name)
        .join(latest, latest.c.id == Judgment.id)
        .join(User, col(User.id) == Judgment.user_id)
        .where(col(Judgment.grade).is_not(None), (User.kind == "human") | (User.name == model))
    ).all()
    people: dict[tuple[int, int], list[int]] = {}
    models: dict[tuple[int, int], bool] = {}
    for query_key, chunk_key, grade, name in rows:
        assert grade is not None  # refused above
        if name == model:  # account names are unique: no person is called so
            models[(query_key, chunk_key)] = grade >= RELEVANT_GRADE
        else:
            people.setdefault((query_key, chunk_key), []).append(grade)
    return {
        pair: (models[pair], sum(grades) / len(grades) >= RELEVANT_GRADE)
        for pair, grades in people.items()
        if pair in models
    }


def count_agreement(pool: Pool, model: str, *, session: Session) -> Agreement:
    """``pool_agreement`` counted now."""
    return Agreement.of(list(_graded(pool, model, session=session).values()))


PROGRESS_POINTS = 200  # at most this many points over time: a chart, not a ledger


def guide_progress(engine: Engine, pool_name: str) -> pd.DataFrame:
    """How a guided pool went over time, one row per point: after ``judged`` candidates
    were first judged by people (the last of them at ``judged_at``), ``relevant_per_100``
    found among them and the model's kappa with people on them (``model_kappa``) with its
    interval
    (``kappa_low``, ``kappa_high``). A candidate counts with its current human grades at
    the time of its first human judgment. Empty when no model guides the pool."""
    columns = ["judged_at", "judged", "relevant_per_100", "model_kappa", "kappa_low", "kappa_high"]
    with session_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        model = guide_of(pool)
        if model is None:
            return pd.DataFrame(columns=columns)
        graded = _graded(pool, model, session=session)
        first = session.exec(
            select(Judgment.query_id, Judgment.chunk_id, func.min(Judgment.created_at))
            .join(*_in_pool(pool))
            .join(User, col(User.id) == Judgment.user_id)
            .where(PoolCandidate.pool_id == pool.id, User.kind == "human")
            .group_by(col(Judgment.query_id), col(Judgment.chunk_id))
        ).all()
    timeline = sorted((at, graded[(q, c)]) for q, c, at in first if (q, c) in graded)
    step = max(1, -(-len(timeline) // PROGRESS_POINTS))
    rows, agreement, relevant = [], Agreement(), 0
    for n, (at, pair) in enumerate(timeline, start=1):
        agreement += Agreement.of([pair])
        relevant += pair[1]
        if n % step == 0 or n == len(timeline):
            kappa, interval = agreement.kappa(), agreement.interval()
            low, high = interval if interval is not None else (None, None)
            rows.append([at, n, 100 * relevant / n, kappa, low, high])
    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype({c: "Float64" for c in columns[2:]})


@dataclass(frozen=True)
class GuideSummary:
    """How a guided pool is doing: its model, the candidates people judged and found
    relevant, the model's agreement with people on them, and the stopping rule's estimate
    of relevant chunks left (summed over the queries that have one)."""

    model: str
    judged: int
    relevant: int
    agreement: Agreement
    remaining: float | None

    @property
    def relevant_per_hundred(self) -> float | None:
        """Relevant chunks found per 100 candidates people judged."""
        return None if self.judged == 0 else 100 * self.relevant / self.judged


def guide_summary(engine: Engine, pool_name: str, status: Sequence) -> GuideSummary | None:
    """The summary of a guided pool, from its ``status`` (``active_pooling.pool_status``);
    None when no model guides it."""
    with session_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        model = guide_of(pool)
        if model is None:
            return None
        agreement = count_agreement(pool, model, session=session)
    estimates = [s.estimate for s in status if s.estimate is not None]
    return GuideSummary(
        model=model,
        judged=sum(s.judged for s in status),
        relevant=sum(s.relevant for s in status),
        agreement=agreement,
        remaining=sum(estimates) if estimates else None,
    )
