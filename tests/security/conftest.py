"""A small pool with history in every append-only table, for the attacks of issue 12:
the corpus, queries and run of the release tests, a pool of the run's candidates, two
annotators' imported grades, a lead's decision, and a release."""

from __future__ import annotations

import pytest

from annotator.auth import add_user
from annotator.pool_building import build_pool
from storage import accounts
from storage.db import session_scope
from storage.history import adjudicate
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.pool_records import get_pool
from tests.annotator.test_releases import CORPUS, GRADES, QUERIES, RUN
from tests.conftest import write
from tests.storage.test_bad_input import seeded  # noqa: F401  (a fixture, for item 10)
from tests.storage.test_imports import jsonl


@pytest.fixture
def pooled(engine, tmp_path, monkeypatch):
    """Pool ``p`` (run ``r``, depth 5, overlap 2), annotators ann1 and ann2 with passwords
    ``password-1``, lead ``boss``; nothing judged yet."""
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", RUN), session=session, system="r")
        for name in GRADES:
            add_user(name, "annotator", "password-1", session=session)
        add_user("boss", "lead", "password-1", session=session)
    build_pool(engine, "p", systems="run:r", depth=5)
    return engine


@pytest.fixture
def history(pooled, tmp_path):
    """``pooled`` with both annotators' grades imported, one decision, and release v1."""
    from annotator.releases import create_release

    with session_scope(pooled) as session:
        for name, grades in GRADES.items():
            lines = "".join(f"{q} 0 {c} {g}\n" for (q, c), g in grades.items())
            import_judgments(
                write(tmp_path, f"{name}.trec", lines),
                session=session,
                annotator=name,
                rubric_version="v1",
            )
        boss = accounts.get_user("boss", session=session)
        pool = get_pool("p", session=session)
        adjudicate(pool, "q1", "a#1", 2, "read twice", boss, "threshold", session=session)
    create_release(pooled, "v1", "p", tmp_path / "v1", allow_unresolved=True)
    return pooled
