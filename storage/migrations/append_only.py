"""Judgments and adjudications are history: the database itself refuses to change or delete
them, so no bug or hand-written SQL in an application process can lose a grade. Shared by
the migrations that create those tables or have to rebuild them."""

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
