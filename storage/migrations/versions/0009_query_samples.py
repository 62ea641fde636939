"""Query samples: the queries of a pool people are to judge completely (``qrels sample``),
how they were drawn, and each one's probability of being drawn.

Revision ID: 0009
Revises: 0006

Append-only like judgments: a sample is never changed; the newest of a pool is in force.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

from storage.migrations.append_only import (
    create_append_only_triggers,
    create_overwrite_guards,
    drop_append_only_triggers,
    drop_overwrite_guards,
)

revision: str = "0009"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("query_sample", "query_sample_member")


def upgrade() -> None:
    op.create_table(
        "query_sample",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("design", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("requested", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("population", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column(
            "config",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "design IN ('uniform', 'stratified', 'uncertainty')", name="query_sample_design_valid"
        ),
        sa.CheckConstraint("size >= 0 AND size <= population", name="query_sample_size_valid"),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_query_sample_pool_id", "query_sample", ["pool_id"])
    op.create_table(
        "query_sample_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("probability", sa.Float(), nullable=False),
        sa.Column("stratum", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.CheckConstraint(
            "probability > 0 AND probability <= 1", name="query_sample_member_probability"
        ),
        sa.ForeignKeyConstraint(["sample_id"], ["query_sample.id"]),
        sa.ForeignKeyConstraint(["query_id"], ["query.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("sample_id", "query_id"),
    )
    op.create_index("ix_query_sample_member_sample_id", "query_sample_member", ["sample_id"])
    create_append_only_triggers(TABLES)
    create_overwrite_guards(TABLES)


def downgrade() -> None:
    drop_overwrite_guards(TABLES)
    drop_append_only_triggers(TABLES)
    op.drop_table("query_sample_member")
    op.drop_table("query_sample")
