"""The lead's maintained figures, persisted per pool (``storage.figure_tables``).

Revision ID: 0013
Revises: 0012

Derived data only: an empty table means the figures are counted once from the judgments
at the first view, and kept from then on. No judgment is touched.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "figure_checkpoint",
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("judgment_mark", sa.Integer(), nullable=False),
        sa.Column("judgments_seen", sa.Integer(), nullable=False),
        sa.Column("adjudication_mark", sa.Integer(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.PrimaryKeyConstraint("pool_id"),
    )


def downgrade() -> None:
    op.drop_table("figure_checkpoint")
