"""The real collections in ../shared/datasets import on both databases with the counts
their READMEs give; skipped where that folder is absent."""

from __future__ import annotations

import pytest

from tests.conftest import run_qrels

pytestmark = pytest.mark.datasets


def run(db_url: str, *args) -> str:
    return run_qrels(db_url, *args).output


@pytest.mark.parametrize(
    ("name", "extra", "expected"),
    [
        (
            "cranfield",
            ["--allow-empty"],  # Cranfield documents 471 and 995 are empty; 995 is judged
            ["1,400 documents, 1,400 chunks", "225 queries", "1,612 judgments on 225 queries"],
        ),
        (
            "cmrc2018-dev",
            [],
            ["848 documents, 848 chunks", "3,219 queries", "3,219 judgments on 3,219 queries"],
        ),
    ],
)
def test_real_collection_imports_and_status_counts(
    datasets, db_url, monkeypatch, name, extra, expected
):
    monkeypatch.setenv("QRELS_LANG", "en")
    folder = datasets / name
    run(db_url, "init")
    run(db_url, "import", "corpus", folder / "corpus.jsonl", "--corpus-version", name, *extra)
    run(db_url, "import", "queries", folder / "queries.jsonl", "--query-set", name)
    run(db_url, "import", "judgments", folder / "qrels.tsv", "--annotator", name)
    status = run(db_url, "status")
    for fragment in expected:
        assert fragment in status
    assert f"judgments by annotator: {name} " in status
