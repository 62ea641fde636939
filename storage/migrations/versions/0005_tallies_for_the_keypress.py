"""Tallies kept as slots change, and indexes for what a keypress looks up.

Revision ID: 0005
Revises: 0004

The labeling page used to count the pool and the annotator's history on every keypress.
``pool_candidate.held``, ``query_tally`` and ``annotator_tally`` (see ``storage.tallies``)
are filled here from the assignments already made, in SQL, so that an existing campaign
carries on where it stood. Columns are added in place; no judgment is touched.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN_HOLD = "slot IS NOT NULL AND done_at IS NULL"
NEEDED = "COALESCE(c.required, p.overlap)"
TALLY = ("candidates", "asked", "slots", "held", "open")


def upgrade() -> None:
    op.add_column(
        "pool_candidate", sa.Column("held", sa.Integer(), nullable=False, server_default="0")
    )
    op.create_table(
        "query_tally",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in TALLY),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["query_id"], ["query.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("pool_id", "query_id"),
    )
    op.create_index("ix_query_tally_pool_open", "query_tally", ["pool_id", "open"])
    op.create_table(
        "annotator_tally",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("waiting", sa.Integer(), nullable=False),
        sa.Column("last_query_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["pool_id"], ["pool.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.ForeignKeyConstraint(["last_query_id"], ["query.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("pool_id", "user_id"),
    )
    where = {"sqlite_where": sa.text(OPEN_HOLD), "postgresql_where": sa.text(OPEN_HOLD)}
    op.create_index("ix_assignment_open_holds", "assignment", ["pool_id", "user_id"], **where)
    op.create_index("ix_assignment_hold_expiry", "assignment", ["pool_id", "expires_at"], **where)
    op.create_index(
        "ix_assignment_pool_user_done", "assignment", ["pool_id", "user_id", "done_at", "id"]
    )
    _fill()


def _fill() -> None:
    """The tallies of every pool, from the assignments made so far."""
    op.execute(
        "UPDATE pool_candidate SET held = (SELECT COUNT(*) FROM assignment a "
        "WHERE a.candidate_id = pool_candidate.id AND a.slot IS NOT NULL)"
    )
    op.execute(
        "INSERT INTO query_tally (pool_id, query_id, candidates, asked, slots, held, open) "
        f"SELECT c.pool_id, c.query_id, COUNT(*), SUM(CASE WHEN {NEEDED} <> 0 THEN 1 ELSE 0 END), "
        f"SUM({NEEDED}), SUM(c.held), SUM(CASE WHEN c.held < {NEEDED} THEN 1 ELSE 0 END) "
        "FROM pool_candidate c JOIN pool p ON p.id = c.pool_id GROUP BY c.pool_id, c.query_id"
    )
    op.execute(
        "INSERT INTO annotator_tally (pool_id, user_id, done, waiting) "
        "SELECT a.pool_id, a.user_id, "
        "SUM(CASE WHEN a.done_at IS NOT NULL THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN a.slot IS NOT NULL AND c.held < {NEEDED} THEN 1 ELSE 0 END) "
        "FROM assignment a JOIN pool_candidate c ON c.id = a.candidate_id "
        "JOIN pool p ON p.id = a.pool_id GROUP BY a.pool_id, a.user_id"
    )


def downgrade() -> None:
    op.drop_index("ix_assignment_pool_user_done", "assignment")
    op.drop_index("ix_assignment_hold_expiry", "assignment")
    op.drop_index("ix_assignment_open_holds", "assignment")
    op.drop_table("annotator_tally")
    op.drop_table("query_tally")
    # In place on both backends (SQLite has dropped columns since 3.35): copying the table,
    # as a batch operation would, trips over the foreign keys that point at it.
    op.execute("ALTER TABLE pool_candidate DROP COLUMN held")
