"""A demo database (the bundled collection, a pool, demo accounts) for app tests, and a
small pool with six annotators for assignment tests."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from annotator.auth import add_user
from annotator.cli import cli
from annotator.pool_building import build_pool
from storage.db import session_scope
from storage.imports import import_corpus, import_queries, import_run
from tests.conftest import write
from tests.storage.test_imports import jsonl


@pytest.fixture
def demo_url(tmp_path, monkeypatch) -> str:
    """``qrels demo --no-serve`` in a fresh folder; the app reads this URL."""
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    result = CliRunner().invoke(
        cli, ["demo", "--dir", str(tmp_path / "demo"), "--no-serve"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    url = f"sqlite:///{(tmp_path / 'demo' / 'qrels.db').resolve()}"
    monkeypatch.setenv("QRELS_DATABASE_URL", url)
    return url


N_QUERIES, N_CHUNKS = 4, 6


@pytest.fixture
def pool(engine, tmp_path, monkeypatch):
    """A pool of N_QUERIES x N_CHUNKS candidates with overlap 2, and annotators a1..a6."""
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
