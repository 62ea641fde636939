"""Login sessions kept by the server (a reload keeps an annotator logged in), and each
account's language.

Revision ID: 0010
Revises: 0013 (the newest on main when this was merged)

A session's id lives only in the browser's cookie; the table keeps its sha256, so whoever
reads the table cannot take a session over. Sessions end on expiry, on logout, on
``qrels user disable`` and on ``qrels user password`` (``revoked_at``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_session",
        sa.Column("id_sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.PrimaryKeyConstraint("id_sha256"),
    )
    op.create_index("ix_login_session_user_id", "login_session", ["user_id"])
    op.add_column("app_user", sa.Column("language", sa.String(), nullable=True))


def downgrade() -> None:
    # Not a batch: SQLite (3.35+) drops a column in place; rebuilding app_user would break
    # the foreign keys that point at it.
    op.drop_column("app_user", "language")
    op.drop_index("ix_login_session_user_id", table_name="login_session")
    op.drop_table("login_session")
