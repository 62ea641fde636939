"""The model judge in the database: its runs, its answers, and which candidates still need
one. Every function takes a keyword-only ``session`` and never commits; the runner writes
each answer in a transaction of its own as it arrives, so that an interrupted run loses
nothing already answered.

A candidate needs an answer from a (model, prompt hash) until it has a valid one (status
``graded``): a rerun asks only about the others, the failed ones included.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import exists, func, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, select

from pooling.redaction import redact
from storage.judge_tables import JudgeAnswer, JudgeRun
from storage.models import Chunk, Judgment, Pool, PoolCandidate, Query, utcnow


@dataclass(frozen=True)
class CandidateText:
    """What the judge is asked about one candidate, and the keys to record the answer."""

    candidate_id: int
    query_key: int
    chunk_key: int
    query_id: str
    chunk_id: str
    query: str
    passage: str


def _has_valid_answer(model: str, prompt_hash: str):
    return exists().where(
        JudgeAnswer.candidate_id == PoolCandidate.id,
        JudgeAnswer.model == model,
        JudgeAnswer.prompt_hash == prompt_hash,
        JudgeAnswer.status == "graded",
    )


def candidates_to_ask(
    pool: Pool, model: str, prompt_hash: str, *, session: Session, limit: int | None = None
) -> list[int]:
    """The pool's candidates without a valid answer from ``model`` under ``prompt_hash``,
    query by query in the pool's shuffled order (at most ``limit``)."""
    statement = (
        select(PoolCandidate.id)
        .join(Query, Query.id == PoolCandidate.query_id)
        .where(PoolCandidate.pool_id == pool.id, ~_has_valid_answer(model, prompt_hash))
        .order_by(Query.query_id, PoolCandidate.shuffle_key, PoolCandidate.id)
    )
    if limit is not None:
        statement = statement.limit(limit)
    return list(session.exec(statement).all())


def reuse_answers(pool: Pool, run: JudgeRun, *, session: Session) -> int:
    """Give each candidate of ``pool`` without a valid answer of the run's model and prompt
    hash the newest valid one they gave its (query, chunk) in another pool, recorded for
    ``run`` as reused (``reused_from``; no request, tokens or seconds; the model's grade of
    the pair stays the one judgment it made). Returns how many; counted in ``run.reused``."""
    source, theirs = aliased(JudgeAnswer), aliased(PoolCandidate)
    newest = (
        select(func.max(source.id))
        .join(theirs, theirs.id == source.candidate_id)
        .where(
            theirs.query_id == PoolCandidate.query_id,
            theirs.chunk_id == PoolCandidate.chunk_id,
            theirs.pool_id != pool.id,
            source.model == run.model,
            source.prompt_hash == run.prompt_hash,
            source.status == "graded",
            source.reused_from.is_(None),  # the answer itself, not another copy of it
        )
        .scalar_subquery()
    )
    pairs = session.exec(
        select(PoolCandidate.id, newest).where(
            PoolCandidate.pool_id == pool.id,
            ~_has_valid_answer(run.model, run.prompt_hash),
            newest.is_not(None),
        )
    ).all()
    if not pairs:
        return 0
    answers = {a.id: a for a in session.exec(select(JudgeAnswer).where(JudgeAnswer.id.in_(
        [answer for _, answer in pairs]
    )))}  # fmt: skip
    copied = ("model", "prompt_hash", "attempt", "status", "grade", "reason", "evidence")
    for candidate, answer in pairs:
        original = answers[answer]
        session.add(
            JudgeAnswer(
                run_id=run.id,
                candidate_id=candidate,
                **{name: getattr(original, name) for name in copied},
                content=original.content,
                flags=list(original.flags),
                probability=original.probability,
                served_model=original.served_model,
                reused_from=original.id,
            )
        )
    run.reused = len(pairs)
    session.add(run)
    session.flush()
    return len(pairs)


def candidate_texts(ids: list[int], *, session: Session) -> list[CandidateText]:
    """The query and passage of each candidate of ``ids``, in that order."""
    rows = session.exec(
        select(
            PoolCandidate.id,
            Query.id,
            Chunk.id,
            Query.query_id,
            Chunk.chunk_id,
            Query.text,
            Chunk.text,
        )
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(PoolCandidate.id.in_(ids))
    ).all()
    found = {row[0]: CandidateText(*row) for row in rows}
    return [found[i] for i in ids if i in found]


def running_runs(pool: Pool, model: str, prompt_hash: str, *, session: Session) -> list[JudgeRun]:
    """Runs of ``model`` under ``prompt_hash`` on the pool marked running and not asked to
    stop (asking one to stop lets another start at once), locked until the transaction
    ends, so that two starts do not both find an old one dead and both go on. Whether each
    is alive is the runner's to judge (its ``owner``, its ``updated_at``)."""
    return list(
        session.exec(
            select(JudgeRun)
            .where(
                JudgeRun.pool_id == pool.id,
                JudgeRun.model == model,
                JudgeRun.prompt_hash == prompt_hash,
                JudgeRun.status == "running",
                ~JudgeRun.stop_requested,
            )
            .with_for_update()
        ).all()
    )


def heartbeat(run_id: int, *, session: Session) -> None:
    """Note that run ``run_id`` is alive (its ``updated_at``), while it waits on answers."""
    session.execute(
        update(JudgeRun)
        .where(JudgeRun.id == run_id, JudgeRun.status == "running")
        .values(updated_at=utcnow())
    )


def record_answer(
    run: JudgeRun,
    answer: JudgeAnswer,
    *,
    session: Session,
    judgment: Judgment | None,
    final: bool,
) -> bool:
    """Append ``answer`` (one attempt of ``run``), with ``judgment`` (the model's grade,
    when it may count as one) first, and count it in the run: a request, its tokens and
    seconds, and when it is the candidate's ``final`` attempt, a candidate graded or
    failed (and flagged, when it was). Returns whether the run was asked to stop."""
    if judgment is not None:
        session.add(judgment)
        session.flush()
        answer.judgment_id = judgment.id
    # The runner hides the key it sent; this hides any key-shaped text whoever writes.
    answer.detail, answer.content = redact(answer.detail or ""), redact(answer.content or "")
    session.add(answer)
    session.flush()
    graded = answer.status == "graded"
    values = {
        "asked": JudgeRun.asked + 1,
        "tokens_in": JudgeRun.tokens_in + (answer.tokens_in or 0),
        "tokens_out": JudgeRun.tokens_out + (answer.tokens_out or 0),
        "request_seconds": JudgeRun.request_seconds + answer.seconds,
        "graded": JudgeRun.graded + int(final and graded),
        "failed": JudgeRun.failed + int(final and not graded),
        "flagged": JudgeRun.flagged + int(final and bool(answer.flags)),
        "updated_at": utcnow(),
    }
    if answer.served_model:
        values["served_model"] = func.coalesce(
            func.nullif(JudgeRun.served_model, ""), answer.served_model
        )
    session.execute(update(JudgeRun).where(JudgeRun.id == run.id).values(**values))
    return bool(session.exec(select(JudgeRun.stop_requested).where(JudgeRun.id == run.id)).one())


def finish_run(run_id: int, status: str, *, session: Session, error: str = "") -> None:
    """Mark a run ``done``, ``stopped`` or ``failed`` (with the message key ``error``)."""
    now = utcnow()
    session.execute(
        update(JudgeRun)
        .where(JudgeRun.id == run_id)
        .values(status=status, error=redact(error), finished_at=now, updated_at=now)
    )


def request_stop(run_id: int, *, session: Session) -> None:
    """Ask a run to stop after the answers in flight (read by the runner at each answer,
    in whichever process it runs)."""
    session.execute(update(JudgeRun).where(JudgeRun.id == run_id).values(stop_requested=True))


def runs_of(
    pool: Pool,
    *,
    session: Session,
    model: str | None = None,
    prompt_hash: str | None = None,
) -> list[JudgeRun]:
    """The pool's runs (of ``model`` under ``prompt_hash`` when given), newest first."""
    statement = select(JudgeRun).where(JudgeRun.pool_id == pool.id)
    if model is not None:
        statement = statement.where(JudgeRun.model == model)
    if prompt_hash is not None:
        statement = statement.where(JudgeRun.prompt_hash == prompt_hash)
    return list(session.exec(statement.order_by(JudgeRun.id.desc())).all())


ANSWER_COLUMNS = [
    "answer",
    "run",
    "attempt",
    "query_id",
    "chunk_id",
    "status",
    "grade",
    "reason",
    "evidence",
    "failure",
    "detail",
    "flags",
    "probability",
    "served_model",
    "tokens_in",
    "tokens_out",
    "seconds",
]


def answers_of(pool: Pool, model: str, prompt_hash: str, *, session: Session) -> Iterable[tuple]:
    """Every attempt of ``model`` under ``prompt_hash`` on the pool's candidates, oldest
    first, as rows of ``ANSWER_COLUMNS``."""
    rows = session.exec(
        select(
            JudgeAnswer.id,
            JudgeAnswer.run_id,
            JudgeAnswer.attempt,
            Query.query_id,
            Chunk.chunk_id,
            JudgeAnswer.status,
            JudgeAnswer.grade,
            JudgeAnswer.reason,
            JudgeAnswer.evidence,
            JudgeAnswer.failure,
            JudgeAnswer.detail,
            JudgeAnswer.flags,
            JudgeAnswer.probability,
            JudgeAnswer.served_model,
            JudgeAnswer.tokens_in,
            JudgeAnswer.tokens_out,
            JudgeAnswer.seconds,
        )
        .join(PoolCandidate, PoolCandidate.id == JudgeAnswer.candidate_id)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(
            PoolCandidate.pool_id == pool.id,
            JudgeAnswer.model == model,
            JudgeAnswer.prompt_hash == prompt_hash,
        )
        .order_by(JudgeAnswer.id)
    ).all()
    return [tuple(row) for row in rows]


def pool_size(pool: Pool, *, session: Session) -> int:
    """How many candidates the pool holds."""
    return session.exec(
        select(func.count()).select_from(PoolCandidate).where(PoolCandidate.pool_id == pool.id)
    ).one()
