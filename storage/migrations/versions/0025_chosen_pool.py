"""The pool each person chose last in the app: ``user.pool``.

Revision ID: 0025
Revises: 0024

The app's pool box forgot its choice on a reload, in a new tab and on another page, and
went back to the first pool without a word: an annotator's keys then graded in a pool they
had not chosen, and a lead's Adjudication or Releases page showed another pool's (a user
trial of issue 36). The account keeps the choice, as it keeps the language.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE on both databases: a batch would copy app_user on SQLite, whose drop
# every table that refers to an account refuses.
def upgrade() -> None:
    op.add_column("app_user", sa.Column("pool", sa.String(), nullable=True))


def downgrade() -> None:
    op.drop_column("app_user", "pool")
