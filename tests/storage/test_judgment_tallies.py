"""The judgments per person and query set, and the judged queries, that the database keeps
(``judgment_tally``, ``judged_query``: migration 0017's triggers) and ``qrels status`` reads,
equal a count of the history from scratch, whatever wrote the judgments: the app's
keypresses and changes of grade, imports (human and model) into two query sets, carried
grades, a plain insert as the model judge makes, and a database upgraded from before the
counts existed. Both backends."""

from __future__ import annotations

import random

import pytest
from alembic import command
from sqlalchemy import event, func, insert, text
from sqlmodel import select

from storage.clock import utcnow
from storage.db import _alembic_config, read_connection, session_scope, upgrade
from storage.imports import annotator_account, import_corpus, import_judgments, import_queries
from storage.models import Chunk, Judgment, Query, QuerySet
from storage.status import status
from storage.tally_tables import JudgedQuery, JudgmentTally
from tests.conftest import N_CHUNKS, N_QUERIES, write
from tests.storage.test_candidate_judges import carried, imported, revise
from tests.storage.test_imports import jsonl
from tests.storage.test_tallies import work


def counted(engine) -> tuple[tuple[dict, set], tuple[dict, set]]:
    """(query set, user) -> judgments, and the judged queries: as kept, then from scratch."""
    with session_scope(engine) as session:
        kept = {
            (t.query_set_id, t.user_id): t.judgments for t in session.exec(select(JudgmentTally))
        }
        judged = set(session.exec(select(JudgedQuery.query_id)))
        recounted = {
            (set_id, user): count
            for set_id, user, count in session.execute(
                select(Query.query_set_id, Judgment.user_id, func.count())
                .join(Query, Query.id == Judgment.query_id)
                .group_by(Query.query_set_id, Judgment.user_id)
            )
        }
        named = set(session.exec(select(Judgment.query_id).distinct()))
    return (kept, judged), (recounted, named)


def assert_counts_agree(engine) -> None:
    kept, recounted = counted(engine)
    assert kept == recounted


def inserted(engine, query_set: str, rng) -> None:
    """A model's grade written as the judge writes it: one ``Judgment`` added and flushed."""
    with session_scope(engine) as session:
        user, _ = annotator_account("llm", "model", session=session)
        set_id = session.exec(select(QuerySet.id).where(QuerySet.name == query_set)).one()
        query = session.exec(
            select(Query.id).where(Query.query_set_id == set_id, Query.query_id == "q3")
        ).one()
        chunk = session.execute(select(func.min(Chunk.id))).scalar_one()
        session.add(
            Judgment(
                user_id=user.id,
                query_id=query,
                chunk_id=chunk,
                grade=rng.randint(0, 3),
                rubric_version="v1",
            )
        )


def test_kept_counts_equal_a_recount_after_random_interleavings(engine, pool, tmp_path):
    # A second query set with the same query ids: its judgments are counted apart.
    queries = [{"_id": f"q{i}", "text": f"another query {i}"} for i in range(N_QUERIES)]
    with session_scope(engine) as session:
        import_queries(write(tmp_path, "q2.jsonl", jsonl(queries)), session=session, name="q2")
    assert_counts_agree(engine)
    rng = random.Random(17)
    users = list(pool.values())
    for step in range(20):
        action = rng.choice(["app", "app", "revise", "import", "carry", "insert"])
        if action == "app":
            work(engine, rng.choice(users), seed=step, grades=rng.randint(1, 4))
        elif action == "revise":
            revise(engine, rng.choice(users), rng)
        elif action == "import":
            annotator, kind = rng.choice([("a1", "human"), ("imp", "human"), ("llm", "model")])
            imported(
                engine, tmp_path, annotator, kind, rng, step, query_set=rng.choice(["q", "q2"])
            )
        elif action == "carry":
            carried(engine, "a2", "human", rng, step, query_set="q")
        else:
            inserted(engine, rng.choice(["q", "q2"]), rng)
        assert_counts_agree(engine)
    (kept, judged), _ = counted(engine)
    assert len({set_id for set_id, _ in kept}) == 2, "both query sets were judged"
    assert sum(kept.values()) > len(judged) > N_QUERIES


def test_status_reads_the_kept_counts(engine, pool):
    work(engine, pool["a1"], seed=1, grades=5)
    work(engine, pool["a2"], seed=2, grades=3)
    url = engine.url.render_as_string(hide_password=False)
    with read_connection(url) as connection:
        (summary,) = status(connection).query_sets
    (kept, judged), _ = counted(engine)
    assert summary.judgments_by_annotator == {"a1": 5, "a2": 3}
    assert summary.judgments == sum(kept.values()) == 8
    assert summary.judged_queries == len(judged) > 0


def test_status_reads_what_the_imports_counted(engine, pool):
    """Documents, chunks and run entries, as each import counted them, also after an
    upgrade from before it did."""
    url = engine.url.render_as_string(hide_password=False)
    expected = ([("c", N_CHUNKS, N_CHUNKS)], [("r", "external_run", N_QUERIES * N_CHUNKS)])
    for upgraded in (False, True):
        if upgraded:
            command.downgrade(_alembic_config(engine), "0016")
            upgrade(engine)
        with read_connection(url) as connection:
            found = status(connection)
        versions = [(v.name, v.documents, v.chunks) for v in found.corpus_versions]
        assert (versions, found.systems) == expected, upgraded


def test_an_upgrade_counts_the_judgments_made_before(engine, pool):
    for name in ("a1", "a2"):
        work(engine, pool[name], seed=5, grades=6)
    command.downgrade(_alembic_config(engine), "0016")
    # Written while nothing counted them (as the code of then would): counted by the upgrade.
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO judgment (user_id, query_id, chunk_id, grade, unsure, note,"
                " rubric_version, created_at) SELECT :user, query_id, chunk_id, grade, unsure,"
                " note, rubric_version, created_at FROM judgment"
            ),
            {"user": pool["a4"]},
        )
    upgrade(engine)
    assert_counts_agree(engine)
    (kept, _), _ = counted(engine)
    assert sum(kept.values()) == 24
    work(engine, pool["a3"], seed=6, grades=2)  # and the trigger counts what comes after
    assert_counts_agree(engine)


def test_many_judgments_at_once_reach_postgresql_in_few_statements(engine, tmp_path):
    """The judgment trigger runs once per statement. One statement a row (psycopg's
    executemany) made a million judgments in one transaction quadratic on PostgreSQL, each
    run updating the same tally rows again. An import writes with one COPY a batch; other
    code's many rows go as multi-row INSERTs of 1,000 (the engine's setting). Counted as
    the server receives them: an executemany is a statement a row."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite runs the trigger per row and updates the tally in place")
    size = 50
    with session_scope(engine) as session:
        chunks = [{"_id": f"c{i}", "text": f"chunk {i}"} for i in range(size)]
        import_corpus(write(tmp_path, "c.jsonl", jsonl(chunks)), session=session, version="c")
        queries = [{"_id": f"q{i}", "text": f"query {i}"} for i in range(size)]
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
    lines = "".join(f"q{q} 0 c{c} {(q + c) % 4}\n" for q in range(size) for c in range(size))
    received = []

    def count(_connection, _cursor, statement, parameters, _context, _executemany):
        if statement.startswith(("INSERT INTO judgment ", "COPY judgment ")):
            # A batch of many rows comes as one set of parameters, an executemany as a list.
            received.append(len(parameters) if isinstance(parameters, list) else 1)

    event.listen(engine, "before_cursor_execute", count)
    try:
        with session_scope(engine) as session:
            import_judgments(
                write(tmp_path, "j.qrels", lines),
                session=session,
                annotator="imp",
                rubric_version="v1",
                kind="human",
            )
        assert received == []  # COPY goes past SQLAlchemy: no INSERT
        note = 'a \\N and \\t, "quoted", 冷藏 \\'  # what COPY's text format escapes
        line = {"query_id": "q1", "chunk_id": "c1", "grade": None, "unsure": True, "note": note}
        with session_scope(engine) as session:
            import_judgments(
                write(tmp_path, "j.jsonl", jsonl([line])),
                session=session,
                annotator="imp2",
                rubric_version="v1",
                kind="human",
            )
            saved = session.exec(select(Judgment).where(Judgment.note != "")).one()
        assert (saved.note, saved.grade, saved.unsure) == (note, None, True)
        with session_scope(engine) as session:
            user, _ = annotator_account("llm", "model", session=session)
            copies = [
                {
                    "user_id": user.id,
                    "query_id": q,
                    "chunk_id": c,
                    "grade": g,
                    "rubric_version": "v1",
                    "created_at": utcnow(),
                }
                for q, c, g in session.execute(
                    select(Judgment.query_id, Judgment.chunk_id, Judgment.grade).where(
                        Judgment.grade.is_not(None)
                    )
                )
            ]
            session.execute(insert(Judgment), copies)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert sum(received) == 3  # 2,500 rows: 1,000 + 1,000 + 500
    assert_counts_agree(engine)
    (kept, _), _ = counted(engine)
    assert sorted(kept.values()) == [1, size * size, size * size]
