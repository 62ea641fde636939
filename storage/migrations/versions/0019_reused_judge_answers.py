"""Judge answers reused from another pool: one answer per model and prompt per pair.

Revision ID: 0019
Revises: 0018

Two pools over the same queries and corpus version hold the same (query, chunk) pairs. A run
of the judge on the second no longer asks the model again what it answered, under the same
model and prompt hash, for a candidate of the first: it records that answer for this pool's
candidate, marked ``reused_from`` (the answer it copies; no tokens, no seconds, no request),
and counts it in ``judge_run.reused``. The model's grade of the pair stays its one judgment.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain SQL: SQLite adds a column with its reference, but not a constraint afterwards.
    op.execute(
        "ALTER TABLE judge_answer ADD COLUMN reused_from INTEGER REFERENCES judge_answer (id)"
    )
    op.add_column(
        "judge_run", sa.Column("reused", sa.Integer(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    op.execute("ALTER TABLE judge_run DROP COLUMN reused")
    op.execute("ALTER TABLE judge_answer DROP COLUMN reused_from")
