"""Issue 21, item 3: forged release folders were trusted by ``qrels carry``, ``qrels gold add
--release``, the Adjudication page's gold from a release and the Evaluate page, which checked
a folder only against itself: a folder ``release verify`` rejects was carried and its forged
grades published, an edited ``qrels.trec`` became gold items, a manifest's 5,051-character
release name with an ESC became an account, and the Evaluate page offered folders nobody
recorded, hidden ones too. Now every use goes through one check against the database's
record (``storage.release_records.recorded_release``). On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import shutil

import pytest

from annotator.quality import gold
from annotator.releases import carry, releases
from pooling.i18n import LocalizedError
from pooling.release_folder import MANIFEST, verify_release
from tests.conftest import run_qrels, snapshot
from tests.security.test_release_tampering import forge

LONG = "v" * 5050 + "\x1b"


def forged(release, tmp_path) -> dict[str, tuple]:
    """Folders that agree with themselves (``verify_release``), each with what refuses it."""
    found = {}
    for name, version, says in (
        ("edited", None, "manifest.json is not the one recorded when release 'v1'"),
        ("unrecorded", "v9", "the database has no release 'v9'"),
        ("long", LONG, "is not a release version"),
    ):
        folder = tmp_path / name / "v1"
        shutil.copytree(release, folder)
        forge(folder)  # every grade 3, the manifest's sha256 made to agree
        if version is not None:
            manifest = json.loads((folder / MANIFEST).read_text())
            (folder / MANIFEST).write_text(json.dumps({**manifest, "release": version}))
        assert verify_release(folder) == []
        found[name] = (folder, says)
    return found


def test_forged_folders_are_refused_by_every_use_and_nothing_is_written(history, db_url, tmp_path):
    engine = history
    before = snapshot(engine)
    for folder, says in forged(tmp_path / "v1", tmp_path).values():
        with pytest.raises(LocalizedError, match=says):
            carry.carry(engine, folder, "c", "carried")
        with pytest.raises(LocalizedError, match=says):
            gold.add_from_release(engine, "p", folder)
        for command in (
            ("carry", "--release", folder, "--to-corpus-version", "c", "--pool", "carried"),
            ("gold", "add", "--pool", "p", "--release", folder),
        ):
            refused = run_qrels(db_url, *command, expect=2).stderr
            assert "is not the release this database recorded" in refused and says in refused
            assert "\x1b" not in refused and len(refused) < 2000
    assert snapshot(engine) == before  # no pool, no gold item, no account, no judgment


def test_the_app_offers_and_reads_recorded_releases_only(history, tmp_path, monkeypatch):
    engine = history
    shelf = tmp_path / "shelf"
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(shelf))
    shutil.copytree(tmp_path / "v1", shelf / "v1")
    shutil.copytree(tmp_path / "v1", shelf / ".v1")  # hidden
    unrecorded = forged(tmp_path / "v1", tmp_path)["unrecorded"][0]
    shutil.copytree(unrecorded, shelf / "v9")
    # The Evaluate page and the Adjudication page offer this list.
    assert releases.app_releases(engine) == ["v1"]
    assert releases.recorded_folder(engine, "v1") == shelf / "v1"
    for version, says in ((".v1", "is not a release version"), ("v9", "has no release 'v9'")):
        with pytest.raises(LocalizedError, match=says):
            releases.recorded_folder(engine, version)
    forge(shelf / "v1")  # changed after it was offered: refused when it is read
    with pytest.raises(LocalizedError, match="not the one recorded when release 'v1'"):
        releases.recorded_folder(engine, "v1")
