"""Each candidate's count of distinct human judges, kept as judgments are written.

Revision ID: 0014
Revises: 0010

``qrels status`` says how many candidates are complete (``overlap`` distinct human judges,
from the app or an import); counting every candidate's judges took a second at a million
judgments. ``pool_candidate.judges`` (see ``storage.tallies``) is filled here from the
judgments already made, in SQL; no judgment is touched.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "pool_candidate", sa.Column("judges", sa.Integer(), nullable=False, server_default="0")
    )
    # Only candidates with a judgment are counted: one indexed look for each of the others.
    op.execute(
        "UPDATE pool_candidate SET judges = (SELECT count(DISTINCT judgment.user_id)"
        " FROM judgment JOIN app_user ON app_user.id = judgment.user_id"
        " WHERE app_user.kind = 'human' AND judgment.query_id = pool_candidate.query_id"
        " AND judgment.chunk_id = pool_candidate.chunk_id)"
        " WHERE EXISTS (SELECT 1 FROM judgment WHERE judgment.query_id = pool_candidate.query_id"
        " AND judgment.chunk_id = pool_candidate.chunk_id)"
    )


def downgrade() -> None:
    # Not a batch: SQLite (3.35+) drops a column in place, as 0010's downgrade does.
    op.drop_column("pool_candidate", "judges")
