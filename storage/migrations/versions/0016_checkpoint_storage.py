"""The kept figures' checkpoint stored with lz4 on PostgreSQL, not pglz.

Revision ID: 0016
Revises: 0015

A pool's checkpoint (``figure_checkpoint.payload``, ``storage.figure_tables``) is some 130 MB
of numpy arrays at a million judgments, saved again every 20,000 judgments or 5 minutes
during a lead's view. PostgreSQL compressed it with pglz, its default: at L a save took
7-21 s (under load), of which the compression most; with lz4 it takes 1.5-2 s and the row
is 42 MB instead of 30. Reading it back costs the same either way (0.5 s). A server built
without lz4 (or before PostgreSQL 14) keeps it uncompressed instead (``EXTERNAL``: 2-6 s a
save, 126 MB). Either applies from the next save on. SQLite compresses nothing: no change.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _lz4() -> bool:
    """Whether the server can compress a column with lz4 (built with it, 14 or newer)."""
    found = op.get_bind().exec_driver_sql(
        "SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression'"
        " AND 'lz4' = ANY(enumvals)"
    )
    return bool(found.scalar())


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    if _lz4():
        op.execute("ALTER TABLE figure_checkpoint ALTER COLUMN payload SET COMPRESSION lz4")
    else:
        op.execute("ALTER TABLE figure_checkpoint ALTER COLUMN payload SET STORAGE EXTERNAL")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    if _lz4():
        op.execute("ALTER TABLE figure_checkpoint ALTER COLUMN payload SET COMPRESSION DEFAULT")
    op.execute("ALTER TABLE figure_checkpoint ALTER COLUMN payload SET STORAGE EXTENDED")
