"""What the attacks of issue 12 are tried on: the release tests' pool (``pooled``: corpus,
queries, run, pool ``p``, annotators ann1 and ann2 and lead boss, all with the password
``password-1``), the same with history in every append-only table (``history``), and the
bad-input tests' database (``seeded``). Messages in English."""

from __future__ import annotations

import pytest

from storage import accounts
from storage.db import session_scope
from storage.history import adjudicate
from storage.imports import import_judgments
from storage.pool_records import get_pool
from tests.annotator.quality.test_gold import gold_pool  # noqa: F401  (a fixture, issue 21)
from tests.annotator.releases.test_releases import GRADES, pooled  # noqa: F401  (a fixture)
from tests.conftest import write
from tests.storage.test_bad_input import seeded  # noqa: F401  (a fixture, for item 10)


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")


@pytest.fixture
def history(pooled, tmp_path):  # noqa: F811  (the fixture imported above)
    """``pooled`` with both annotators' grades imported, one decision, and release v1."""
    from annotator.releases.releases import create_release

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
    create_release(pooled, "v1", "p", tmp_path, allow_unresolved=True)
    return pooled
