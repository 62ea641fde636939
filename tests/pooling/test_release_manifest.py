"""``verify_release`` on a folder whose manifest is not a manifest: a problem named, never
a traceback (``qrels release verify`` takes any folder a user names)."""

from __future__ import annotations

import pytest

from pooling.release_folder import FILES, verify_release


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe not utf-8",
        b'["files"]',
        b'{"files": ["qrels.trec"]}',
        b'{"files": {"qrels.trec": ' + b"9" * 5000 + b"}}",
    ],
    ids=["not-utf8", "not-an-object", "files-not-an-object", "huge-number"],
)
def test_a_manifest_that_is_not_one_is_a_problem_named(tmp_path, content):
    for name in FILES:  # each file there: the manifest's list of them is read
        (tmp_path / name).write_text("")
    (tmp_path / "manifest.json").write_bytes(content)
    (problem,) = verify_release(tmp_path)
    assert problem.startswith("manifest.json: cannot be read (")
