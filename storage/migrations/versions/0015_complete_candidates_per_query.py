"""Each query's complete candidates, kept in its tally as judges are counted.

Revision ID: 0015
Revises: 0014

``qrels status`` says how many of a pool's candidates are complete (asked about, with the
pool's ``overlap`` distinct human judges); reading that from ``pool_candidate.judges`` is
one pass over every candidate (0.16 s of CPU at half a million). ``query_tally.complete``
(see ``storage.tallies``) is filled here from the judges already counted; no judgment is
touched.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "query_tally", sa.Column("complete", sa.Integer(), nullable=False, server_default="0")
    )
    # One indexed range of the pool's candidates per query (pool_id, query_id, ...).
    op.execute(
        "UPDATE query_tally SET complete = (SELECT count(*) FROM pool_candidate"
        " JOIN pool ON pool.id = pool_candidate.pool_id"
        " WHERE pool_candidate.pool_id = query_tally.pool_id"
        " AND pool_candidate.query_id = query_tally.query_id"
        " AND coalesce(pool_candidate.required, 1) != 0"
        " AND pool_candidate.judges >= pool.overlap)"
    )


def downgrade() -> None:
    # Not a batch: SQLite (3.35+) drops a column in place, as 0014's downgrade does.
    op.drop_column("query_tally", "complete")
