"""A demo database (the bundled collection, a pool, demo accounts) for app tests."""

from __future__ import annotations

import pytest
import streamlit as st
from click.testing import CliRunner

from annotator.cli import cli


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


@pytest.fixture(autouse=True)
def fresh_caches():
    """Streamlit's cached engine is per process: one per test's database."""
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()
