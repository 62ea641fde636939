"""Chunk spans, document text hashes, and the mappings of judgments carried across a
chunking change (``qrels carry``).

Revision ID: 0004
Revises: 0003

Additive only: new nullable columns and a new table, so existing databases upgrade without
touching a judgment. Versions imported before keep no spans until they are imported again
(an identical re-import records them).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("document", sa.Column("text_sha256", sa.String(), nullable=True))
    op.add_column("chunk", sa.Column("span_start", sa.Integer(), nullable=True))
    op.add_column("chunk", sa.Column("span_end", sa.Integer(), nullable=True))
    op.create_table(
        "carried_mapping",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("old_chunk_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("mapping", sa.String(), nullable=False),
        sa.Column("new_chunk_id", sa.Integer(), nullable=True),
        sa.Column("shared", sa.Integer(), nullable=True),
        sa.Column("share_old", sa.Float(), nullable=True),
        sa.Column("share_new", sa.Float(), nullable=True),
        sa.CheckConstraint("grade >= 0 AND grade <= 3", name="carried_mapping_grade_range"),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["query_id"], ["query.id"]),
        sa.ForeignKeyConstraint(["old_chunk_id"], ["chunk.id"]),
        sa.ForeignKeyConstraint(["new_chunk_id"], ["chunk.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_carried_mapping_pool", "carried_mapping", ["pool_id"])


def downgrade() -> None:
    op.drop_index("ix_carried_mapping_pool", table_name="carried_mapping")
    op.drop_table("carried_mapping")
    # Plain columns without constraints: SQLite (3.35+) and PostgreSQL drop them in place.
    op.drop_column("chunk", "span_end")
    op.drop_column("chunk", "span_start")
    op.drop_column("document", "text_sha256")
