"""The schema itself: migrations, engine settings, and rules the database enforces."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import select

from pooling.settings import chosen
from storage.db import (
    DatabaseError,
    _alembic_config,
    check_schema,
    current_revision,
    database_url,
    head_revision,
    make_engine,
    migrations_head,
    read_connection,
    session_scope,
    upgrade,
)
from storage.models import Chunk, Judgment
from tests.conftest import write
from tests.storage.test_imports import CORPUS, QUERIES, jsonl


def test_url_from_flag_then_environment_then_default(monkeypatch):
    monkeypatch.delenv("QRELS_DATABASE_URL", raising=False)
    assert database_url() == "sqlite:///qrels.db"
    monkeypatch.setenv("QRELS_DATABASE_URL", "sqlite:///env.db")
    assert database_url() == "sqlite:///env.db"
    assert database_url("sqlite:///flag.db") == "sqlite:///flag.db"
    assert database_url("postgresql://u:p@h:5432/d") == "postgresql+psycopg://u:p@h:5432/d"


def test_sqlite_runs_in_wal_with_foreign_keys_and_busy_timeout(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 30_000


def test_the_apps_engine_spreads_no_query_over_the_servers_cores(db_url, monkeypatch):
    """The app's PostgreSQL sessions plan no parallel query, however many transactions
    they end (a lead's count took every core from the annotators' keys); a command's keep
    the server's setting."""
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite plans no parallel query")
    from annotator.app import ui

    monkeypatch.setenv("QRELS_DATABASE_URL", db_url)
    ui.engine.clear()
    show = text("SHOW max_parallel_workers_per_gather")
    for engine, expected in ((ui.engine(), "0"), (make_engine(db_url), None)):
        for _ in range(2):  # a transaction rolled back, then another
            with engine.connect() as connection:
                found = connection.execute(show).scalar()
        assert found == expected if expected else found != "0"
        engine.dispose()
    ui.engine.clear()


def test_an_empty_database_must_be_initialised_first(db_url):
    engine = make_engine(db_url)
    with engine.connect():  # an empty database (SQLite: an empty file)
        pass
    with pytest.raises(DatabaseError, match="has no qrels-studio schema; run `qrels init` first"):
        check_schema(engine)
    assert upgrade(engine) == head_revision() == current_revision(engine)
    check_schema(engine)
    assert upgrade(engine) == head_revision()  # upgrading again is harmless


def test_the_schema_head_is_the_newest_migration():
    # Every command checks the database against head_revision, read from the scripts' text
    # without Alembic: it must name the revision Alembic upgrades to.
    assert head_revision() == migrations_head()


def test_migrations_go_down_and_up_again(engine):
    command.downgrade(_alembic_config(engine), "base")
    assert current_revision(engine) is None
    upgrade(engine)
    check_schema(engine)


def test_unreachable_database_is_reported():
    engine = make_engine("postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(DatabaseError, match="cannot connect to the database"):
        upgrade(engine)


def refusals(engine, url: str) -> list[tuple[str, str]]:
    """What ``check_schema`` (every command) and ``read_connection`` (``qrels status``, which
    reads without SQLAlchemy) say about the database, in English and in Chinese."""
    said = []
    for language in ("en", "zh"):
        with chosen(language=language):
            with pytest.raises(DatabaseError) as by_engine:
                check_schema(engine)
            with pytest.raises(DatabaseError) as by_driver, read_connection(url):
                pass
            said.append((str(by_engine.value), str(by_driver.value)))
    return said


def test_status_refuses_a_database_at_another_revision_as_every_command_does(db_url):
    engine = make_engine(db_url)
    with engine.connect():  # an empty database (SQLite: an empty file)
        pass
    (english, _), (chinese, _) = said = refusals(engine, db_url)
    assert all(by_engine == by_driver for by_engine, by_driver in said), said
    assert "has no qrels-studio schema" in english and "尚未建立" in chinese
    upgrade(engine)
    with session_scope(engine) as session:
        session.execute(text("UPDATE alembic_version SET version_num = '0005'"))
    (english, _), (chinese, _) = said = refusals(engine, db_url)
    assert all(by_engine == by_driver for by_engine, by_driver in said), said
    assert f"has schema 0005, this release needs {head_revision()}" in english
    assert "表结构版本为 0005" in chinese
    with session_scope(engine) as session:
        session.execute(text(f"UPDATE alembic_version SET version_num = '{head_revision()}'"))
    with read_connection(db_url) as connection:  # at the head: it reads
        found = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert found[0] == head_revision()
    engine.dispose()


def test_status_names_a_missing_file_or_an_unreachable_server_as_every_command_does(tmp_path):
    missing = f"sqlite:///{tmp_path / 'qrels.db'}"
    assert [a == b for a, b in refusals(make_engine(missing), missing)] == [True, True]
    assert not (tmp_path / "qrels.db").exists()
    not_a_database = write(tmp_path, "notes.db", "not a database\n")
    url = f"sqlite:///{not_a_database}"
    said = refusals(make_engine(url), url)  # a traceback from every command but status before
    assert [a == b for a, b in said] == [True, True] and "file is not a database" in said[0][0]
    unreachable = "postgresql://nobody@127.0.0.1:1/none"
    with (
        pytest.raises(DatabaseError, match="cannot connect to the database"),
        read_connection(unreachable),
    ):
        pass


def load(engine, tmp_path, judgments: str, annotator: str = "a", chunk_size=None) -> Path:
    """Corpus version ``c`` (chunked by ``chunk_size`` when given), query set ``q`` and
    ``judgments`` (TREC) by ``annotator``; returns the corpus file."""
    from storage.imports import import_corpus, import_judgments, import_queries

    corpus = write(tmp_path, "c.jsonl", jsonl(CORPUS))
    with session_scope(engine) as session:
        import_corpus(corpus, session=session, version="c", chunk_size=chunk_size)
        import_queries(write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="q")
        import_judgments(
            write(tmp_path, "j.trec", judgments),
            session=session,
            annotator=annotator,
            rubric_version="v1",
        )
    return corpus


@pytest.fixture
def judged(engine, tmp_path):
    load(engine, tmp_path, "q1 0 tea 2\n")
    return engine


@pytest.mark.parametrize(
    "statement",
    ["UPDATE judgment SET grade = 0", "DELETE FROM judgment"],
    ids=["update", "delete"],
)
def test_judgments_are_append_only_in_the_database(judged, statement):
    with pytest.raises(DBAPIError, match="append-only"), judged.begin() as connection:
        connection.execute(text(statement))
    with session_scope(judged) as session:
        assert session.exec(select(Judgment.grade)).all() == [2]


@pytest.mark.parametrize(
    ("grade", "unsure"),
    [(4, False), (-1, False), (None, False), (2, True)],
    ids=["above-3", "negative", "no-grade-not-unsure", "grade-and-unsure"],
)
def test_the_database_refuses_impossible_judgments(judged, grade, unsure):
    with session_scope(judged) as session:
        valid = session.exec(select(Judgment)).one()
        row = valid.model_dump(exclude={"id", "created_at"})
    row.update(grade=grade, unsure=unsure)
    with pytest.raises(IntegrityError), session_scope(judged) as session:
        session.add(Judgment(**row))


def test_foreign_keys_are_enforced(judged):
    with session_scope(judged) as session:
        row = session.exec(select(Judgment)).one().model_dump(exclude={"id", "created_at"})
    row["chunk_id"] = 999_999
    with pytest.raises(IntegrityError), session_scope(judged) as session:
        session.add(Judgment(**row))


def test_migrations_match_the_models(engine):
    """A change to models.py without a migration fails here, on both databases."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlmodel import SQLModel

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_upgrading_from_the_first_release_keeps_every_judgment(db_url, tmp_path):
    """A database made by revision 0001, with judgments, goes to head and back and forward
    again; the judgments survive and stay append-only."""
    engine = make_engine(db_url)
    command.upgrade(_alembic_config(engine), "0001")
    with engine.begin() as connection:  # rows as revision 0001 wrote them
        connection.execute(
            text(
                "INSERT INTO app_user (name, role, kind, disabled, created_at) "
                "VALUES ('old', 'annotator', 'human', false, CURRENT_TIMESTAMP)"
            )
        )
    upgrade(engine)
    load(engine, tmp_path, "q1 0 tea 2\nq2 0 bike 1\n", annotator="old")
    command.downgrade(_alembic_config(engine), "0001")
    upgrade(engine)
    check_schema(engine)
    with session_scope(engine) as session:
        assert sorted(session.exec(select(Judgment.grade)).all()) == [1, 2]
    with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
        connection.execute(text("DELETE FROM judgment"))
    engine.dispose()


def test_upgrading_to_spans_keeps_every_judgment_and_a_re_import_records_them(db_url, tmp_path):
    """A database at revision 0002 holding a chunked corpus and judgments goes to head: the
    judgments survive, append-only; the chunks have no spans until the corpus is imported
    again, identical, which records them."""
    from storage.imports import import_corpus

    engine = make_engine(db_url)
    upgrade(engine)
    corpus = load(engine, tmp_path, "q1 0 tea#0 2\nq2 0 bike#1 1\n", "old", chunk_size=8)
    command.downgrade(_alembic_config(engine), "0002")  # as the release before wrote it
    with engine.connect() as connection:
        columns = connection.execute(text("SELECT * FROM chunk")).keys()
    assert "span_start" not in columns
    upgrade(engine)
    check_schema(engine)
    with session_scope(engine) as session:
        assert sorted(session.exec(select(Judgment.grade)).all()) == [1, 2]
        assert set(session.exec(select(Chunk.span_start)).all()) == {None}
    with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
        connection.execute(text("UPDATE judgment SET grade = 3"))
    with session_scope(engine) as session:
        again = import_corpus(corpus, session=session, version="c", chunk_size=8)
        chunks = session.exec(select(Chunk)).all()
    texts = {d["_id"]: d["text"] for d in CORPUS if "doc_id" not in d}
    cut = [c for c in chunks if c.chunk_id.split("#")[0] in texts]  # not the pre-chunked ones
    assert not again.created and again.notes == [
        ("spans_no_documents", {"chunks": 2, "documents": 1}),
        ("spans_recorded", {"chunks": len(cut)}),
    ]
    for chunk in cut:
        assert texts[chunk.chunk_id.split("#")[0]][chunk.span_start : chunk.span_end] == chunk.text
    engine.dispose()


def test_a_missing_sqlite_file_is_named_and_not_made(tmp_path):
    """``qrels status`` without the demo's export made an empty ./qrels.db (issue 25)."""
    missing = tmp_path / "qrels.db"
    with pytest.raises(DatabaseError, match="there is no database at .*: run `qrels init`"):
        check_schema(make_engine(f"sqlite:///{missing}"))
    assert not missing.exists()


def _stored(engine) -> tuple[str | None, bytes]:
    """How PostgreSQL compressed pool p's saved checkpoint (None: not at all), and its
    payload as read back."""
    from storage import figure_records
    from storage.pool_records import get_pool

    with session_scope(engine) as session:
        saved = figure_records.checkpoint(get_pool("p", session=session), session=session)
        assert saved is not None
        method = session.execute(
            text("SELECT pg_column_compression(payload) FROM figure_checkpoint")
        )
        return method.scalar(), saved.payload


def test_the_figures_checkpoint_is_saved_without_pglz_and_reads_back(engine, pool):
    """A pool's checkpoint (130 MB at L) is saved with lz4 on PostgreSQL, or uncompressed
    where the server has no lz4: pglz made a save at L take 7-21 s. A downgrade gives the
    default back; the payload reads back the same either way, on both databases."""
    from storage import figure_records
    from storage.pool_records import get_pool

    payload = bytes(range(256)) * 4096  # 1 MiB, compressible: PostgreSQL compresses it

    def save() -> None:
        with session_scope(engine) as session:
            figure_records.save_checkpoint(
                get_pool("p", session=session),
                session=session,
                judgment_mark=1,
                seen=1,
                adjudication_mark=0,
                payload=payload,
            )

    save()
    if engine.dialect.name != "postgresql":
        with session_scope(engine) as session:
            saved = figure_records.checkpoint(get_pool("p", session=session), session=session)
        assert saved is not None and saved.payload == payload
        command.downgrade(_alembic_config(engine), "0015")
        upgrade(engine)
        return
    with engine.connect() as connection:
        lz4 = connection.execute(
            text(
                "SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression'"
                " AND 'lz4' = ANY(enumvals)"
            )
        ).scalar()
    assert _stored(engine) == ("lz4" if lz4 else None, payload)
    command.downgrade(_alembic_config(engine), "0015")
    save()  # the default again: pglz
    assert _stored(engine) == ("pglz", payload)
    upgrade(engine)
    save()
    assert _stored(engine) == ("lz4" if lz4 else None, payload)
