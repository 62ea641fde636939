"""Judgments and adjudications: append-only history, and what counts now.

A judgment or an adjudication is never updated: a later one supersedes an earlier one.
**A user's current grade** on a (query, chunk) is their latest judgment of it (the highest
id) among the judgments in question; ``latest_judgments`` is that one definition, filtered
as each caller needs (a pool's candidates, one annotator, one assignment). A candidate's
final decision is the lead's latest adjudication of it. Every function takes a keyword-only
``session``; only ``adjudicate`` writes.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import Subquery, func
from sqlmodel import Session, select

from pooling.grades import check_grade
from pooling.i18n import LocalizedError
from storage.catalog import chunk_keys, query_keys
from storage.models import (
    Adjudication,
    Assignment,
    Chunk,
    CorpusVersion,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    User,
)

JUDGMENT_COLUMNS = [
    "annotator",
    "query_id",
    "chunk_id",
    "grade",
    "unsure",
    "note",
    "slices",
    "split",
    "created_at",
]


def latest_judgments(*where, join: tuple = ()) -> Subquery:
    """The ids (column ``id``) of each user's latest judgment per (query, chunk), among the
    judgments matching ``where``, which may name ``User`` columns and ``join``'s (a table and
    its on-clause). Judgments are append-only history: the latest one is the one that counts."""
    latest = select(func.max(Judgment.id).label("id")).join(User, User.id == Judgment.user_id)
    if join:
        latest = latest.join(*join)
    return (
        latest.where(*where)
        .group_by(Judgment.user_id, Judgment.query_id, Judgment.chunk_id)
        .subquery()
    )


def candidate_judgments(pool: Pool, *, session: Session) -> list[tuple]:
    """Each human annotator's current judgment (their latest) on each of the pool's
    candidates, from the app or imported; model judges are left out. Rows follow
    ``JUDGMENT_COLUMNS``."""
    latest = latest_judgments(
        User.kind == "human",
        PoolCandidate.pool_id == pool.id,
        join=(
            PoolCandidate,
            (PoolCandidate.query_id == Judgment.query_id)
            & (PoolCandidate.chunk_id == Judgment.chunk_id),
        ),
    )
    rows = session.exec(
        select(
            User.name,
            Query.query_id,
            Chunk.chunk_id,
            Judgment.grade,
            Judgment.unsure,
            Judgment.note,
            Query.slices,
            Query.split,
            Judgment.created_at,
        )
        .join(latest, latest.c.id == Judgment.id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .order_by(Query.query_id, Chunk.chunk_id, User.name)
    ).all()
    return [tuple(row) for row in rows]


def current_judgment(assignment: Assignment, *, session: Session) -> Judgment | None:
    """The current grade on an assignment (earlier ones stay in the history)."""
    latest = latest_judgments(Judgment.assignment_id == assignment.id)
    return session.exec(select(Judgment).join(latest, latest.c.id == Judgment.id)).first()


def labels_of(annotator: str, *, session: Session) -> list[tuple[str, str, int | None]]:
    """An annotator's (or model judge's) latest grade per (query id, chunk id)."""
    latest = latest_judgments(User.name == annotator)
    rows = session.exec(
        select(Query.query_id, Chunk.chunk_id, Judgment.grade)
        .join(latest, latest.c.id == Judgment.id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .order_by(Query.query_id, Chunk.chunk_id)
    ).all()
    return [tuple(row) for row in rows]


def adjudicate(
    pool: Pool,
    query_id: str,
    chunk_id: str,
    grade: int,
    rationale: str,
    lead: User,
    policy: str,
    *,
    session: Session,
) -> Adjudication:
    """Record the final grade of a candidate; an earlier decision stays in the history.
    Raises ``ValueError`` for a grade outside 0–3, a missing rationale, or a non-lead."""
    check_grade(grade)
    if not rationale.strip():
        raise LocalizedError("rationale_missing")
    if lead.role != "lead":
        raise LocalizedError("leads_only", name=lead.name, role=f"@role_{lead.role}")
    queries = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
    chunks = chunk_keys(session.get(CorpusVersion, pool.corpus_version_id), session=session)
    decision = Adjudication(
        pool_id=pool.id,
        query_id=queries[query_id],
        chunk_id=chunks[chunk_id],
        user_id=lead.id,
        grade=grade,
        rationale=rationale.strip(),
        policy=policy,
    )
    session.add(decision)
    session.flush()
    return decision


def latest_adjudications(pool: Pool, *, session: Session) -> dict[tuple[str, str], tuple]:
    """(query id, chunk id) -> (grade, rationale, lead name, created time) of the latest
    decision per candidate."""
    rows = session.exec(
        select(
            Query.query_id,
            Chunk.chunk_id,
            Adjudication.grade,
            Adjudication.rationale,
            User.name,
            Adjudication.created_at,
        )
        .join(Query, Query.id == Adjudication.query_id)
        .join(Chunk, Chunk.id == Adjudication.chunk_id)
        .join(User, User.id == Adjudication.user_id, isouter=True)
        .where(Adjudication.pool_id == pool.id)
        .order_by(Adjudication.id)
    ).all()
    return {(q, c): (grade, why, who, when) for q, c, grade, why, who, when in rows}


def pseudonym(user: User) -> str:
    """A stable stand-in for a person's name, the same in every release."""
    digest = hashlib.sha256(f"qrels-studio:{user.id}:{_iso(user.created_at)}".encode())
    return f"annotator-{digest.hexdigest()[:8]}"


def _iso(moment: datetime) -> str:
    return moment.replace(tzinfo=None).isoformat()


def pool_history(pool: Pool, *, session: Session) -> list[dict]:
    """Every human judgment and every adjudication made in the pool, oldest first, with
    people under pseudonyms."""
    rows = []
    for judgment, user, query_id, chunk_id in session.exec(
        select(Judgment, User, Query.query_id, Chunk.chunk_id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .where(User.kind == "human", Judgment.pool_id == pool.id)
        .order_by(Judgment.id)
    ).all():
        rows.append(
            {
                "type": "judgment",
                "annotator": pseudonym(user),
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grade": judgment.grade,
                "unsure": judgment.unsure,
                "note": judgment.note,
                "revision": judgment.revision,
                "rubric_version": judgment.rubric_version,
                "seconds": judgment.seconds,
                "created_at": _iso(judgment.created_at),
            }
        )
    for decision, lead, query_id, chunk_id in session.exec(
        select(Adjudication, User, Query.query_id, Chunk.chunk_id)
        .join(User, User.id == Adjudication.user_id)
        .join(Query, Query.id == Adjudication.query_id)
        .join(Chunk, Chunk.id == Adjudication.chunk_id)
        .where(Adjudication.pool_id == pool.id)
        .order_by(Adjudication.id)
    ).all():
        rows.append(
            {
                "type": "adjudication",
                "lead": pseudonym(lead),
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grade": decision.grade,
                "rationale": decision.rationale,
                "policy": decision.policy,
                "created_at": _iso(decision.created_at),
            }
        )
    return rows
