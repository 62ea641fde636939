"""Issue 12, item 3: a release version escaped the releases folder on the Releases page
(``../../x``, ``/abs/x``): the folder was written outside it and recorded for good. Two
creates of one version at once could leave a written folder behind with an uncaught
IntegrityError."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotator.releases import releases
from pooling.release_folder import verify_release
from storage import accounts
from storage.db import session_scope
from storage.models import Release
from tests.annotator.app.test_app import literal
from tests.conftest import run_qrels, together

PAGE = Path(__file__).resolve().parents[2] / "annotator" / "app" / "pages" / "releases_page.py"


def recorded(engine) -> list[str]:
    with session_scope(engine) as session:
        return list(session.exec(select(Release.version)))


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_a_version_that_is_a_path_is_refused_everywhere(pooled, db_url, tmp_path, monkeypatch):
    import streamlit as st

    root = tmp_path / "site"  # the releases folder is deep inside it; escapes land in it
    outside = root / "somewhere" / "x"
    releases_folder = root / "a" / "b" / "releases"
    releases_folder.mkdir(parents=True)
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(releases_folder))
    monkeypatch.setenv("QRELS_DATABASE_URL", db_url)
    bad = ["../../x", "../../../somewhere/x", str(outside), "a/b", ".", "..", "", "..\\x", "v 1"]
    for version in bad:
        with pytest.raises(releases.ReleaseError, match="is not a release version"):
            releases.create_release(pooled, version, "p", allow_unresolved=True)
        result = run_qrels(
            db_url, "release", "create", version, "--pool", "p", "--out", root / "out", expect=2
        )
        assert "is not a release version" in result.stderr
    st.cache_resource.clear()
    with session_scope(pooled) as session:
        lead = accounts.get_user("boss", session=session).id
    for version in ("../../x", "../../../somewhere/x", str(outside)):
        at = AppTest.from_file(str(PAGE), default_timeout=60)
        at.session_state["user_id"] = lead
        at.run()
        at.text_input[0].input(version)
        at.checkbox[0].check()
        at.button[0].click().run()
        assert not at.exception
        assert "is not a release version" in literal(at.error[0])
    assert files_under(root) == {"a", "a/b", "a/b/releases"}
    assert recorded(pooled) == []


def test_a_failed_create_leaves_nothing_behind(pooled, tmp_path, monkeypatch):
    taken = tmp_path / "out" / "v1"
    taken.mkdir(parents=True)
    (taken / "notes.txt").write_text("someone else's")
    with pytest.raises(releases.ReleaseError, match="out/v1 exists already"):
        releases.create_release(pooled, "v1", "p", tmp_path / "out", allow_unresolved=True)
    assert files_under(tmp_path / "out") == {"v1", "v1/notes.txt"}
    taken.joinpath("notes.txt").unlink()
    with pytest.raises(releases.ReleaseError, match="out/v1 exists already"):  # even empty
        releases.create_release(pooled, "v1", "p", tmp_path / "out", allow_unresolved=True)
    taken.rmdir()
    real = releases.write_release

    def fails_midway(folder, *args, **kwargs):
        real(folder, *args, **kwargs)  # every file written, then the disk fills up
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(releases, "write_release", fails_midway)
    with pytest.raises(OSError, match="No space left"):
        releases.create_release(pooled, "v1", "p", tmp_path / "out", allow_unresolved=True)
    assert files_under(tmp_path / "out") == set() and recorded(pooled) == []


@pytest.mark.parametrize("folders", ["the same folder", "two folders"])
def test_two_creates_of_one_version_at_once(pooled, tmp_path, monkeypatch, folders):
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))

    def create(where: str) -> str:
        out = None if folders == "the same folder" else tmp_path / where
        try:
            releases.create_release(pooled, "v1", "p", out, allow_unresolved=True)
        except releases.ReleaseError as error:
            return str(error)
        return "created"

    answers = together(create, ["one", "two"])
    # The loser is refused by whichever check it reaches first: the recorded version, or
    # (when the winner has made its folder but not yet recorded it) the folder.
    refusals = {
        "release 'v1' already exists; a version is never rewritten",
        f"{tmp_path / 'releases' / 'v1'} exists already; a release goes into a new folder "
        "VERSION under --out",
    }
    assert list(answers.values()).count("created") == 1
    (refused,) = [a for a in answers.values() if a != "created"]
    assert refused in refusals, refused
    manifests = [str(m) for m in tmp_path.rglob("manifest.json")]
    assert len(manifests) == 1 and verify_release(Path(manifests[0]).parent) == []
    assert [p for p in tmp_path.rglob(".*")] == []  # no half-written sibling left
    assert recorded(pooled) == ["v1"]
