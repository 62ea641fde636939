"""The ``engine`` fixture's database, a copy of a template migrated once per session
(tests/migrated_template.py), is the same database as ``upgrade`` makes afresh: tables,
columns (their storage too), indexes, constraints, triggers, functions, sequences and
every row, the alembic version's included."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from storage.db import current_revision, head_revision, make_engine, upgrade
from tests.conftest import _new_database_url

# What defines a PostgreSQL schema, each as rows to compare; the schema's own name, which
# pg_get_*def() writes into what it returns, is replaced by ``<schema>``.
POSTGRES_CATALOG = {
    "columns": """
        SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable,
               column_default, character_maximum_length, numeric_precision, is_identity
        FROM information_schema.columns WHERE table_schema = current_schema()""",
    "storage": """
        SELECT c.relname, a.attname, a.attstorage, a.attcompression
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0
              AND NOT a.attisdropped""",
    "indexes": """
        SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = current_schema()""",
    "constraints": """
        SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid)
        FROM pg_constraint WHERE connamespace = current_schema()::regnamespace""",
    "triggers": """
        SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger
        WHERE NOT tgisinternal
              AND tgrelid IN (SELECT oid FROM pg_class
                              WHERE relnamespace = current_schema()::regnamespace)""",
    "functions": """
        SELECT proname, pg_get_functiondef(oid) FROM pg_proc
        WHERE pronamespace = current_schema()::regnamespace""",
    "sequences": """
        SELECT sequence_name, data_type, start_value, increment FROM information_schema.sequences
        WHERE sequence_schema = current_schema()""",
    "relations": """
        SELECT relname, relkind, relpersistence FROM pg_class
        WHERE relnamespace = current_schema()::regnamespace""",
}
SQLITE_CATALOG = {
    "objects": "SELECT type, name, tbl_name, sql FROM sqlite_master",
    "header": "SELECT * FROM pragma_user_version, pragma_auto_vacuum, pragma_page_size",
    "journal": "SELECT * FROM pragma_journal_mode",
}


def describe(engine: Engine) -> dict[str, list[tuple]]:
    """The schema and every row of ``engine``'s database, each part sorted."""
    postgres = engine.url.get_backend_name() == "postgresql"
    with engine.connect() as connection:
        if postgres:
            schema = connection.execute(text("SELECT current_schema()")).scalar_one()
            tables = connection.execute(
                text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            ).scalars()
        else:
            schema = "main"
            tables = connection.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'table'")
            ).scalars()
        described: dict[str, list[tuple]] = {}
        for table in sorted(tables):
            rows = connection.execute(text(f'SELECT * FROM "{table}"')).all()
            described[f"rows of {table}"] = sorted(map(tuple, rows), key=repr)
        for part, query in (POSTGRES_CATALOG if postgres else SQLITE_CATALOG).items():
            rows = connection.execute(text(query)).all()
            described[part] = sorted(
                (tuple(str(v).replace(schema, "<schema>") for v in row) for row in rows), key=repr
            )
    return described


@pytest.fixture
def another_url(db_url, tmp_path, postgres_reason):
    """The URL of another empty database on ``engine``'s backend."""
    backend = "sqlite" if db_url.startswith("sqlite") else "postgres"
    (tmp_path / "another").mkdir()
    urls = _new_database_url(backend, tmp_path / "another", postgres_reason)
    yield next(urls)
    for _ in urls:  # drops the PostgreSQL schema
        pass


@pytest.fixture
def migrated_afresh(another_url):
    """Another database on ``engine``'s backend, brought to head by ``upgrade``."""
    made = make_engine(another_url)
    upgrade(made)
    yield made
    made.dispose()


def test_the_engine_fixture_copies_a_database_identical_to_a_fresh_upgrade(engine, migrated_afresh):
    copy, fresh = describe(engine), describe(migrated_afresh)
    assert copy.keys() == fresh.keys()
    for part in fresh:
        assert copy[part] == fresh[part], part
    # What the comparison covers is there to compare: a copy without it would pass.
    assert fresh["rows of alembic_version"] == [(head_revision(),)]
    if engine.url.get_backend_name() == "postgresql":
        assert fresh["triggers"] and fresh["functions"] and fresh["indexes"]
    else:
        assert {kind for kind, *_ in fresh["objects"]} == {"table", "index", "trigger"}
        assert fresh["journal"] == [("wal",)]


def test_what_a_test_does_to_its_copy_stays_in_it(engine, migrated_templates, another_url):
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'changed'"))
    assert current_revision(engine) == "changed"
    next_copy = migrated_templates.migrated_engine(another_url)
    try:
        assert current_revision(next_copy) == head_revision()
    finally:
        next_copy.dispose()
