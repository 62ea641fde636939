"""Shared fixtures: a migrated database on SQLite and on PostgreSQL, file writers, and a
small pool with six annotators.

PostgreSQL tests use ``QRELS_TEST_POSTGRES_URL`` (default: the local server's database
``test``), each in a schema of its own that is dropped afterwards. Where that server cannot
be reached they skip, except in CI (``CI`` or ``QRELS_REQUIRE_POSTGRES`` set), where they fail.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import SQLModel, select

import storage.models  # noqa: F401
from annotator.labeling import page_position
from storage.db import database_url, session_scope
from tests.migrated_template import MigratedTemplates

pytest_plugins = ["tests.browser_support"]

POSTGRES_URL = os.environ.get("QRELS_TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test")
# ../shared/datasets beside the project; QRELS_DATASETS names it for a checkout elsewhere
# (a git worktree one level deeper).
DATASETS = Path(
    os.environ.get("QRELS_DATASETS") or Path(__file__).resolve().parents[2] / "shared" / "datasets"
)


def benchmark_module(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` imported as ``name`` (the folder is not a package)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def postgres_required() -> bool:
    return bool(os.environ.get("QRELS_REQUIRE_POSTGRES") or os.environ.get("CI"))


def _admin_engine() -> Engine:
    return create_engine(database_url(POSTGRES_URL), isolation_level="AUTOCOMMIT")


def _admin_execute(statement: str) -> None:
    admin = _admin_engine()
    try:
        with admin.connect() as connection:
            connection.execute(text(statement))
    finally:
        admin.dispose()


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


@pytest.fixture(autouse=True)
def keys_at_once(monkeypatch):
    """Streamlit's AppTest clicks a button milliseconds after the page drew it, sooner than
    the server lets a key act (``page_position.SEEN_SECONDS``): in this process the floor
    is lifted. A test of the floor sets it again; the browser tests' servers keep it."""
    monkeypatch.setattr(page_position, "SEEN_SECONDS", 0.0)


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path, postgres_reason) -> Iterator[str]:
    """The URL of an empty database (no schema), on each backend."""
    yield from _new_database_url(request.param, tmp_path, postgres_reason)


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory, postgres_reason) -> Iterator[MigratedTemplates]:
    """The session's migrated databases, which ``engine`` copies (tests/migrated_template.py)."""
    schemas: list[str] = []

    def new_postgres_schema() -> tuple[str, str]:
        schema = f"template_{uuid.uuid4().hex[:12]}"
        _admin_execute(f"CREATE SCHEMA {schema}")
        schemas.append(schema)
        return schema, _postgres_schema_url(schema)

    yield MigratedTemplates(tmp_path_factory.mktemp("template"), new_postgres_schema)
    for schema in schemas:
        _admin_execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def engine(db_url, migrated_templates) -> Iterator[Engine]:
    """A migrated, empty database on each backend: a copy of the session's template, the
    same as ``upgrade`` makes (tests/storage/test_migrated_template.py)."""
    engine = migrated_templates.migrated_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture(autouse=True)
def components_scanned_once() -> None:
    """Streamlit's ``AppTest.run`` looks through every installed package's metadata for
    components, once for each new AppTest (~0.6 s on 2 cores); the packages installed do
    not change during a test session, so the first look's answer serves every AppTest.
    Only where a test module has imported AppTest: other sessions do not import Streamlit."""
    if "streamlit.testing.v1" not in sys.modules:
        return
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


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


def run_text(pairs, tag: str = "r") -> str:
    """A TREC run holding ``(query id, doc id)`` pairs in the order given: ranks from 1
    within each query, scores falling with them."""
    ranks: dict[str, int] = {}
    lines = []
    for query, doc in pairs:
        ranks[query] = ranks.get(query, 0) + 1
        lines.append(f"{query} Q0 {doc} {ranks[query]} {1 / ranks[query]:.6f} {tag}\n")
    return "".join(lines)


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


# Two runs over six chunks: q0's c2 is found by both, the rest by one.
RUN_A = "q0 Q0 c0 1 3 a\nq0 Q0 c1 2 2 a\nq0 Q0 c2 3 1 a\nq1 Q0 c0 1 1 a\n"
RUN_B = "q0 Q0 c2 1 2 b\nq0 Q0 c3 2 1 b\nq1 Q0 c4 1 1 b\n"


@pytest.fixture
def two_runs(engine, tmp_path, monkeypatch) -> dict[str, int]:
    """Pool ``p`` (overlap 2) of the runs a and b (``RUN_A``, ``RUN_B``): six candidates
    of two queries; annotators x and y, lead boss. Returns the annotators' user ids."""
    from annotator.auth import add_user
    from annotator.pools.pool_building import build_pool
    from storage.imports import import_corpus, import_queries, import_run
    from tests.storage.test_imports import jsonl

    monkeypatch.setenv("QRELS_LANG", "en")
    corpus = [{"_id": f"c{i}", "text": f"chunk number {i}"} for i in range(6)]
    queries = [{"_id": f"q{i}", "text": f"query {i}"} for i in range(2)]
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        import_run(write(tmp_path, "a.trec", RUN_A), session=session, system="a")
        import_run(write(tmp_path, "b.trec", RUN_B), session=session, system="b")
        ids = {n: add_user(n, "annotator", "password-1", session=session).id for n in "xy"}
        add_user("boss", "lead", "password-1", session=session)
    build_pool(engine, "p", systems="run:a,run:b", depth=5, overlap=2)
    return ids


def judge(engine: Engine, user_id: int, grade: int | None, seconds: float = 10.0):
    """The next item of ``user_id`` in pool p, graded (None: unsure) through the domain
    functions, at the time the ``clock`` says (when a test uses it)."""
    from annotator.labeling import assignment

    item = assignment.next_item(engine, "p", user_id)
    unsure = grade is None
    note = "two readings" if unsure else ""
    assert assignment.submit(
        engine, item, user_id, grade=grade, unsure=unsure, note=note, seconds=seconds
    )
    return item


def import_grades(engine: Engine, tmp_path: Path, annotator: str, lines: list[dict]) -> None:
    """Import judgments by ``annotator`` from JSONL ``lines`` (``query_id``, ``chunk_id``,
    ``grade`` or ``unsure`` and ``note``), through ``storage.imports``."""
    from storage.imports import import_judgments
    from tests.storage.test_imports import jsonl

    path = write(tmp_path, f"{annotator}-grades.jsonl", jsonl(lines))
    with session_scope(engine) as session:
        import_judgments(path, session=session, annotator=annotator, rubric_version="v1")


@pytest.fixture
def datasets() -> Path:
    """``../shared/datasets``; the test skips when it is absent (a fresh clone elsewhere)."""
    if not DATASETS.is_dir():
        pytest.skip(f"real collections not found at {DATASETS}")
    return DATASETS


N_QUERIES, N_CHUNKS = 4, 6


@pytest.fixture
def pool(engine, tmp_path, monkeypatch):
    """A pool of N_QUERIES x N_CHUNKS candidates with overlap 2, and annotators a1..a6."""
    from annotator.auth import add_user
    from annotator.pools.pool_building import build_pool
    from storage.imports import import_corpus, import_queries, import_run
    from tests.storage.test_imports import jsonl

    monkeypatch.setenv("QRELS_LANG", "en")
    corpus = [{"_id": f"c{i}", "text": f"chunk number {i}"} for i in range(N_CHUNKS)]
    queries = [{"_id": f"q{i}", "text": f"query {i}"} for i in range(N_QUERIES)]
    run = "".join(
        f"q{q} Q0 c{c} {c + 1} {10 - c} r\n" for q in range(N_QUERIES) for c in range(N_CHUNKS)
    )
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
        users = {
            f"a{i}": add_user(f"a{i}", "annotator", "password-1", session=session).id
            for i in range(1, 7)
        }
    build_pool(engine, "p", systems="run:r", depth=N_CHUNKS, overlap=2)
    return users
