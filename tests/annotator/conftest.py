"""A demo database (the bundled collection, a pool, demo accounts) for app tests, and that
database after some work."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import streamlit as st
from click.testing import CliRunner

from annotator.cli import cli
from tests.migrated_template import copy_sqlite


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    """A folder holding ``qrels demo --no-serve --empty``'s database (``demo/qrels.db``)
    and its index cache (``cache/``), made once per session: the demo takes about 5 s of
    CPU (imports, a pool, two indexes), and some 40 app tests start from it."""
    folder = tmp_path_factory.mktemp("demo_template")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QRELS_CACHE_DIR", str(folder / "cache"))
        patch.setenv("QRELS_LANG", "en")
        result = CliRunner().invoke(
            cli,
            ["demo", "--dir", str(folder / "demo"), "--no-serve", "--empty"],
            catch_exceptions=False,
        )
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def demo_url(demo_template, tmp_path, monkeypatch) -> str:
    """A copy of ``qrels demo --no-serve --empty`` in a fresh folder (nobody has graded),
    its index cache copied too (``demo_template``); the app reads this URL."""
    shutil.copytree(demo_template / "cache", tmp_path / "cache")
    (tmp_path / "demo").mkdir()
    copy_sqlite(demo_template / "demo" / "qrels.db", tmp_path / "demo" / "qrels.db")
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    url = f"sqlite:///{(tmp_path / 'demo' / 'qrels.db').resolve()}"
    monkeypatch.setenv("QRELS_DATABASE_URL", url)
    return url


@pytest.fixture(autouse=True)
def fresh_caches():
    """Streamlit's cached engine and figures are per process: one per test's database."""
    st.cache_resource.clear()
    st.cache_data.clear()
    yield
    st.cache_resource.clear()
    st.cache_data.clear()


@pytest.fixture
def worked(demo_url, clock):
    """The demo pool after two annotators judged the same five candidates yesterday,
    twenty minutes apart (annotator2 grading one of them unsure)."""
    from annotator.labeling import assignment
    from storage.accounts import get_user
    from storage.db import make_engine, session_scope

    engine = make_engine(demo_url)
    clock.now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=1)
    first = []
    for name, grades in (("annotator1", [0, 1, 2, 3, 2]), ("annotator2", [1, 1, 3, None, 0])):
        with session_scope(engine) as session:
            uid = get_user(name, session=session).id
        while grades:
            item = assignment.next_item(engine, "demo-pool", uid)
            key = (item.query_id, item.chunk_id)
            if name == "annotator2" and key not in first:
                assignment.skip(engine, item, uid)  # annotator2 looks for annotator1's five
                continue
            clock.advance(minutes=20)
            grade = grades.pop(0)
            note = "which one?" if grade is None else ""
            assignment.submit(
                engine, item, uid, grade=grade, unsure=grade is None, note=note, seconds=9
            )
            if name == "annotator1":
                first.append(key)
    return engine
