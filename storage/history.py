"""Judgments and adjudications: append-only history, and what counts now.

A judgment or an adjudication is never updated: a later one supersedes an earlier one.
**A user's current grade** on a (query, chunk) is their latest judgment of it (the highest
id) among the judgments in question; ``latest_judgments`` is that definition in SQL,
filtered as each caller needs (a pool's candidates, one annotator, one assignment), and a
release applies it to the rows of the lines it writes, oldest first
(``storage.release_lines.release_history``;
``annotator.releases.release_files.write_history``), as ``pooling.release_folder.Tally``
does reading the lines back. A candidate's
final decision is the lead's latest adjudication of it. Every function takes a keyword-only
``session``; only ``append_judgments`` (a batch of judgments, imported or carried) and
``adjudicate`` write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    Subquery,
    func,
    insert,
)
from sqlmodel import Session, select

from pooling.grades import check_grade
from pooling.i18n import LocalizedError
from pooling.readers import refuse_control
from storage import one_grade, tallies
from storage.accounts import check_role
from storage.catalog import chunk_keys, query_keys
from storage.judge_tables import JudgeAnswer
from storage.models import (
    Adjudication,
    Assignment,
    Chunk,
    CorpusVersion,
    Judgment,
    JudgmentBatch,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    User,
    utcnow,
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


def append_judgments(
    user: User,
    query_set: QuerySet,
    corpus_version: CorpusVersion,
    rows: Iterable[dict],
    *,
    session: Session,
    batch: JudgmentBatch,
    rubric_version: str,
    pool: Pool | None = None,
    per_statement: int = 10_000,
    rubric_in_force: str | None = None,
) -> bool:
    """Append ``rows`` (``query_id`` and ``chunk_id`` keys, ``grade``, ``unsure``, ``note``)
    to the history as ``user``'s judgments, recorded as ``batch`` (its source, format and
    content hash; the rest is filled in here), in ``pool`` when given, ``per_statement``
    rows at a time as they come. Returns False, and writes (and reads from ``rows``)
    nothing, when the same batch (user, versions, content hash) is there already. The pools
    count the batch's grades theirs (``storage.one_grade``) when ``rubric_version`` is
    ``rubric_in_force`` (the version new judgments are made under; None: whatever it is)."""
    done = session.exec(
        select(JudgmentBatch).where(
            JudgmentBatch.user_id == user.id,
            JudgmentBatch.query_set_id == query_set.id,
            JudgmentBatch.corpus_version_id == corpus_version.id,
            JudgmentBatch.content_hash == batch.content_hash,
        )
    ).first()
    if done is not None:
        return False
    batch.user_id, batch.query_set_id = user.id, query_set.id
    batch.corpus_version_id = corpus_version.id
    session.add(batch)
    session.flush()  # a carry that mapped nothing still records that it was done
    common = {
        "user_id": user.id,
        "rubric_version": rubric_version,
        "batch_id": batch.id,
        "pool_id": pool.id if pool is not None else None,
        "created_at": utcnow(),
    }
    waiting = []
    for row in rows:
        waiting.append({"unsure": False, "note": "", **row, **common})
        if len(waiting) == per_statement:
            _insert_judgments(waiting, session=session)
            waiting = []
    if waiting:
        _insert_judgments(waiting, session=session)
    tallies.judging_batch(user, batch.id, session=session)
    # One grade per person per pair: the pools count it theirs, under the rubric in force.
    if user.kind == "human" and rubric_in_force in (None, rubric_version):
        one_grade.imported(
            batch.id, query_set.id, corpus_version.id, session=session, rubric=rubric_version
        )
        tallies.judged_in_batch(user, batch.id, session=session)
    return True


def _insert_judgments(rows: list[dict], *, session: Session) -> None:
    """``rows`` into ``judgment`` in one statement. On PostgreSQL a ``COPY``: a multi-row
    INSERT is rendered value by value in Python, which made a million-line import take
    twice as long as COPY's (docs/benchmarks.md); the statement trigger of 0017 runs once."""
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        session.execute(insert(Judgment), rows)
        return
    columns = sorted(set().union(*rows))  # a column a row leaves out is NULL, as its default
    copy_into = f"COPY judgment ({', '.join(columns)}) FROM STDIN"  # our own column names
    with connection.connection.driver_connection.cursor() as cursor, cursor.copy(copy_into) as copy:
        for row in rows:
            copy.write_row([row.get(column) for column in columns])


# A person's current grade of a candidate: judgments are append-only history, and of a
# person's judgments of one (query, chunk) the newest (the largest id) is the one that
# counts. ``latest_judgments`` and ``newest_first`` are this rule for SQL; a release's
# ``write_history`` and ``pooling.release_folder.Tally`` apply it in judgments.jsonl's order, and
# ``storage.counts`` finds an app judgment by its assignment's revision. A test pins them
# equal (tests/storage/test_current_grade.py). A gold check is the exception: there the
# first judgment counts (``first``), so a change after seeing the answer does not.
PERSON_CANDIDATE = (Judgment.user_id, Judgment.query_id, Judgment.chunk_id)


def latest_judgments(*where: Any, join: tuple = (), first: bool = False) -> Subquery:
    """The ids (column ``id``) of each person's current judgment per (query, chunk), among
    the judgments matching ``where``, which may name ``User`` columns and ``join``'s (a table
    and its on-clause); with ``first``, their first judgment instead (a gold check)."""
    pick = func.min if first else func.max
    latest = select(pick(Judgment.id).label("id")).join(User, User.id == Judgment.user_id)
    if join:
        latest = latest.join(*join)
    return latest.where(*where).group_by(*PERSON_CANDIDATE).subquery()


def newest_first() -> Any:
    """A window numbering each person's judgments of a (query, chunk) from the newest: 1 is
    their current one. One pass over the judgments read, where ``latest_judgments`` groups
    them first and finds each by id again."""
    return func.row_number().over(partition_by=PERSON_CANDIDATE, order_by=Judgment.id.desc())


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


def model_candidate_judgments(
    pool: Pool, *, session: Session, model: str | None = None
) -> list[tuple[str, str, str, int, str | None]]:
    """Each model judge's current grade (its latest) on each of the pool's candidates, or
    only ``model``'s: ``(model, query_id, chunk_id, grade, prompt_hash)`` by model, query
    and chunk, the prompt hash that of the ``qrels judge`` answer the grade came from (None
    for grades imported with ``--kind model``). What metric estimates combine with people's
    grades (``pooling.estimates``); never counted as a person's."""
    judges = [User.kind == "model"] + ([User.name == model] if model is not None else [])
    # The model judges first (few; often none): a grouping of every person's judgments of
    # the pool's candidates took half a second at L only to find no model's among them.
    ids = session.exec(select(User.id).where(*judges)).all()
    if not ids:
        return []
    latest = latest_judgments(
        Judgment.user_id.in_(ids),
        PoolCandidate.pool_id == pool.id,
        join=(
            PoolCandidate,
            (PoolCandidate.query_id == Judgment.query_id)
            & (PoolCandidate.chunk_id == Judgment.chunk_id),
        ),
    )
    rows = session.exec(
        select(User.name, Query.query_id, Chunk.chunk_id, Judgment.grade, JudgeAnswer.prompt_hash)
        .join(latest, latest.c.id == Judgment.id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .outerjoin(JudgeAnswer, JudgeAnswer.judgment_id == Judgment.id)
        .where(Judgment.grade.is_not(None))
        .order_by(User.name, Query.query_id, Chunk.chunk_id)
    ).all()
    return [tuple(row) for row in rows]


def current_judgment(assignment: Assignment, *, session: Session) -> Judgment | None:
    """The current grade of the assignment's person on its (query, chunk): their newest
    judgment of the pair, made on this item or in another pool (``storage.one_grade``: one
    grade per person per pair); earlier ones stay in the history. One indexed look."""
    newest = (
        select(func.max(Judgment.id))
        .join(PoolCandidate, _same_pair(PoolCandidate))
        .where(PoolCandidate.id == assignment.candidate_id, Judgment.user_id == assignment.user_id)
        .scalar_subquery()
    )
    return session.exec(select(Judgment).where(Judgment.id == newest)).first()


def _same_pair(candidates: Any) -> Any:
    """A judgment of a candidate's (query, chunk)."""
    return (candidates.query_id == Judgment.query_id) & (candidates.chunk_id == Judgment.chunk_id)


def labels_of(
    annotator: str,
    *,
    session: Session,
    corpus_version: str | None = None,
    query_set: str | None = None,
) -> list[tuple[str, str, int | None]]:
    """An annotator's (or model judge's) latest grade per (query id, chunk id); only on the
    chunks of ``corpus_version`` and the queries of ``query_set`` (names) when given, since
    the same ids may name other texts in other versions."""
    latest = latest_judgments(User.name == annotator)
    statement = (
        select(Query.query_id, Chunk.chunk_id, Judgment.grade)
        .join(latest, latest.c.id == Judgment.id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .order_by(Query.query_id, Chunk.chunk_id)
    )
    if corpus_version is not None:
        statement = statement.join(
            CorpusVersion, CorpusVersion.id == Chunk.corpus_version_id
        ).where(CorpusVersion.name == corpus_version)
    if query_set is not None:
        statement = statement.join(QuerySet, QuerySet.id == Query.query_set_id).where(
            QuerySet.name == query_set
        )
    return [tuple(row) for row in session.exec(statement).all()]


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
    Raises ``LocalizedError`` for a grade outside 0–3 or a missing rationale, ``Refused``
    for a non-lead."""
    check_grade(grade)
    if not refuse_control(rationale, "what_rationale").strip():
        raise LocalizedError("rationale_missing")
    check_role(lead, "lead")
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


def adjudications(pool: Pool, after: int = 0):
    """The statement reading the pool's adjudications with ids above ``after``, oldest
    first: id, query id, chunk id, grade, rationale, lead name, created time."""
    return (
        select(
            Adjudication.id,
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
        .where(Adjudication.pool_id == pool.id, Adjudication.id > after)
        .order_by(Adjudication.id)
    )


def latest_adjudications(pool: Pool, *, session: Session) -> dict[tuple[str, str], tuple]:
    """(query id, chunk id) -> (grade, rationale, lead name, created time) of the latest
    decision per candidate."""
    rows = session.exec(adjudications(pool)).all()
    return {(q, c): (grade, why, who, when) for _, q, c, grade, why, who, when in rows}


@lru_cache(maxsize=4096)  # one person's pseudonym on many lines of a release
def pseudonym(user_id: int, created_at: datetime) -> str:
    """A stable stand-in for a person's name, the same in every release."""
    digest = hashlib.sha256(f"qrels-studio:{user_id}:{iso_time(created_at)}".encode())
    return f"annotator-{digest.hexdigest()[:8]}"


def iso_time(moment: datetime) -> str:
    """``moment`` as ISO 8601 without a zone (times are stored in UTC); ``storage.release_lines``
    writes the same in SQL, for a release's judgments (a test pins the two equal)."""
    return moment.replace(tzinfo=None).isoformat()


def _on_candidates(pool: Pool):
    """Judgments of the pool's candidates, wherever they were made (the pool's app, another
    pool, an import), by people: what a release decides its grades from."""
    return (
        PoolCandidate,
        (PoolCandidate.query_id == Judgment.query_id)
        & (PoolCandidate.chunk_id == Judgment.chunk_id)
        & (PoolCandidate.pool_id == pool.id),
    )
