"""``qrels release create --out``: the folder that holds releases since 0.2.0, and the old
form (the release's own folder, ending in the version) still read so, with a warning, until
0.3.0 (CHANGELOG.md)."""

from __future__ import annotations

from tests.annotator.releases.test_releases import judged, pooled  # noqa: F401  (fixtures)
from tests.conftest import run_qrels


def create(db_url, version, out, expect=0, lang="en"):
    return run_qrels(
        db_url,
        "--lang",
        lang,
        "release",
        "create",
        version,
        "--pool",
        "p",
        "--out",
        out,
        "--allow-unresolved",
        expect=expect,
    )


def test_out_names_the_folder_that_holds_releases(judged, db_url, tmp_path):  # noqa: F811
    result = create(db_url, "v1", tmp_path / "releases")
    assert (tmp_path / "releases" / "v1" / "manifest.json").is_file()
    assert "warning" not in result.stderr


def test_the_old_form_writes_where_it_did_and_says_what_to_write_now(
    judged,  # noqa: F811
    db_url,
    tmp_path,
):
    old = tmp_path / "releases" / "v1"
    result = create(db_url, "v1", old)
    assert (old / "manifest.json").is_file() and not (old / "v1").exists()
    assert "before 0.2.0" in result.stderr and f"--out {tmp_path / 'releases'}" in result.stderr
    # A script that made the (empty) folder first, as the old form allowed.
    made = tmp_path / "made" / "v2"
    made.mkdir(parents=True)
    result = create(db_url, "v2", made, lang="zh")
    assert (made / "manifest.json").is_file() and not (made / "v2").exists()
    assert "0.2.0 之前" in result.stderr


def test_the_old_form_never_writes_into_a_folder_that_holds_something(
    judged,  # noqa: F811
    db_url,
    tmp_path,
):
    taken = tmp_path / "releases" / "v1"
    taken.mkdir(parents=True)
    (taken / "notes.txt").write_text("mine")
    result = create(db_url, "v1", taken, expect=2)
    assert "exists" in result.stderr
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]
