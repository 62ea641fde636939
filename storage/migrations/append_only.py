"""Judgments, adjudications and releases are history: the database itself refuses to change
or delete them, so no bug or hand-written SQL in an application process can lose a grade
or rewrite a release. Shared by the migrations that create those tables or rebuild them.

Row triggers refuse UPDATE and DELETE (``create_append_only_triggers``); the statements
that get past row triggers (SQLite's REPLACE, PostgreSQL's TRUNCATE) are refused by
``create_overwrite_guards`` (revision 0003). What no trigger can stop is the owner of the
tables dropping the triggers: the app should connect as a role that does not own them.
"""

from alembic import op

APPEND_ONLY = ("judgment", "adjudication")


def create_append_only_triggers(tables: tuple[str, ...] = APPEND_ONLY) -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(
            """
            CREATE OR REPLACE FUNCTION qrels_refuse_change() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION '% is append-only history: % refused', TG_TABLE_NAME, TG_OP;
            END;
            $$ LANGUAGE plpgsql
            """
        )
        for table in tables:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION qrels_refuse_change()"
            )
    elif dialect == "sqlite":
        for table in tables:
            for operation in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{operation.lower()} BEFORE {operation} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only history: "
                    f"{operation} refused'); END"
                )


def drop_append_only_triggers(tables: tuple[str, ...] = APPEND_ONLY) -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for table in tables:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        if tables == APPEND_ONLY:
            op.execute("DROP FUNCTION IF EXISTS qrels_refuse_change()")
    elif dialect == "sqlite":
        for table in tables:
            for operation in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{operation}")


# The unique keys of each append-only table: an INSERT that meets one of them would, as
# SQLite's REPLACE, delete the row it meets (without firing a delete trigger unless
# ``recursive_triggers`` is on in that connection), so the insert is refused up front.
# A migration that adds a unique key to one of these tables must add it here too.
UNIQUE_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "judgment": (("id",), ("assignment_id", "revision")),
    "adjudication": (("id",),),
    "release": (("id",), ("version",)),
    "gold_item": (("id",), ("pool_id", "query_id", "chunk_id")),
    "query_sample": (("id",),),
    "query_sample_member": (("id",), ("sample_id", "query_id")),
    "judge_answer": (("id",),),
}


def create_overwrite_guards(tables: tuple[str, ...]) -> None:
    """What UPDATE and DELETE triggers do not see: on SQLite an insert over an existing row
    (``REPLACE``, ``INSERT OR REPLACE``), on PostgreSQL ``TRUNCATE`` (also when it
    cascades from another table)."""
    dialect = op.get_bind().dialect.name
    for table in tables:
        if dialect == "postgresql":
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION qrels_refuse_change()"
            )
        elif dialect == "sqlite":
            meets = " OR ".join(
                "(" + " AND ".join(f"{column} = NEW.{column}" for column in key) + ")"
                for key in UNIQUE_KEYS[table]
            )
            op.execute(
                f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} "
                f"WHEN EXISTS (SELECT 1 FROM {table} WHERE {meets}) "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only history: "
                "an insert over an existing row (REPLACE) refused'); END"
            )


def drop_overwrite_guards(tables: tuple[str, ...]) -> None:
    dialect = op.get_bind().dialect.name
    for table in tables:
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        elif dialect == "sqlite":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_replace")
