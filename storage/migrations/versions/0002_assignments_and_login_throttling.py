"""Assignments (judgment slots held by annotators), judgment revisions, login throttling.

Revision ID: 0002
Revises: 0001

Columns are added in place (never by copying tables), so the append-only triggers on
judgments stay as they are and no judgment is rewritten.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from storage.migrations.append_only import create_append_only_triggers

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "assignment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("candidate_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=True),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("skipped_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("revision >= 0", name="assignment_revision_non_negative"),
        sa.CheckConstraint("slot IS NULL OR slot >= 0", name="assignment_slot_non_negative"),
        sa.ForeignKeyConstraint(["candidate_id"], ["pool_candidate.id"]),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("candidate_id", "slot"),
        sa.UniqueConstraint("candidate_id", "user_id"),
    )
    op.create_index("ix_assignment_candidate_id", "assignment", ["candidate_id"])
    op.create_index("ix_assignment_pool_user", "assignment", ["pool_id", "user_id"])

    op.add_column(
        "app_user", sa.Column("failed_logins", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column(
        "app_user", sa.Column("last_failed_login", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column("pool_candidate", sa.Column("required", sa.Integer(), nullable=True))

    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "ALTER TABLE judgment ADD COLUMN assignment_id INTEGER REFERENCES assignment (id)"
        )
    else:
        op.add_column(
            "judgment",
            sa.Column(
                "assignment_id",
                sa.Integer(),
                sa.ForeignKey("assignment.id", name="judgment_assignment_id_fkey"),
                nullable=True,
            ),
        )
    op.add_column("judgment", sa.Column("revision", sa.Integer(), nullable=True))
    op.create_index(
        "ux_judgment_assignment_revision", "judgment", ["assignment_id", "revision"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ux_judgment_assignment_revision", table_name="judgment")
    if op.get_bind().dialect.name == "sqlite":
        # SQLite cannot drop a column that is a foreign key: rebuild the table (rows copied
        # as they are), then put back the triggers that went with the old table.
        with op.batch_alter_table("judgment", recreate="always") as batch:
            batch.drop_column("revision")
            batch.drop_column("assignment_id")
        create_append_only_triggers(("judgment",))
        for statement in (
            "ALTER TABLE app_user DROP COLUMN failed_logins",
            "ALTER TABLE app_user DROP COLUMN last_failed_login",
            "ALTER TABLE pool_candidate DROP COLUMN required",
        ):
            op.execute(statement)
    else:
        op.drop_constraint("judgment_assignment_id_fkey", "judgment", type_="foreignkey")
        op.drop_column("judgment", "revision")
        op.drop_column("judgment", "assignment_id")
        op.drop_column("app_user", "last_failed_login")
        op.drop_column("app_user", "failed_logins")
        op.drop_column("pool_candidate", "required")
    op.drop_index("ix_assignment_pool_user", table_name="assignment")
    op.drop_index("ix_assignment_candidate_id", table_name="assignment")
    op.drop_table("assignment")
