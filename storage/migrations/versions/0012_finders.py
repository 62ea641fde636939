"""Finders: the annotator whose search put a chunk in the pool is not asked to judge it.

Revision ID: 0012
Revises: 0008 (which follows 0009: the head on main)

``assignment.found_at`` marks the finder's row of a candidate their search added: the
candidate is never offered to them and is not in their progress, so that adding a chunk the
systems had found and adding a new one look the same to them (issue 21, item 5). The row
counts in their ``annotator_tally.waiting`` while the candidate is open, as a hold does.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("assignment", sa.Column("found_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE assignment DROP COLUMN found_at")
