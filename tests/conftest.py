"""Shared fixtures: a migrated database on SQLite and on PostgreSQL, and file writers.

PostgreSQL tests use ``QRELS_TEST_POSTGRES_URL`` (default: the local server's database
``test``), each in a schema of its own that is dropped afterwards. Where that server cannot
be reached they skip, except in CI (``CI`` or ``QRELS_REQUIRE_POSTGRES`` set), where they fail.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import SQLModel, select

import storage.models  # noqa: F401
from storage.db import database_url, make_engine, session_scope, upgrade

POSTGRES_URL = os.environ.get("QRELS_TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test")
DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def postgres_required() -> bool:
    return bool(os.environ.get("QRELS_REQUIRE_POSTGRES") or os.environ.get("CI"))


def _admin_engine() -> Engine:
    return create_engine(database_url(POSTGRES_URL), isolation_level="AUTOCOMMIT")


def postgres_available() -> str | None:
    """None when PostgreSQL answers, else why not."""
    try:
        with _admin_engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as exc:  # any failure to connect means: not available here
        return f"{type(exc).__name__}: {exc}".splitlines()[0]
    return None


@pytest.fixture(scope="session")
def postgres_reason() -> str | None:
    return postgres_available()


def _postgres_schema_url(schema: str) -> str:
    url = make_url(database_url(POSTGRES_URL))
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False
    )


def _new_database_url(backend: str, tmp_path: Path, postgres_reason: str | None) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'qrels.db'}"
        return
    if postgres_reason is not None:
        message = f"PostgreSQL at {POSTGRES_URL} not reachable ({postgres_reason})"
        if postgres_required():
            pytest.fail(message + "; it is required in CI")
        pytest.skip(message)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = _admin_engine()
    with admin.connect() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield _postgres_schema_url(schema)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path, postgres_reason) -> Iterator[str]:
    """The URL of an empty database (no schema), on each backend."""
    yield from _new_database_url(request.param, tmp_path, postgres_reason)


@pytest.fixture
def engine(db_url) -> Iterator[Engine]:
    """A migrated, empty database on each backend."""
    engine = make_engine(db_url)
    upgrade(engine)
    yield engine
    engine.dispose()


def snapshot(engine: Engine) -> dict[str, list[tuple]]:
    """Every row of every table, to show that a failed import wrote nothing."""
    rows = {}
    with session_scope(engine) as session:
        for table in SQLModel.metadata.sorted_tables:
            result = session.execute(select(table).order_by(*table.primary_key.columns)).all()
            rows[table.name] = [tuple(row) for row in result]
    return rows


def write(folder: Path, name: str, content: str | bytes) -> Path:
    """Write ``content`` (text as UTF-8 as is, or raw bytes) to ``folder/name``."""
    path = folder / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def run_qrels(url: str, *args, expect: int = 0):
    """``qrels --db url ARGS...`` in this process; fails unless it exits with ``expect``.
    Returns click's result."""
    from click.testing import CliRunner

    from annotator.cli import cli

    result = CliRunner().invoke(cli, ["--db", url, *map(str, args)], catch_exceptions=False)
    assert result.exit_code == expect, result.output + result.stderr
    return result


def together(work: Callable, args: Iterable) -> dict:
    """``work(arg)`` for every ``arg``, each in its own thread, all released at the same
    instant; returns the results by arg and fails naming any thread's error."""
    args = list(args)
    barrier, results, errors = threading.Barrier(len(args)), {}, []

    def run(arg):
        try:
            barrier.wait()
            results[arg] = work(arg)
        except Exception as exc:  # reported below, with the thread's argument
            errors.append((arg, repr(exc)))

    threads = [threading.Thread(target=run, args=(arg,)) for arg in args]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    return results


@pytest.fixture
def datasets() -> Path:
    """``../shared/datasets``; the test skips when it is absent (a fresh clone elsewhere)."""
    if not DATASETS.is_dir():
        pytest.skip(f"real collections not found at {DATASETS}")
    return DATASETS


class Clock:
    """The time the app's writes see (``storage.slots``: holds and judgments), set by a
    test: judgments made through the domain functions land at chosen times."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """A ``Clock`` at 2026-03-02 09:00 UTC (a Monday) that ``storage.slots`` reads."""
    import storage.slots

    clock = Clock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    monkeypatch.setattr(storage.slots, "utcnow", clock)
    return clock
