"""Gold items: (query, chunk) pairs whose grade a lead settled, mixed into annotators' work.

Revision ID: 0006
Revises: 0005

Append-only like judgments: a gold grade never changes. ``annotator_tally.gold_seen`` counts
the gold items an annotator judged, so that the next one is due without counting them.
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

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "gold_item",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("rationale", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("grade >= 0 AND grade <= 3", name="gold_item_grade_range"),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["query_id"], ["query.id"]),
        sa.ForeignKeyConstraint(["chunk_id"], ["chunk.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("pool_id", "query_id", "chunk_id"),
    )
    op.create_index("ix_gold_item_pool_id", "gold_item", ["pool_id"])
    op.add_column(
        "annotator_tally",
        sa.Column("gold_seen", sa.Integer(), nullable=False, server_default="0"),
    )
    create_append_only_triggers(("gold_item",))
    create_overwrite_guards(("gold_item",))


def downgrade() -> None:
    drop_overwrite_guards(("gold_item",))
    drop_append_only_triggers(("gold_item",))
    op.execute("ALTER TABLE annotator_tally DROP COLUMN gold_seen")
    op.drop_table("gold_item")
