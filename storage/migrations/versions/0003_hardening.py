"""Hardening: append-only also against REPLACE and TRUNCATE, and releases append-only.

Revision ID: 0003
Revises: 0002

Only adds (triggers, a table), so existing databases keep every judgment. SQLite's REPLACE
deletes the row it meets without firing delete triggers, and PostgreSQL's TRUNCATE fires no
row triggers: both are now refused on judgments, adjudications and releases. Releases get
the UPDATE and DELETE triggers judgments have had since 0001.
"""

from collections.abc import Sequence

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


def upgrade() -> None:
    create_append_only_triggers(("release",))
    create_overwrite_guards()


def downgrade() -> None:
    drop_overwrite_guards()
    drop_append_only_triggers(("release",))
