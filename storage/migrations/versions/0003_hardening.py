"""Hardening: append-only also against REPLACE and TRUNCATE, releases append-only, and
login throttling per name tried.

Revision ID: 0003
Revises: 0002

Only adds (triggers, a table), so existing databases keep every judgment. SQLite's REPLACE
deletes the row it meets without firing delete triggers, and PostgreSQL's TRUNCATE fires no
row triggers: both are now refused on judgments, adjudications and releases. Releases get
the UPDATE and DELETE triggers judgments have had since 0001. ``login_throttle`` counts
failed logins per name tried, known or not (``app_user.failed_logins`` counted known
accounts only, which told unknown names apart by the answer's timing).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

from storage.migrations.append_only import (
    create_append_only_triggers,
    create_overwrite_guards,
    drop_append_only_triggers,
    drop_overwrite_guards,
)

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GUARDED = ("judgment", "adjudication", "release")  # named here: later tables get their own


def upgrade() -> None:
    create_append_only_triggers(("release",))
    create_overwrite_guards(GUARDED)
    op.create_table(
        "login_throttle",
        sa.Column("name_sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_attempt", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("failures >= 0", name="login_throttle_failures"),
        sa.PrimaryKeyConstraint("name_sha256"),
    )


def downgrade() -> None:
    op.drop_table("login_throttle")
    drop_overwrite_guards(GUARDED)
    drop_append_only_triggers(("release",))
