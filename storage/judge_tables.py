"""The model judge's tables (``qrels judge``, ``annotator.judge``): a run of the judge on a
pool, and every answer it got, one row per candidate and attempt.

Kept beside ``storage.models`` (which imports this module, so that the schema is one
metadata) because that module is the size one reads in a sitting; the kinds of column both
declare are ``storage.columns``'. A valid answer is also a
judgment of the model's account in the ``judgment`` table, never a person's; the row here
keeps what a judgment cannot: the prompt's hash, the model the server reported, the cited
evidence, the tokens and the failures.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Column, DateTime, Index, Integer, Text
from sqlmodel import Field, SQLModel

from pooling.grades import sql_range
from storage.columns import created_field, json_field, one_of

RUN_STATUSES = ("running", "done", "stopped", "failed")
ANSWER_STATUSES = ("graded", "failed")


class JudgeRun(SQLModel, table=True):
    """One run of the judge on a pool: the model asked and the one the server said it is,
    the prompt (its version, hash and text), the settings, and what the run came to so far
    (counted as answers arrive, so that a page can show the progress of a run elsewhere)."""

    __tablename__ = "judge_run"
    __table_args__ = (
        CheckConstraint(one_of("status", RUN_STATUSES), name="judge_run_status_valid"),
        Index("ix_judge_run_pool_model_prompt", "pool_id", "model", "prompt_hash"),
    )

    id: int = Field(default=None, primary_key=True)  # given at flush (storage.models)
    pool_id: int = Field(foreign_key="pool.id")
    # The model's account (kind model), whose judgments the valid answers are.
    user_id: int = Field(foreign_key="app_user.id")
    started_by: int | None = Field(default=None, foreign_key="app_user.id")  # None: the CLI
    model: str  # as asked for
    served_model: str = ""  # as the server reported it in its first answer
    base_url: str
    prompt_version: str
    prompt_hash: str
    rubric_version: str
    prompt: dict = json_field(default_factory=dict)  # the templates sent
    settings: dict = json_field(default_factory=dict)
    status: str = "running"
    stop_requested: bool = False
    error: str = ""  # why a run failed, as a message key
    # "host pid start" of the process running it (annotator.judge.liveness); "" before 0023
    owner: str = ""
    todo: int = 0  # candidates it set out to ask about
    asked: int = 0  # requests sent
    graded: int = 0  # candidates given a valid grade
    failed: int = 0  # candidates whose every attempt failed
    flagged: int = 0  # candidates whose query or passage reads like instructions
    # Candidates given the answer of this model and prompt to their pair in another pool,
    # never asked (``JudgeAnswer.reused_from``); not in ``todo`` nor ``graded``.
    reused: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    tokens_in: int = 0
    tokens_out: int = 0
    request_seconds: float = 0.0
    created_at: datetime = created_field()
    updated_at: datetime = created_field()
    finished_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class JudgeAnswer(SQLModel, table=True):
    """One request about one candidate and what came of it: a grade with its reason and the
    evidence quoted from the passage, or a failure with its reason code
    (``annotator.judge.answer.FAILURES``). Append-only history, like judgments."""

    __tablename__ = "judge_answer"
    __table_args__ = (
        CheckConstraint(one_of("status", ANSWER_STATUSES), name="judge_answer_status_valid"),
        CheckConstraint(f"grade IS NULL OR ({sql_range('grade')})", name="judge_answer_grade"),
        CheckConstraint(
            "(status = 'graded') = (grade IS NOT NULL)", name="judge_answer_graded_has_grade"
        ),
        # What a rerun looks up: the candidates that already have a valid answer.
        Index("ix_judge_answer_model_prompt", "model", "prompt_hash", "status", "candidate_id"),
    )

    id: int = Field(default=None, primary_key=True)  # given at flush (storage.models)
    run_id: int = Field(foreign_key="judge_run.id", index=True)
    candidate_id: int = Field(foreign_key="pool_candidate.id", index=True)
    model: str
    prompt_hash: str
    attempt: int
    status: str
    grade: int | None = None
    reason: str = Field(default="", sa_column=Column(Text, nullable=False))
    evidence: str = Field(default="", sa_column=Column(Text, nullable=False))
    failure: str | None = None
    detail: str = Field(default="", sa_column=Column(Text, nullable=False))
    content: str = Field(default="", sa_column=Column(Text, nullable=False))  # as answered
    flags: list = json_field(default_factory=list)
    # The probability the model gave the grade it chose (from the server's logprobs).
    probability: float | None = None
    served_model: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    seconds: float = 0.0
    judgment_id: int | None = Field(default=None, foreign_key="judgment.id")
    # The answer this one copies: the same model and prompt hash answered for the same
    # (query, chunk) in another pool, and was not asked again (its judgment is that one's).
    reused_from: int | None = Field(default=None, foreign_key="judge_answer.id")
    created_at: datetime = created_field()
