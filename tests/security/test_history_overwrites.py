"""Issue 12, item 7: append-only could be bypassed. SQLite's ``REPLACE INTO judgment``
rewrote a grade (REPLACE deletes without firing the delete trigger); PostgreSQL's
``TRUNCATE judgment CASCADE`` emptied the table. Adjudications and releases likewise."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from storage.db import _alembic_config, make_engine, upgrade
from tests.conftest import snapshot
from tests.storage.test_schema import load

# Per table: a column to forge, and the value to put in it.
FORGED = {
    "judgment": ("grade", "0"),
    "adjudication": ("grade", "0"),
    "release": ("manifest_sha256", "'forged'"),
}


def attacks(table: str, dialect: str) -> list[str]:
    """The statements that got past the UPDATE and DELETE triggers."""
    if dialect == "postgresql":
        return [f"TRUNCATE {table}", f"TRUNCATE {table} CASCADE", "TRUNCATE pool CASCADE"]
    columns = [c.name for c in SQLModel.metadata.tables[table].columns]
    forged, value = FORGED[table]
    chosen = ", ".join(value if c == forged else c for c in columns)
    replace = f"INTO {table} ({', '.join(columns)}) SELECT {chosen} FROM {table}"
    statements = [f"REPLACE {replace}", f"INSERT OR REPLACE {replace}"]
    if table == "release":  # a new id, but the version of a release there deletes it too
        fresh = ", ".join("id + 1000" if c == "id" else c for c in columns)
        statements.append(
            f"REPLACE INTO release ({', '.join(columns)}) SELECT {fresh} FROM release"
        )
    return statements


@pytest.mark.parametrize("table", list(FORGED))
def test_history_cannot_be_replaced_or_truncated(history, table):
    before = snapshot(history)
    assert before[table], "the attack needs rows to attack"
    for statement in [
        *attacks(table, history.dialect.name),
        f"UPDATE {table} SET {FORGED[table][0]} = {FORGED[table][1]}",
        f"DELETE FROM {table}",
    ]:
        with pytest.raises(DBAPIError, match=refusal(statement)), history.begin() as connection:
            connection.execute(text(statement))
    assert snapshot(history) == before


def refusal(statement: str) -> str:
    """What refuses ``statement``: the triggers; but PostgreSQL refuses a TRUNCATE of a table
    another one refers to (judgment, by judge_answer) before any trigger runs, and its
    CASCADE, which does reach them, is attacked too."""
    if statement == "TRUNCATE judgment":
        return "append-only|cannot truncate a table referenced in a foreign key constraint"
    return "append-only"


def judgments(engine) -> list[tuple]:
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(text("SELECT * FROM judgment ORDER BY id"))]


def test_a_database_with_judgments_upgrades_and_is_then_guarded(db_url, tmp_path):
    engine = make_engine(db_url)
    upgrade(engine)
    load(engine, tmp_path, "q1 0 tea 2\nq2 0 bike 1\n")
    command.downgrade(_alembic_config(engine), "0002")  # as the release before wrote it
    before = judgments(engine)
    upgrade(engine)
    # The same rows, each with the columns later revisions added (judgment.reason, 0020)
    # after its own, empty: an upgrade keeps what was there and makes up nothing.
    upgraded = judgments(engine)
    assert len(before) == 2 and [row[: len(before[0])] for row in upgraded] == before
    assert all(value is None for row in upgraded for value in row[len(before[0]) :])
    before = upgraded
    for attack in attacks("judgment", engine.dialect.name)[:2]:  # TRUNCATE and its CASCADE
        with pytest.raises(DBAPIError, match=refusal(attack)), engine.begin() as connection:
            connection.execute(text(attack))
    assert judgments(engine) == before
    engine.dispose()
