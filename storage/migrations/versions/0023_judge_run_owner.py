"""Which process runs a model-judge run: ``judge_run.owner``.

Revision ID: 0023
Revises: 0020

A run whose process was killed stayed ``running`` and kept the next run of the same model
and prompt on the pool waiting for 10 minutes of silence (issue 36). The runner now writes
its host, process id and the process's start time here, and refreshes ``updated_at`` every
few seconds while it runs; a new run marks an old one failed at once when the old one's
process is gone from this host, or when it has not been heard from for a minute. Runs made
before keep an empty owner and are judged by their silence alone.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("judge_run") as table:
        table.add_column(sa.Column("owner", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("judge_run") as table:
        table.drop_column("owner")
