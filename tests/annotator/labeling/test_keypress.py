"""What one keypress on the labeling page costs does not grow with the pool or with the
annotator's history: the SQL statements it runs are counted in a small pool with a short
history and in a pool 20 times larger with a history 10 times longer, and are the same."""

from __future__ import annotations

from functools import partial

import pytest
from sqlalchemy import event

from annotator.auth import add_user
from annotator.labeling import assignment, page_position
from annotator.pools.pool_building import build_pool
from storage.db import session_scope
from storage.imports import import_corpus, import_queries, import_run
from tests.conftest import write
from tests.storage.test_imports import jsonl

CHUNKS = 6


def make_pool(engine, folder, queries: int, chunks: int) -> dict[str, int]:
    """A pool of ``queries`` x ``chunks`` candidates (overlap 2) and two annotators."""
    corpus = [{"_id": f"c{i}", "text": f"chunk {i}"} for i in range(chunks)]
    query_lines = [{"_id": f"q{i}", "text": f"query {i}"} for i in range(queries)]
    run = "".join(
        f"q{q} Q0 c{c} {c + 1} {chunks - c} r\n" for q in range(queries) for c in range(chunks)
    )
    with session_scope(engine) as session:
        import_corpus(write(folder, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(folder, "q.jsonl", jsonl(query_lines)), session=session, name="q")
        import_run(write(folder, "r.trec", run), session=session, system="r")
        users = {
            name: add_user(name, "annotator", "password-1", session=session).id
            for name in ("busy", "other")
        }
    build_pool(engine, "p", systems="run:r", depth=chunks, overlap=2)
    return users


def grade(engine, user: int, count: int) -> None:
    for _ in range(count):
        item = assignment.next_item(engine, "p", user)
        assert assignment.submit(engine, item, user, grade=1)


def keypress(engine, user: int, item, position: int | None = None) -> page_position.View:
    """A key grades ``item``; the page then renders again: the item at ``position`` (the
    next one to judge, or an earlier one) and the progress bars."""
    assert assignment.submit(engine, item, user, grade=2)
    return page_position.view(engine, "p", user, position)


def counted(engine, work, on: str = "before_cursor_execute"):
    """``work()``'s result and the number of SQL statements it ran (with ``on="begin"``,
    of transactions it began)."""
    statements = []

    def count(*_):
        statements.append(1)

    event.listen(engine, on, count)
    try:
        result = work()
    finally:
        event.remove(engine, on, count)
    return result, len(statements)


def costs(engine, folder, queries: int, history: int) -> dict[str, int]:
    """Statements for the three kinds of keypress, after ``history`` grades (whole queries
    of CHUNKS candidates each: the annotator then stands at the start of a fresh query)."""
    busy = make_pool(engine, folder, queries, CHUNKS)["busy"]
    grade(engine, busy, history)
    first = page_position.view(engine, "p", busy, None).item
    view, mid_query = counted(engine, lambda: keypress(engine, busy, first))
    for _ in range(CHUNKS - 2):  # up to the query's last candidate
        view = keypress(engine, busy, view.item)
    assert view.item.query_id == first.query_id
    view, ran_out = counted(engine, lambda: keypress(engine, busy, view.item))
    assert view.item.query_id != first.query_id
    _, back = counted(engine, lambda: keypress(engine, busy, view.item, position=history // 2))
    return {"mid-query": mid_query, "query ran out": ran_out, "back in history": back}


@pytest.fixture
def second_engine(db_url, tmp_path, postgres_reason):
    """Another empty, migrated database on the same backend as ``engine``."""
    from storage.db import make_engine, upgrade
    from tests.conftest import _new_database_url

    backend = "sqlite" if db_url.startswith("sqlite") else "postgres"
    urls = _new_database_url(backend, tmp_path / "large", postgres_reason)
    (tmp_path / "large").mkdir()
    made = make_engine(next(urls))
    upgrade(made)
    yield made
    made.dispose()
    for _ in urls:
        pass


def test_statements_per_keypress_are_the_same_at_two_sizes(engine, second_engine, tmp_path):
    small = costs(engine, tmp_path, queries=4, history=2 * CHUNKS)
    (tmp_path / "l").mkdir()
    large = costs(second_engine, tmp_path / "l", queries=80, history=20 * CHUNKS)
    assert large == small
    # A small constant: each statement is a round trip, and on a busy server's cores the
    # round trips, not the database's work, are what a key waits for (docs/deployment.md).
    assert max(small.values()) <= 40


def test_a_keypress_is_two_transactions_the_grade_and_the_render(engine, tmp_path):
    """The render after a key reads the history, claims the next item and counts the
    progress bars in one transaction: a round trip each is what a busy server makes slow."""
    busy = make_pool(engine, tmp_path, queries=2, chunks=CHUNKS)["busy"]
    view = page_position.view(engine, "p", busy, None)
    for position in (None, 0):
        grading = partial(keypress, engine, busy, view.item, position)
        view, began = counted(engine, grading, on="begin")
        assert began == 2
        assert view.position == position
        assert view.progress == assignment.progress(engine, "p", busy, view.item.query_id)
    assert view.progress.query_done == 2 and view.progress.pool_done == 2
