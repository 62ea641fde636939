"""What ``qrels status`` counts, kept instead: judgments per person and query set, the judged
queries, each corpus version's documents and chunks and each run's entries.

Revision ID: 0017
Revises: 0016

``qrels status`` counted the whole history and every chunk and run entry: at a million
judgments on PostgreSQL a parallel scan per person, 10,000 index looks for the judged
queries, and 0.1 s more for chunks, documents and run entries, 0.3-0.8 s of the server's
time on a command that should take 0.3 s in all (issue 27). A corpus version and a run are
never changed after their import, which now stores their counts (``corpus_version.documents``
and ``chunks``, ``system.entries``); they are filled here for those imported before.
``judgment_tally`` and ``judged_query`` (``storage.tally_tables``) keep the judgments'
counts, filled here from the judgments already made, and kept by the database itself: a
trigger on ``judgment`` adds each insert, whichever code (the app, an import, a carry, the
model judge) or hand-written SQL made it. On PostgreSQL the trigger runs once per statement
on its rows (a bulk insert of 10,000 judgments is one grouped upsert, not 10,000), and takes
its row locks in key order, so two inserts wait for each other instead of deadlocking. On
SQLite, where writers take turns, it runs per row. Judgments are never updated or deleted
(the append-only triggers), so an insert is the only change to count.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

POSTGRES_FUNCTION = """
CREATE OR REPLACE FUNCTION qrels_count_judgments() RETURNS trigger AS $$
BEGIN
    INSERT INTO judgment_tally (query_set_id, user_id, judgments)
        SELECT query.query_set_id, added.user_id, count(*)
        FROM added JOIN query ON query.id = added.query_id
        GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (query_set_id, user_id)
        DO UPDATE SET judgments = judgment_tally.judgments + excluded.judgments;
    INSERT INTO judged_query (query_id)
        SELECT DISTINCT query_id FROM added ORDER BY 1
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""

POSTGRES_TRIGGER = (
    "CREATE TRIGGER judgment_counted AFTER INSERT ON judgment REFERENCING NEW TABLE AS added"
    " FOR EACH STATEMENT EXECUTE FUNCTION qrels_count_judgments()"
)

# The SELECT's WHERE is what lets SQLite read ON CONFLICT as the upsert's, not a join's.
SQLITE_TRIGGER = """
CREATE TRIGGER judgment_counted AFTER INSERT ON judgment BEGIN
    INSERT INTO judgment_tally (query_set_id, user_id, judgments)
        SELECT query_set_id, NEW.user_id, 1 FROM query WHERE query.id = NEW.query_id
    ON CONFLICT (query_set_id, user_id) DO UPDATE SET judgments = judgments + 1;
    INSERT INTO judged_query (query_id) VALUES (NEW.query_id) ON CONFLICT DO NOTHING;
END
"""


def upgrade() -> None:
    for table, column in (
        ("corpus_version", "documents"),
        ("corpus_version", "chunks"),
        ("system", "entries"),
    ):
        op.add_column(table, sa.Column(column, sa.Integer(), nullable=False, server_default="0"))
    for table, column, counted in (
        ("corpus_version", "documents", "SELECT count(*) FROM document WHERE corpus_version_id"),
        ("corpus_version", "chunks", "SELECT count(*) FROM chunk WHERE corpus_version_id"),
        ("system", "entries", "SELECT count(*) FROM run_entry WHERE system_id"),
    ):
        op.execute(f"UPDATE {table} SET {column} = ({counted} = {table}.id)")
    op.create_table(
        "judgment_tally",
        sa.Column("query_set_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("judgments", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["query_set_id"], ["query_set.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"]),
        sa.PrimaryKeyConstraint("query_set_id", "user_id"),
    )
    op.create_table(
        "judged_query",
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["query_id"], ["query.id"]),
        sa.PrimaryKeyConstraint("query_id"),
    )
    # The trigger first: on PostgreSQL creating it locks out inserts into ``judgment`` until
    # the migration commits, so the count below sees every judgment there will be before
    # the trigger counts the next one (none missed, none counted twice).
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRES_FUNCTION)
        op.execute(POSTGRES_TRIGGER)
    else:
        op.execute(SQLITE_TRIGGER)
    op.execute(
        "INSERT INTO judgment_tally (query_set_id, user_id, judgments)"
        " SELECT query.query_set_id, judgment.user_id, count(*) FROM judgment"
        " JOIN query ON query.id = judgment.query_id GROUP BY 1, 2"
    )
    op.execute("INSERT INTO judged_query (query_id) SELECT DISTINCT query_id FROM judgment")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS judgment_counted ON judgment")
        op.execute("DROP FUNCTION IF EXISTS qrels_count_judgments()")
    else:
        op.execute("DROP TRIGGER IF EXISTS judgment_counted")
    op.drop_table("judged_query")
    op.drop_table("judgment_tally")
    # Not a batch: SQLite (3.35+) drops a column in place, as 0015's downgrade does.
    op.drop_column("system", "entries")
    op.drop_column("corpus_version", "chunks")
    op.drop_column("corpus_version", "documents")
