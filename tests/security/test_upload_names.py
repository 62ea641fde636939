"""Issue 12, item 2: a lead's upload wrote and deleted any file the app could write. The
Releases page built a path from the uploaded file's client-supplied name
(``release_dir()/f".{uploaded.name}"``), so ``/../../x`` escaped the folder (and
``/v1/manifest.json`` landed on a release's manifest); the file was then deleted."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotator.app import uploads
from pooling.release_folder import verify_release
from storage import accounts
from storage.db import session_scope
from tests.annotator.app.test_app import literal

PAGE = Path(__file__).resolve().parents[2] / "annotator" / "app" / "pages" / "releases_page.py"
RUN = b"q1 Q0 a#0 1 3 new\nq1 Q0 c#0 2 2 new\n"


@pytest.fixture
def page(history, db_url, tmp_path, monkeypatch):
    """The Releases page for the lead, release v1 in its folder; uploads spool to a
    folder of the test's own, to see what they leave behind."""
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path))
    monkeypatch.setenv("QRELS_DATABASE_URL", db_url)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "spool"))
    (tmp_path / "spool").mkdir()
    st.cache_resource.clear()
    with session_scope(history) as session:
        lead = accounts.get_user("boss", session=session).id

    def upload(name: str, data: bytes) -> AppTest:
        at = AppTest.from_file(str(PAGE), default_timeout=60)
        at.session_state["user_id"] = lead
        at.run()
        at.file_uploader(key="coverage_run").set_value((name, data, "text/plain"))
        return at.run()

    return upload


def test_a_file_name_never_becomes_a_path(page, tmp_path):
    escape = f"x-{uuid.uuid4().hex}"
    victim = tmp_path.parent.parent / escape  # where "./../../<name>" used to land
    victim.write_text("precious")
    before = sorted(tmp_path.rglob("*"))
    try:
        for name in (f"/../../{escape}", "/v1/manifest.json", "../x", "..", "/"):
            at = page(name, RUN)
            assert not at.exception and not at.error, name
            assert at.dataframe[-2].value["Judged@k"].tolist()  # the upload was read
        assert victim.read_text() == "precious"
    finally:
        victim.unlink()
    assert verify_release(tmp_path / "v1") == []
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, nothing removed
    assert list((tmp_path / "spool").iterdir()) == []


def test_an_oversize_upload_is_refused_before_it_is_written(page, tmp_path, monkeypatch):
    monkeypatch.setattr(uploads, "LIMIT_BYTES", len(RUN) - 1)
    written = []
    monkeypatch.setattr(uploads.tempfile, "mkstemp", lambda **kw: written.append(kw))
    at = page("big.trec", RUN)
    assert not at.exception
    assert literal(at.error[0]).startswith("big.trec: larger than the")
    assert written == [] and not at.dataframe[1:]  # no coverage computed
