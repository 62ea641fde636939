"""The model judge: runs of ``qrels judge`` on a pool and every answer they got.

Revision ID: 0008
Revises: 0009 (the query samples, merged first)

A run is counted as its answers arrive (so it is updated); its answers are history, one
row per candidate and attempt, append-only like judgments. Valid grades go into the
``judgment`` table as the model account's, as imported model judgments always did.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

from storage.migrations.append_only import (
    create_append_only_triggers,
    create_overwrite_guards,
    drop_append_only_triggers,
    drop_overwrite_guards,
)

revision: str = "0008"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
JSON = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")
COUNTS = ("todo", "asked", "graded", "failed", "flagged", "tokens_in", "tokens_out")


def upgrade() -> None:
    op.create_table(
        "judge_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("started_by", sa.Integer(), nullable=True),
        sa.Column("model", TEXT(), nullable=False),
        sa.Column("served_model", TEXT(), nullable=False),
        sa.Column("base_url", TEXT(), nullable=False),
        sa.Column("prompt_version", TEXT(), nullable=False),
        sa.Column("prompt_hash", TEXT(), nullable=False),
        sa.Column("rubric_version", TEXT(), nullable=False),
        sa.Column("prompt", JSON, nullable=False),
        sa.Column("settings", JSON, nullable=False),
        sa.Column("status", TEXT(), nullable=False),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("error", TEXT(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in COUNTS),
        sa.Column("request_seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'done', 'stopped', 'failed')", name="judge_run_status_valid"
        ),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.ForeignKeyConstraint(["started_by"], ["app_user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_judge_run_pool_model_prompt", "judge_run", ["pool_id", "model", "prompt_hash"]
    )
    op.create_table(
        "judge_answer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("candidate_id", sa.Integer(), nullable=False),
        sa.Column("model", TEXT(), nullable=False),
        sa.Column("prompt_hash", TEXT(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status", TEXT(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("failure", TEXT(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("flags", JSON, nullable=False),
        sa.Column("probability", sa.Float(), nullable=True),
        sa.Column("served_model", TEXT(), nullable=False),
        sa.Column("tokens_in", sa.Integer(), nullable=True),
        sa.Column("tokens_out", sa.Integer(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("judgment_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('graded', 'failed')", name="judge_answer_status_valid"),
        sa.CheckConstraint(
            "grade IS NULL OR (grade >= 0 AND grade <= 3)", name="judge_answer_grade"
        ),
        sa.CheckConstraint(
            "(status = 'graded') = (grade IS NOT NULL)", name="judge_answer_graded_has_grade"
        ),
        sa.ForeignKeyConstraint(["run_id"], ["judge_run.id"]),
        sa.ForeignKeyConstraint(["candidate_id"], ["pool_candidate.id"]),
        sa.ForeignKeyConstraint(["judgment_id"], ["judgment.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_judge_answer_run_id", "judge_answer", ["run_id"])
    op.create_index("ix_judge_answer_candidate_id", "judge_answer", ["candidate_id"])
    op.create_index(
        "ix_judge_answer_model_prompt",
        "judge_answer",
        ["model", "prompt_hash", "status", "candidate_id"],
    )
    create_append_only_triggers(("judge_answer",))
    create_overwrite_guards(("judge_answer",))


def downgrade() -> None:
    drop_overwrite_guards(("judge_answer",))
    drop_append_only_triggers(("judge_answer",))
    op.drop_table("judge_answer")
    op.drop_table("judge_run")
