"""A database migrated once per test session and copied for each test that asks for one.

Running every migration again for each ``engine`` fixture cost 0.2 s on SQLite and about
0.6 s on PostgreSQL, for some 700 tests on each backend. Here the migrations run once per
session and backend, and each test gets a copy:

- SQLite: the migrated template file, copied with SQLite's backup API (which copies a
  consistent image whatever is left in a WAL file; ``make_engine`` turns WAL back on for
  the copy at its first connection).
- PostgreSQL: the migrations run once in a template schema while every statement sent to
  the server is recorded; each test's empty schema then replays them, in one transaction.
  The statements name no schema (each connection finds its own through ``search_path``),
  which ``capture_postgres`` checks; ``tests/storage/test_migrated_template.py`` checks
  that a copy has the tables, columns, indexes, constraints, triggers, functions and rows
  of a database migrated afresh.

A copy is therefore the same database as ``upgrade(engine)`` makes: tests that test the
migrations themselves still call ``upgrade``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from storage.db import database_url, make_engine, upgrade


@dataclass(frozen=True)
class Statement:
    """One statement as the driver received it: ``parameters`` None when it was sent
    without any (then ``%`` is not a placeholder), a list of them for an executemany."""

    sql: str
    parameters: Any
    many: bool = False


def migrate_sqlite_template(path: Path) -> Path:
    """``path``, a new SQLite database brought to head by ``upgrade``."""
    engine = make_engine(f"sqlite:///{path}")
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    return path


def copy_sqlite(template: Path, destination: Path) -> None:
    """``destination``, a page-for-page copy of the database at ``template``."""
    source = sqlite3.connect(template)
    target = sqlite3.connect(destination)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


def capture_postgres(url: str, schema: str) -> list[Statement]:
    """Bring the empty schema ``schema`` (which ``url``'s ``search_path`` names) to head
    and return every statement that did so, in order (those that succeeded: a failed one,
    such as the schema check's look for a version table not made yet, is not replayed).
    Raises ``RuntimeError`` when a statement names ``schema`` itself: replayed elsewhere,
    it would reach back into it."""
    statements: list[Statement] = []

    def record(_conn, _cursor, sql, parameters, context, executemany) -> None:
        if executemany:
            statements.append(Statement(sql, list(parameters), many=True))
        elif not parameters and context is not None and context.no_parameters:
            statements.append(Statement(sql, None))
        else:
            statements.append(Statement(sql, parameters))

    engine = make_engine(url)
    event.listen(engine, "after_cursor_execute", record)
    try:
        upgrade(engine)
    finally:
        event.remove(engine, "after_cursor_execute", record)
        engine.dispose()
    naming = [s.sql for s in statements if schema in s.sql or schema in repr(s.parameters)]
    if naming:
        raise RuntimeError(f"a migration names the template schema {schema}: {naming[0]!r}")
    return statements


def batched(statements: list[Statement]) -> list[Statement]:
    """``statements`` with each run of those sent without parameters joined into one, which
    the server takes in one round trip (138 statements at 0017, all but three without).
    A statement sent with an empty set of parameters had its ``%`` written ``%%`` for the
    driver; alone in a batch it is written as the server reads it."""
    out: list[Statement] = []
    run: list[str] = []
    for statement in statements:
        if statement.many or statement.parameters:
            if run:
                out.append(Statement(";\n".join(run), None))
                run = []
            out.append(statement)
        else:
            sent_bare = statement.parameters is None
            run.append(statement.sql if sent_bare else statement.sql.replace("%%", "%"))
    if run:
        out.append(Statement(";\n".join(run), None))
    return out


def replay(engine: Engine, statements: list[Statement]) -> None:
    """Run ``statements`` on ``engine``'s database, in one transaction, through the
    driver as they were first sent."""
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        for statement in statements:
            if statement.many:
                cursor.executemany(statement.sql, statement.parameters)
            elif statement.parameters is None:
                cursor.execute(statement.sql)
            else:
                cursor.execute(statement.sql, statement.parameters)
        cursor.close()
        connection.commit()
    finally:
        connection.close()


class MigratedTemplates:
    """The session's templates, each made at its first use: a test session that runs
    only SQLite tests never migrates a PostgreSQL schema."""

    def __init__(self, folder: Path, new_postgres_schema: Callable[[], tuple[str, str]]):
        self._folder = folder
        self._new_postgres_schema = new_postgres_schema  # (schema, url), dropped at exit
        self._sqlite: Path | None = None
        self._postgres: list[Statement] | None = None

    def sqlite(self) -> Path:
        if self._sqlite is None:
            self._sqlite = migrate_sqlite_template(self._folder / "template.db")
        return self._sqlite

    def postgres(self) -> list[Statement]:
        if self._postgres is None:
            schema, url = self._new_postgres_schema()
            self._postgres = batched(capture_postgres(url, schema))
        return self._postgres

    def migrated_engine(self, url: str) -> Engine:
        """An engine on the empty database at ``url``, which now holds a copy of the
        template of its backend."""
        parsed = make_url(database_url(url))
        if parsed.get_backend_name() == "sqlite":
            copy_sqlite(self.sqlite(), Path(str(parsed.database)))
            return make_engine(url)
        engine = make_engine(url)
        replay(engine, self.postgres())
        return engine
