"""Every draw of a pool's query sample says why it was made and what people had judged:
``query_sample.reason`` (``qrels sample --redraw --why``) and ``judged_before`` (how many
queries of the sample then in force people had judged).

Revision ID: 0018
Revises: 0017

A sample could be drawn again after people judged it, leaving no trace of why, so a lead
could shop for the seed or design whose estimate favours a run (issue 36). Draws were
already kept (the table is append-only); these say what each replaced. Null in draws made
before: unknown.
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

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("query_sample",)


def upgrade() -> None:
    op.add_column(
        "query_sample", sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    )
    op.add_column("query_sample", sa.Column("judged_before", sa.Integer(), nullable=True))


def downgrade() -> None:
    # SQLite drops a column by copying the table, which would lose its triggers: the
    # append-only triggers go first and are made again on the table as it was.
    drop_overwrite_guards(TABLES)
    drop_append_only_triggers(TABLES)
    with op.batch_alter_table("query_sample") as batch:
        batch.drop_column("judged_before")
        batch.drop_column("reason")
    create_append_only_triggers(TABLES)
    create_overwrite_guards(TABLES)
