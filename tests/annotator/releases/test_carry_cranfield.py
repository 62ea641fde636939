"""Carrying judgments across chunking changes on Cranfield (../shared/datasets; skipped when
absent): whole documents -> 300 characters (a few documents changed or gone in the new
version), then 300 -> 500, both tool-chunked."""

from __future__ import annotations

import functools
import json

import pytest
from sqlmodel import select

from annotator.judge.calibration import calibrate_judge
from annotator.releases import carry
from pooling import carry_mapping, release_folder
from storage.chunk_spans import chunk_places
from storage.db import make_engine, session_scope
from storage.models import Chunk, CorpusVersion
from storage.pool_records import get_pool, pool_candidates
from storage.release_records import chunk_names
from tests.conftest import run_qrels, run_text, write

pytestmark = pytest.mark.datasets

CHANGED = ["12", "51", "184"]  # judged documents whose text the new version revises
GONE = ["13", "29"]  # judged documents the new version leaves out


def version(session, name: str) -> CorpusVersion:
    return session.exec(select(CorpusVersion).where(CorpusVersion.name == name)).one()


def parents_of(engine, name: str) -> dict[str, str]:
    with session_scope(engine) as session:
        return chunk_names(version(session, name), session=session)[1]


def pooled_documents(engine, pool: str, name: str) -> dict[str, set[str]]:
    """Per query, the documents of the pool's candidates (on corpus version ``name``)."""
    with session_scope(engine) as session:
        candidates = pool_candidates(get_pool(pool, session=session), session=session)
    parents = parents_of(engine, name)
    found: dict[str, set[str]] = {}
    for candidate in candidates:
        found.setdefault(candidate.query_id, set()).add(parents[candidate.chunk_id])
    return found


def spans_slice_back(engine, name: str, texts: dict[str, str]) -> int:
    """Checks ``text[start:end] == chunk text`` for every chunk of ``name``; returns how
    many chunks there are."""
    with session_scope(engine) as session:
        cv = version(session, name)
        places = chunk_places(cv, session=session)
        rows = select(Chunk.chunk_id, Chunk.text).where(Chunk.corpus_version_id == cv.id)
        chunks = dict(session.exec(rows).all())
    for place in places:
        assert texts[place.doc_id][place.start : place.end] == chunks[place.chunk_id], place
    return len(places)


def test_cranfield_carried_from_whole_documents_to_300_then_to_500(
    datasets, db_url, tmp_path, monkeypatch
):
    monkeypatch.setenv("QRELS_LANG", "en")
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    folder = datasets / "cranfield"
    qrels = functools.partial(run_qrels, db_url)
    documents = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    revised = [
        {**d, "text": d["text"] + " (revised)"} if d["_id"] in CHANGED else d
        for d in documents
        if d["_id"] not in GONE
    ]
    texts = {d["_id"]: d["text"] for d in revised}
    new_corpus = write(tmp_path, "revised.jsonl", "".join(json.dumps(d) + "\n" for d in revised))

    qrels("init")
    qrels("import", "corpus", folder / "corpus.jsonl", "--corpus-version", "cran", "--allow-empty")
    for size in (300, 500):
        qrels("import", "corpus", new_corpus, "--corpus-version", f"cran{size}",
              "--chunk-size", size, "--allow-empty")  # fmt: skip
    qrels("import", "queries", folder / "queries.jsonl", "--query-set", "cranfield")
    qrels("import", "judgments", folder / "qrels.tsv", "--annotator", "cranfield",
          "--corpus-version", "cran")  # fmt: skip
    # A release of the collection's own judgments: a pool holding exactly the judged pairs.
    judged = [line.split("\t") for line in (folder / "qrels.tsv").read_text().splitlines()[1:]]
    run = run_text(((q, d) for q, d, _ in judged), "cranfield")
    qrels("import", "run", write(tmp_path, "judged.trec", run), "--system", "judged",
          "--corpus-version", "cran")  # fmt: skip
    qrels("pool", "build", "p", "--systems", "run:judged", "--depth", "1000", "--overlap", "1",
          "--corpus-version", "cran")  # fmt: skip
    qrels("release", "create", "v1", "--pool", "p", "--out", tmp_path)
    v1 = release_folder.read_qrels(tmp_path / "v1")
    assert v1.size == 1612

    out = qrels("carry", "--release", tmp_path / "v1", "--to-corpus-version", "cran300",
                "--pool", "p300", "--overlap", "1").output  # fmt: skip
    engine = make_engine(db_url)
    status = carry.carry_status(engine, "p300")
    counts = {row.mapping: row.judged for row in status.classes}
    assert sum(counts.values()) == v1.size  # every judged candidate has a class
    assert counts["merged"] == counts["partial"] == counts["lost"] == 0
    assert counts["split"] > 0 and counts["same_text"] > 0
    relevant = v1.relevant()
    affected = {q: docs & {*CHANGED, *GONE} for q, docs in relevant.items()}
    assert counts["document_changed"] == sum(len(d & set(CHANGED)) for d in affected.values())
    assert counts["document_missing"] == sum(len(d & set(GONE)) for d in affected.values())
    assert status.documents["document_changed"] == sorted(CHANGED)
    assert status.documents["document_missing"] == sorted(GONE)
    assert "not mapped: document changed: " in out and "(3 documents: 12, 184, 51)" in out
    # The pool's documents hold every relevant document of the release but the changed and
    # gone ones, which are never mapped.
    pooled = pooled_documents(engine, "p300", "cran300")
    for query_id, docs in relevant.items():
        assert docs - affected[query_id] <= pooled.get(query_id, set()), query_id
        assert not pooled.get(query_id, set()) & {*CHANGED, *GONE}
    assert spans_slice_back(engine, "cran300", texts) > 1400

    # People (simulated) grade the 300-character chunks: a document's grade on its first
    # chunk, one less on the others. Released as v300, then carried on to 500 characters.
    with session_scope(engine) as session:
        candidates = pool_candidates(get_pool("p300", session=session), session=session)
    grades = {(q, d): int(g) for q, d, g in judged}
    lines = []
    for c in candidates:
        doc, position = c.chunk_id.rsplit("#", 1)
        grade = grades[(c.query_id, doc)]
        lines.append(f"{c.query_id} 0 {c.chunk_id} {grade if position == '0' else grade - 1}\n")
    qrels("import", "judgments", write(tmp_path, "people.trec", "".join(lines)),
          "--annotator", "people", "--corpus-version", "cran300")  # fmt: skip
    qrels("release", "create", "v300", "--pool", "p300", "--out", tmp_path)
    v300 = release_folder.read_qrels(tmp_path / "v300")
    manifest = release_folder.read_manifest(tmp_path / "v300")
    assert manifest["derived_from"]["release"] == "v1"
    assert manifest["derived_from"]["mapping"] == {r.mapping: r.judged for r in status.classes}

    calibration = calibrate_judge(engine, "carried:v1", tmp_path / "v300")
    assert calibration.shared == v300.size
    assert calibration.per_class["same_text"]["same_grade"] == 1.0  # one chunk: its grade
    assert calibration.per_class["split"]["same_grade"] < 1.0

    qrels("carry", "--release", tmp_path / "v300", "--to-corpus-version", "cran500",
          "--pool", "p500")  # fmt: skip
    status = carry.carry_status(engine, "p500")
    counts = {row.mapping: row.judged for row in status.classes}
    assert sum(counts.values()) == v300.size
    assert counts["merged"] > 0 and counts["partial"] > 0
    assert all(counts[reason] == 0 for reason in carry_mapping.UNMAPPED)  # the same documents
    pooled = pooled_documents(engine, "p500", "cran500")
    for query_id, docs in v300.documents(parents_of(engine, "cran300")).relevant().items():
        assert docs <= pooled[query_id], query_id
    assert spans_slice_back(engine, "cran500", texts) > 1400

    diff = qrels("release", "diff", tmp_path / "v1", tmp_path / "v300").output
    assert "different corpus versions (cran -> cran300): chunk ids differ" in diff
    stranded = sum(1 for _, d, _ in judged if d in {*CHANGED, *GONE})  # never mapped
    assert f"added 0, removed {stranded}, changed " in diff


def test_chinese_chunks_slice_back_to_their_text(datasets, db_url):
    """CMRC 2018 dev, cut by 120 characters with 20 overlapping: every span is right."""
    corpus = datasets / "cmrc2018-dev" / "corpus.jsonl"
    run_qrels(db_url, "init")
    run_qrels(db_url, "import", "corpus", corpus, "--corpus-version", "cmrc120",
              "--chunk-size", "120", "--chunk-overlap", "20")  # fmt: skip
    texts = {d["_id"]: d["text"] for d in map(json.loads, corpus.read_text().splitlines())}
    assert spans_slice_back(make_engine(db_url), "cmrc120", texts) > 3 * len(texts)
