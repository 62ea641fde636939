"""Issue 12, item 8: ``release verify`` trusted the folder. Edit ``qrels.trec``, put its new
sha256 in ``manifest.json``, and verify said "intact"."""

from __future__ import annotations

import json
import shutil

from pooling.release_folder import MANIFEST, sha256_of, verify_release
from tests.conftest import run_qrels


def forge(folder) -> None:
    """Raise every grade of ``qrels.trec`` to 3 and make the manifest agree."""
    trec = folder / "qrels.trec"
    trec.write_text("".join(line[:-2] + "3\n" for line in trec.read_text().splitlines(True)))
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["files"]["qrels.trec"] = sha256_of(trec)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def test_a_forged_release_agrees_with_itself_but_not_with_the_database(
    history, db_url, tmp_path, monkeypatch
):
    release = tmp_path / "v1"
    intact = run_qrels(db_url, "release", "verify", release).output
    assert "intact, and the release the database recorded" in intact

    forged = tmp_path / "forged" / "v1"
    shutil.copytree(release, forged)
    forge(forged)
    assert verify_release(forged) == []  # the folder agrees with itself
    refused = run_qrels(db_url, "release", "verify", forged, expect=2)
    assert "manifest.json is not the one recorded when release 'v1' was created" in refused.stderr

    manifest = json.loads((release / MANIFEST).read_text())
    manifest["release"] = "v9"  # a folder the database never recorded
    (forged / MANIFEST).write_text(json.dumps(manifest))
    unknown = run_qrels(db_url, "release", "verify", forged, expect=2).stderr
    assert "the database has no release 'v9'" in unknown

    # Away from any database, verify says what it could and could not check.
    monkeypatch.delenv("QRELS_DATABASE_URL", raising=False)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # no ./qrels.db here
    from click.testing import CliRunner

    from annotator.cli import cli

    alone = CliRunner().invoke(cli, ["release", "verify", str(release)])
    assert alone.exit_code == 0 and "no database to compare with" in alone.output
