"""Why each candidate was asked about and each judgment made: ``pool_candidate.reason`` and
``judgment.reason`` (``guided``, ``exploration``, ``sample``, ``gold``, ``search``, or
NULL: the candidate is in a fixed pool, or was chosen before this revision).

Revision ID: 0020
Revises: 0019

Active pooling sets the candidate's reason when it chooses it; a judgment made in the app
copies it from the candidate row the keypress reads anyway, so recording it costs no
statement. Both columns are nullable: older rows and imports say nothing.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # add_column, not a batch: a batch copies the table on SQLite and the append-only
    # triggers of ``judgment`` would go with the old one
    op.add_column("pool_candidate", sa.Column("reason", sa.String(), nullable=True))
    op.add_column("judgment", sa.Column("reason", sa.String(), nullable=True))


def downgrade() -> None:
    op.drop_column("judgment", "reason")
    op.drop_column("pool_candidate", "reason")
