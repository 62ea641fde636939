"""The one place that makes engines and sessions, and keeps the schema current.

SQLite is the embedded default (WAL so that the app and the CLI can read while one of them
writes, foreign keys on, a busy timeout instead of instant "database is locked"); PostgreSQL
is the multi-user deployment. Schema changes only ever go through Alembic migrations.

A command that only reads a few counts (``qrels status``) can skip SQLAlchemy altogether:
``read_connection`` opens the driver's own connection (sqlite3, psycopg) from the same URL,
in the same kind of snapshot, after the same schema check.
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from pooling.i18n import LocalizedError
from pooling.settings import current

# SQLAlchemy is imported where an engine is made or used, not here: ``read_connection``
# (``qrels status``) reads through the driver alone, and importing SQLAlchemy costs a
# third of a second before anything is done.
if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.engine import Connection, Engine
    from sqlmodel import Session

logger = logging.getLogger(__name__)

DEFAULT_URL = "sqlite:///qrels.db"
SQLITE_BUSY_TIMEOUT_MS = 30_000
MIGRATIONS = Path(__file__).parent / "migrations"
Row = TypeVar("Row")
SNAPSHOT = "qrels_snapshot"  # an execution option: this transaction only reads


class DatabaseError(LocalizedError, RuntimeError):
    """The database cannot be used as it is (unreachable, not initialised, outdated)."""


def database_url(explicit: str | None = None) -> str:
    """The URL to use: ``explicit`` (from ``--db``), else ``$QRELS_DATABASE_URL``, else
    ``sqlite:///qrels.db`` in the working directory. ``postgresql://`` URLs get psycopg 3."""
    url = explicit or current().database_url or DEFAULT_URL
    return _PLAIN_POSTGRES.sub("postgresql+psycopg://", url, count=1)


def shown_url(explicit: str | None = None) -> str:
    """``database_url(explicit)`` with its password hidden, as SQLAlchemy shows it."""
    return _PASSWORD.sub(r"\g<scheme>:***@", database_url(explicit), count=1)


# The URL's parts as SQLAlchemy reads them (``dialect[+driver]://[user[:password]@]...``),
# without importing it; what does not match is left to SQLAlchemy to refuse.
_PLAIN_POSTGRES = re.compile(r"^postgres(?:ql)?://")
_URL = re.compile(r"^(?P<backend>[\w-]+)(?:\+\w+)?://(?P<rest>[^?]*)(?:\?(?P<query>.*))?$")
_PASSWORD = re.compile(r"^(?P<scheme>[^:/]+://[^:@/]*):[^@/]*@")


def _on_sqlite_connect(dbapi_connection, _record) -> None:
    # Take transaction control from pysqlite (it defers BEGIN), so that "begin" below runs.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _on_sqlite_begin(connection) -> None:
    # IMMEDIATE takes the write lock up front: a transaction that reads and then writes
    # waits for the busy timeout instead of failing with "database is locked" midway. A
    # snapshot (see snapshot_scope) only reads: DEFERRED, so writers go on meanwhile.
    reading = connection.get_execution_options().get(SNAPSHOT, False)
    connection.exec_driver_sql("BEGIN DEFERRED" if reading else "BEGIN IMMEDIATE")


def _one_core_a_query(dbapi_connection, _record) -> None:
    # No parallel plans: the app's server answers annotators' keys and leads' figures at
    # once on a machine of a few cores, and a lead's count read in parallel took them all.
    # At L on 2 cores the keys' p95 while lead pages rendered fell from 84-101 ms to 62-72
    # (55-57 alone); the pages' first views took 0.2-0.4 s longer, within their 3 s.
    # Committed: a SET in a transaction rolled back would be undone.
    with dbapi_connection.cursor() as cursor:
        cursor.execute("SET max_parallel_workers_per_gather = 0")
    dbapi_connection.commit()


def make_engine(url: str | None = None, *, parallel: bool = True) -> Engine:
    """An engine for ``database_url(url)``, configured for SQLite or PostgreSQL; without
    ``parallel``, PostgreSQL plans no query across several of its cores (the app's engine:
    ``_one_core_a_query``), where a command such as ``release create`` may."""
    from sqlalchemy import create_engine, event
    from sqlalchemy.engine import make_url

    url = database_url(url)
    if make_url(url).get_backend_name() == "sqlite":
        engine = create_engine(
            url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
        )
        event.listen(engine, "connect", _on_sqlite_connect)
        event.listen(engine, "begin", _on_sqlite_begin)
        return engine
    engine = create_engine(url, pool_pre_ping=True)
    # Many rows written at once go as multi-row INSERTs (psycopg2's dialect does so by
    # default; psycopg's sends one statement a row). judgment's statement trigger (0017)
    # then runs once per 1,000 rows: once a row, an import of a million judgments in one
    # transaction went quadratic, each run updating the same tally rows again.
    engine.dialect.use_insertmanyvalues_wo_returning = True
    if not parallel:
        event.listen(engine, "connect", _one_core_a_query)
    return engine


def upsert_insert(table: Any, *, session: Session) -> Any:
    """An INSERT into ``table`` in the session's dialect, which takes ``on_conflict_do_*``
    (PostgreSQL's and SQLite's upserts)."""
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def referenced(model: type[Row], key: object, *, session: Session) -> Row:
    """The row of ``model`` at ``key``, which a foreign key names, so it exists; one that
    does not is a bug (``LookupError``), never a user's error."""
    found = session.get(model, key)
    if found is None:
        raise LookupError(f"{model.__name__} {key!r} is referenced but missing")
    return found


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session whose work is one transaction: committed on success, rolled back on error.
    On SQLite it holds the write lock from its start (``BEGIN IMMEDIATE``): what only reads
    uses ``snapshot_scope``."""
    from sqlmodel import Session

    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def snapshot_connection(engine: Engine) -> Iterator[Connection]:
    """A connection that only reads, all of it from one consistent state of the database
    however long it takes, while others go on writing: on SQLite a deferred transaction (in
    WAL mode a reader keeps the state it started with), on PostgreSQL a read-only
    REPEATABLE READ one. Nothing it does is committed. Core only (``snapshot_scope`` for
    a session), for a command that must start at once."""
    options = {SNAPSHOT: True}
    if engine.dialect.name == "postgresql":
        options.update(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    with engine.connect() as connection:
        yield connection.execution_options(**options)


@contextmanager
def snapshot_scope(engine: Engine) -> Iterator[Session]:
    """A session that only reads, in a snapshot (``snapshot_connection``)."""
    from sqlmodel import Session

    # Closed, not rolled back, at the end: closing ends the transaction too, and leaves the
    # rows read usable afterwards (a rollback would expire them).
    with (
        snapshot_connection(engine) as connection,
        Session(bind=connection, expire_on_commit=False) as session,
    ):
        yield session


def paged(statement: Any, *, session: Session, batch: int = 64) -> Iterator[Any]:
    """The rows of ``statement`` read ``batch`` at a time: the caller usually needs only
    the first few."""
    start = 0
    while page := list(session.exec(statement.offset(start).limit(batch))):
        yield from page
        start += batch


def driver_rows(session: Session, statement: Any) -> Sequence[tuple]:
    """Every row of ``statement`` as the driver's plain tuples, read with its own cursor in
    ``session``'s transaction (its snapshot): for reads of hundreds of thousands of rows of
    integers and text (not times: SQLite gives its text), where SQLAlchemy's ``Row`` and
    result processing cost more than the read. The values are bound as the driver's
    parameters (never written into the SQL), with no type processing: ints and text."""
    connection = session.connection()
    # render_postcompile: an IN list becomes one parameter per value, in positiontup too.
    compiled = statement.compile(connection, compile_kwargs={"render_postcompile": True})
    params: Any = compiled.construct_params()
    if compiled.positional:  # SQLite's qmark; psycopg takes the names
        params = tuple(params[name] for name in compiled.positiontup or ())
    driver = connection.connection.dbapi_connection
    assert driver is not None
    cursor = driver.cursor()
    try:
        cursor.execute(compiled.string, params)
        return cursor.fetchall()
    finally:
        cursor.close()


# PostgreSQL's deadlock_detected and serialization_failure: the transaction lost a race and
# can be run again from the start.
RETRYABLE = {"40P01", "40001"}


def lost_a_race(error: BaseException) -> bool:
    """True for an error that means this transaction collided with another and may simply
    be tried again (on PostgreSQL; SQLite's writers are serial)."""
    from sqlalchemy.exc import DBAPIError

    return isinstance(error, DBAPIError) and getattr(error.orig, "sqlstate", None) in RETRYABLE


def retried(engine: Engine, work: Callable[[Session], Row], attempts: int = 5) -> Row:
    """``work(session)`` in one transaction (``session_scope``), run again when PostgreSQL
    undid it in a collision with another (``lost_a_race``): nothing of it was written, so a
    keypress caught in someone else's deadlock is not lost. The last collision is raised."""
    for attempt in range(attempts):
        try:
            with session_scope(engine) as session:
                return work(session)
        except Exception as error:
            if attempt == attempts - 1 or not lost_a_race(error):
                raise
    raise AssertionError("unreachable")


def _alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


# A migration script's own revision and the one it revises, as Alembic's template writes them.
_REVISION = re.compile(r'^(down_revision|revision)\b[^=]*=\s*(?:"([^"]+)"|None)', re.MULTILINE)


@functools.cache
def head_revision() -> str:
    """The schema revision this release of the tool expects: the one migration in
    ``storage/migrations/versions`` that no other revises. Read from the scripts' text, so
    that a command's schema check imports neither Alembic (a third of a second) nor the
    scripts, and needs no constant kept in step as migrations are merged (a test pins it to
    Alembic's own ``migrations_head``)."""
    revisions, revised = set(), set()
    for script in (MIGRATIONS / "versions").glob("*.py"):
        found = dict((name, value) for name, value in _REVISION.findall(script.read_text()))
        revisions.add(found["revision"])
        revised.add(found.get("down_revision") or None)
    heads = revisions - revised
    if len(heads) != 1:  # a bug of this package's, not the user's: Alembic would refuse too
        raise RuntimeError(f"the migrations have {len(heads)} heads: {sorted(heads)}")
    return heads.pop()


def migrations_head() -> str:
    """The newest revision as Alembic reads it from the migration scripts (slow: imports
    Alembic and every script); ``head_revision`` must equal it."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise LookupError(f"no migrations in {MIGRATIONS}")  # a broken install: a bug
    return head


def current_revision(engine: Engine) -> str | None:
    """The schema revision the database is at, or None when it has no schema yet: one
    SELECT of Alembic's version table (a missing table means no schema)."""
    from sqlalchemy import text
    from sqlalchemy.exc import DatabaseError as Unusable  # unreachable, or not a database
    from sqlalchemy.exc import DBAPIError

    try:
        with engine.connect() as connection:
            try:
                return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
            except DBAPIError:
                connection.rollback()
                if engine.dialect.has_table(connection, "alembic_version"):
                    raise
                return None
    except Unusable as exc:
        raise DatabaseError("db_unreachable", url=_safe(engine), detail=exc.orig) from exc


def upgrade(engine: Engine) -> str:
    """Create the schema or bring it up to date; returns the revision reached."""
    from alembic import command

    current_revision(engine)  # a clear error when the database cannot be reached
    command.upgrade(_alembic_config(engine), "head")
    return head_revision()


def check_schema(engine: Engine) -> None:
    """Raise ``DatabaseError`` unless the database is at the revision this release expects;
    a SQLite file that is not there is not made (connecting would make an empty one)."""
    database = engine.url.database
    a_file = engine.url.get_backend_name() == "sqlite" and database not in (None, "", ":memory:")
    if a_file and not Path(str(database)).exists():
        raise DatabaseError("db_missing", url=_safe(engine))
    _refuse_other_revision(current_revision(engine), _safe(engine))


def _refuse_other_revision(current: str | None, safe_url: str) -> None:
    """The schema check's verdict, the same whichever way the revision was read."""
    if current is None:
        raise DatabaseError("db_not_initialised", url=safe_url)
    head = head_revision()
    if current != head:
        raise DatabaseError("db_outdated", url=safe_url, current=current, head=head)


def _safe(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


# -- reading without SQLAlchemy -------------------------------------------------------------


@contextmanager
def read_connection(url: str | None = None) -> Iterator[Any]:
    """The driver's own connection (``sqlite3`` or ``psycopg``) to ``database_url(url)``,
    after the schema check of ``check_schema`` (same errors), in a snapshot as
    ``snapshot_connection``'s: a deferred transaction on SQLite, a read-only REPEATABLE READ
    one on PostgreSQL. Nothing is committed. For a command that must start at once and only
    reads; its SQL is the driver's (``?`` placeholders on SQLite, ``%s`` on PostgreSQL)."""
    url, safe = database_url(url), shown_url(url)
    parts = _URL.match(url)
    backend, rest, query = (parts["backend"], parts["rest"], parts["query"]) if parts else ("",) * 3
    if backend == "sqlite":
        connection = _sqlite_reader(rest.removeprefix("/"), safe)
    elif backend == "postgresql":
        connection = _postgres_reader(f"postgresql://{rest}" + (f"?{query}" if query else ""), safe)
    else:  # not a database this tool runs on: refused as every other command refuses it
        check_schema(make_engine(url))
        raise LookupError(f"no driver of its own for {safe}")  # a bug: the check refuses it
    try:
        yield connection
    finally:
        connection.rollback()
        connection.close()


def _sqlite_reader(path: str, safe_url: str) -> sqlite3.Connection:
    path = unquote(path)
    if path in ("", ":memory:"):
        raise DatabaseError("db_not_initialised", url=safe_url)  # a new memory database
    if not Path(path).exists():
        raise DatabaseError("db_missing", url=safe_url)
    connection = None
    try:
        connection = sqlite3.connect(
            path, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000, isolation_level=None
        )
        connection.execute("BEGIN DEFERRED")  # one state of the database for every count
        known = connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
        ).fetchone()[0]
        current = _revision(connection) if known else None
    except sqlite3.DatabaseError as exc:  # not a database, unreadable, locked for too long
        if connection is not None:
            connection.close()
        raise DatabaseError("db_unreachable", url=safe_url, detail=exc) from exc
    return _checked(connection, current, safe_url)


def _postgres_reader(conninfo: str, safe_url: str):
    import psycopg

    connection = None
    try:
        connection = psycopg.connect(conninfo)
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        known = connection.execute("SELECT to_regclass('alembic_version') IS NOT NULL")
        current = _revision(connection) if known.fetchone() == (True,) else None
    except psycopg.Error as exc:  # unreachable, refused, a URL libpq cannot read
        if connection is not None:
            connection.close()
        raise DatabaseError("db_unreachable", url=safe_url, detail=exc) from exc
    return _checked(connection, current, safe_url)


def _checked(connection: Any, current: str | None, safe_url: str) -> Any:
    """``connection`` when the database is at this release's revision; else it is closed
    (an open read would hold its snapshot, and on PostgreSQL its locks) and refused."""
    try:
        _refuse_other_revision(current, safe_url)
    except DatabaseError:
        connection.close()
        raise
    return connection


def _revision(connection) -> str | None:
    found = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return found[0] if found else None
