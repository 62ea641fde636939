"""Carrying a release's judgments to another chunking of the same documents: the mapping by
hand, the pool it builds, the carried judge that never reaches a release or an annotator,
calibration per mapping class, --accept-carried, and diff across corpus versions."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from annotator.auth import add_user
from annotator.judge.calibration import calibrate_judge
from annotator.labeling import assignment
from annotator.releases import carry, releases
from pooling import carry_mapping, release_folder
from pooling.carry_mapping import ChunkPlace
from pooling.i18n import LocalizedError
from pooling.qrels import Qrels
from pooling.spans import Overlap
from storage.db import session_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.models import Judgment, User
from storage.pool_records import get_pool, pool_candidates
from tests.conftest import run_qrels, run_text, snapshot, write
from tests.storage.test_imports import jsonl

# -- the mapping, by hand ----------------------------------------------------------------


def places(*rows) -> list[ChunkPlace]:
    return [ChunkPlace(*row) for row in rows]


def test_plan_maps_every_judgment_and_reports_what_it_cannot_map():
    old = {p.chunk_id: p for p in places(
        ("a0", "a", 0, 100), ("a1", "a", 100, 200), ("b0", "b", 0, 50), ("c0", "c", 0, 10),
        ("d0", "d", 0, 10), ("e0", "e", None, None), ("f0", "f", 0, 300), ("g0", "g", 0, 10),
    )}  # fmt: skip
    new = places(
        ("a#0", "a", 0, 150), ("a#1", "a", 150, 200),  # a0 inside a#0; a1 across both
        ("b#0", "b", 0, 50),  # the same text
        ("c#0", "c", 0, 10),  # c changed
        ("e#0", "e", 0, 10),  # e0 was never located
        ("f#0", "f", 0, 100), ("f#1", "f", 100, 200), ("f#2", "f", 200, 300),
        ("g#0", "g", 0, 10),  # g's text is not known in the old version
    )  # fmt: skip
    old_hashes = {"a": "A", "b": "B", "c": "C", "d": "D", "e": "E", "f": "F", "g": None}
    new_hashes = {"a": "A", "b": "B", "c": "C2", "e": "E", "f": "F", "g": "G"}
    qrels = Qrels({"q1": {"a0": 3, "a1": 0, "b0": 2, "c0": 1}, "q2": {"d0": 2, "e0": 1}})
    qrels.grades["q2"].update({"f0": 1, "g0": 3})
    chunks = carry_mapping.plan(qrels, old, new, old_hashes, new_hashes)
    found = {(c.query_id, c.chunk_id): (c.mapping, c.overlaps) for c in chunks}
    assert found[("q1", "a0")] == ("merged", (Overlap("a#0", 100, 1.0, 100 / 150),))
    assert found[("q1", "a1")] == (
        "partial",
        (Overlap("a#0", 50, 0.5, 50 / 150), Overlap("a#1", 50, 0.5, 1.0)),
    )
    assert found[("q1", "b0")] == ("same_text", (Overlap("b#0", 50, 1.0, 1.0),))
    assert found[("q2", "f0")][0] == "split" and len(found[("q2", "f0")][1]) == 3
    assert {key: m for key, (m, o) in found.items() if not o} == {
        ("q1", "c0"): "document_changed",
        ("q2", "d0"): "document_missing",
        ("q2", "e0"): "span_unknown",
        ("q2", "g0"): "document_unknown",
    }
    counts = carry_mapping.class_counts(chunks)
    assert sum(counts.values()) == qrels.size == 8
    assert counts == {
        "same_text": 1, "split": 1, "merged": 1, "partial": 1, "lost": 0,
        "document_changed": 1, "document_missing": 1, "document_unknown": 1, "span_unknown": 1,
    }  # fmt: skip
    assert carry_mapping.unmapped_documents(chunks) == {
        "document_changed": ["c"],
        "document_missing": ["d"],
        "document_unknown": ["g"],
        "span_unknown": ["e"],
    }
    # a#0 holds a0 (3, merged) and part of a1 (0, partial): it carries the higher grade.
    grades = carry_mapping.carried_grades(chunks)
    # a#1 lies inside a1: the pair's class is "split" (a1 itself is "partial").
    assert grades[("q1", "a#0")] == (3, "merged") and grades[("q1", "a#1")] == (0, "split")
    assert set(grades) == {
        ("q1", "a#0"), ("q1", "a#1"), ("q1", "b#0"), ("q2", "f#0"), ("q2", "f#1"), ("q2", "f#2")
    }  # fmt: skip


def test_equal_grades_keep_the_most_faithful_class():
    chunks = [
        carry_mapping.CarriedChunk("q", "x", "d", 2, "partial", (Overlap("n", 5, 0.5, 0.5),)),
        carry_mapping.CarriedChunk("q", "y", "d", 2, "merged", (Overlap("n", 10, 1.0, 0.5),)),
    ]
    assert carry_mapping.carried_grades(chunks) == {("q", "n"): (2, "merged")}


# -- carrying in the database --------------------------------------------------------------

DOCS = [
    {"_id": "a", "title": "Brakes", "text": "Brake pads wear down over time. Replace them "
     "below 1.5 mm of lining. Check them every month."},
    {"_id": "b", "title": "Fluid", "text": "Hydraulic brakes need bleeding once a year."},
    {"_id": "c", "title": "Note", "text": "Short note."},
    {"_id": "d", "title": "Tea", "text": "Green tea stays fresh when kept cold and sealed."},
    {"_id": "e", "title": "Tea", "text": "Tea keeps cold."},
]  # fmt: skip
# The next version: b's text changed, d gone; chunked by 30 characters.
DOCS_V2 = [
    DOCS[0],
    {**DOCS[1], "text": "Hydraulic brakes need bleeding twice a year."},
    DOCS[2],
    DOCS[4],
]
QUERIES = [
    {"_id": "q1", "text": "brake pads", "split": "dev", "slices": ["brakes"]},
    {"_id": "q2", "text": "how to keep things", "split": "test"},
]
RELEASED = "q1 0 a 3\nq1 0 c 2\nq1 0 e 0\nq2 0 a 1\nq2 0 b 2\nq2 0 d 1\nq2 0 e 2\n"
SPLIT_A = ["a#0", "a#1", "a#2", "a#3"]  # a, cut by 30 characters


@pytest.fixture
def released(engine, tmp_path, monkeypatch):
    """Release v1 of whole documents (graded by an imported annotator), and the corpus
    version c30 (the same documents but two, chunked by 30 characters)."""
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "docs.jsonl", jsonl(DOCS)), session=session, version="whole")
        import_corpus(
            write(tmp_path, "docs2.jsonl", jsonl(DOCS_V2)),
            session=session,
            version="c30",
            chunk_size=30,
        )
        import_queries(write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="q")
        pairs = ((q, d) for q, _, d, _ in map(str.split, RELEASED.splitlines()))
        run_file = write(tmp_path, "r.trec", run_text(pairs))
        import_run(run_file, session=session, system="r", corpus_version="whole")
        import_judgments(
            write(tmp_path, "v1.trec", RELEASED),
            session=session,
            annotator="cranfield",
            rubric_version="v1",
            corpus_version="whole",
        )
        for name in ("ann1", "ann2"):
            add_user(name, "annotator", "password-1", session=session)
    from annotator.pools.pool_building import build_pool

    build_pool(engine, "p", systems="run:r", depth=10, overlap=1, corpus_version="whole")
    return releases.create_release(engine, "v1", "p", tmp_path).folder


def test_carrying_builds_a_pool_of_every_overlapping_chunk(engine, released):
    result = carry.carry(engine, released, "c30", "p30")
    assert result.judge == "carried:v1" and result.pool.added == 11
    assert result.counts == {
        "same_text": 3, "split": 2, "merged": 0, "partial": 0, "lost": 0,
        "document_changed": 1, "document_missing": 1, "document_unknown": 0, "span_unknown": 0,
    }  # fmt: skip
    assert sum(result.counts.values()) == release_folder.read_qrels(released).size
    assert result.documents["document_changed"] == ["b"]
    assert result.documents["document_missing"] == ["d"]
    with session_scope(engine) as session:
        pool = get_pool("p30", session=session)
        candidates = pool_candidates(pool, session=session)
        judge = session.exec(select(User).where(User.name == "carried:v1")).one()
        carried = session.exec(select(Judgment).where(Judgment.user_id == judge.id)).all()
    assert {(c.query_id, c.chunk_id) for c in candidates} == {
        *(("q1", c) for c in [*SPLIT_A, "c#0", "e#0"]),
        *(("q2", c) for c in [*SPLIT_A, "e#0"]),
    }
    assert {s.system for c in candidates for s in c.sources} == {"carried:v1"}
    assert judge.kind == "model" and judge.password_hash is None
    assert sorted(j.grade for j in carried) == [0] + [1] * 4 + [2, 2] + [3] * 4  # 0 pooled too
    assert {j.pool_id for j in carried} == {pool.id}


def test_carrying_again_or_to_the_same_version_is_refused_and_writes_nothing(
    engine, released, tmp_path
):
    carry.carry(engine, released, "c30", "p30")
    before = snapshot(engine)
    for version, pool, message in [
        ("c30", "other", "release 'v1' was already carried to corpus version 'c30'"),
        ("whole", "other", "corpus version 'whole' is the release's own"),
        ("c30", "p30", "release 'v1' was already carried"),
        ("nope", "other", "corpus version 'nope' does not exist"),
    ]:
        with (
            pytest.raises(LookupError, match=message)
            if version == "nope"
            else pytest.raises(LocalizedError, match=message)
        ):
            carry.carry(engine, released, version, pool)
    with pytest.raises(LocalizedError, match="above 0 and at most 1"):
        carry.carry(engine, released, "c30", "other", min_overlap=1.5)
    (released / "qrels.trec").write_text("q1 0 a 0\n")
    with pytest.raises(
        LocalizedError, match="is not the release this database recorded.*qrels.trec: sha256"
    ):
        carry.carry(engine, released, "c30", "other")
    assert snapshot(engine) == before


def grade_everything(engine, pool: str, grades: dict) -> None:
    """ann1 and ann2 grade every candidate they are given, ``grades[(query, chunk)]`` (0
    for the rest); the items they see carry no grade and no provenance."""
    with session_scope(engine) as session:
        ids = {
            n: session.exec(select(User.id).where(User.name == n)).one() for n in ("ann1", "ann2")
        }
    for uid in ids.values():
        while (item := assignment.next_item(engine, pool, uid)) is not None:
            shown = json.dumps(vars(item), default=str)
            assert "carried" not in shown and item.grade is None
            assignment.submit(
                engine, item, uid, grade=grades.get((item.query_id, item.chunk_id), 0)
            )


HUMANS = {("q1", "a#1"): 3, ("q1", "a#2"): 2, ("q1", "c#0"): 2, ("q2", "e#0"): 1}


def test_the_carried_judge_never_reaches_a_release_or_an_annotator(engine, released, tmp_path):
    carry.carry(engine, released, "c30", "p30")
    grade_everything(engine, "p30", HUMANS)  # each sees all 11 candidates: no slot is held
    folder = releases.create_release(engine, "v2", "p30", tmp_path).folder
    qrels = release_folder.read_qrels(folder)
    assert qrels.size == 11
    assert {(q, c): g for q, c, g in qrels.judgments() if g} == HUMANS  # people's grades only
    history = (folder / "judgments.jsonl").read_text()
    assert "carried" not in history
    assert len(history.splitlines()) == 22  # two people, eleven candidates
    manifest = release_folder.read_manifest(folder)
    assert manifest["derived_from"]["release"] == "v1"
    assert manifest["derived_from"]["corpus_version"]["name"] == "whole"
    assert manifest["derived_from"]["mapping"]["split"] == 2
    assert manifest["derived_from"]["accepted_carried"] == 0
    assert release_folder.verify_release(folder) == []

    # Calibration of the carried judge against the re-judged grades, per mapping class.
    result = calibrate_judge(engine, "carried:v1", folder)
    assert result.shared == 11 and set(result.per_class) == {"same_text", "split"}
    same, split = result.per_class["same_text"], result.per_class["split"]
    # same text: q1 c#0 carried 2, judged 2; q1 e#0 0 and 0; q2 e#0 carried 2, judged 1.
    assert same["shared"] == 3 and same["same_grade"] == pytest.approx(2 / 3)
    assert same["mean_gap"] == pytest.approx(1 / 3)
    # split: q1 carried 3 onto a#0..a#3, judged 0, 3, 2, 0; q2 carried 1, judged 0 each.
    assert split["shared"] == 8
    assert split["same_grade"] == pytest.approx(1 / 8)
    assert split["mean_gap"] == pytest.approx((3 + 0 + 1 + 3 + 4 * 1) / 8)

    # The document-level diff across the two corpus versions.
    change = releases.diff_releases(released, folder)
    assert change.level == "document" and change.corpus_versions == ("whole", "c30")
    assert change.removed == [("q2", "b", 2), ("q2", "d", 1)]  # not mapped: not pooled
    assert change.changed == [("q2", "a", 1, 0), ("q2", "e", 2, 1)]


def test_accept_carried_publishes_same_text_grades_of_dev_queries_only(
    engine, released, tmp_path, db_url
):
    carry.carry(engine, released, "c30", "p30")
    # People judge everything but the same-text candidates: c#0 and e#0 (q1, dev), e#0 (q2,
    # test).
    with session_scope(engine) as session:
        for name in ("h1", "h2"):
            import_judgments(
                write(
                    tmp_path,
                    "h.trec",
                    "".join(f"{q} 0 {c} 1\n" for q in ("q1", "q2") for c in SPLIT_A),
                ),
                session=session,
                annotator=name,
                rubric_version="v1",
                corpus_version="c30",
            )
    with pytest.raises(releases.ReleaseError, match="3 candidates are unresolved"):
        releases.create_release(engine, "v2", "p30", tmp_path)
    with pytest.raises(releases.ReleaseError, match="1 candidates are unresolved.*q2 / e#0"):
        releases.create_release(engine, "v2", "p30", tmp_path, accept_carried=True)
    out = run_qrels(
        db_url, "release", "create", "v2", "--pool", "p30", "--out", tmp_path,
        "--accept-carried", "--allow-unresolved",
    ).output  # fmt: skip
    assert "2 carried 'same text' grades of dev queries accepted without re-judging, 1 of " in out
    folder = tmp_path / "v2"
    published = (folder / "qrels.trec").read_text()
    assert "q1 0 c#0 2" in published and "q1 0 e#0 0" in published
    assert "q2 0 e#0" not in published
    # The published carried grades are in judgments.jsonl: the file can be worked out again.
    assert release_folder.recompute(folder) == Qrels.from_file(folder / "qrels.trec")
    carried = [
        record
        for record in map(json.loads, (folder / "judgments.jsonl").read_text().splitlines())
        if record["type"] == "carried"
    ]
    assert carried == [
        {
            "type": "carried",
            "judge": "carried:v1",
            "query_id": "q1",
            "chunk_id": "c#0",
            "grade": 2,
            "mapping": "same_text",
            "from_release": "v1",
            "from_chunks": ["c"],
        },
        {
            "type": "carried",
            "judge": "carried:v1",
            "query_id": "q1",
            "chunk_id": "e#0",
            "grade": 0,
            "mapping": "same_text",
            "from_release": "v1",
            "from_chunks": ["e"],
        },
    ]
    lineage = release_folder.read_manifest(folder)["derived_from"]
    assert (lineage["accepted_carried"], lineage["refused_carried_test_split"]) == (2, 1)
    assert release_folder.verify_release(folder) == []
    with pytest.raises(LocalizedError, match="pool 'p' was not built by `qrels carry`"):
        releases.create_release(engine, "v3", "p", tmp_path, accept_carried=True)


def test_the_cli_carries_shows_and_tops_up_a_carried_pool(engine, released, db_url):
    out = run_qrels(db_url, "carry", "--release", released, "--to-corpus-version", "c30",
                    "--pool", "p30", "--overlap", "1").output  # fmt: skip
    assert (
        "carried release 'v1' to corpus version 'c30': pool 'p30', 11 candidates for 2 queries "
        "(overlap 1), from 7 judged candidates:"
    ) in out
    assert "  split: 2\n" in out and "  lost: 0\n" in out
    assert "  not mapped: document changed: 1 (1 documents: b)" in out
    assert "qrels calibrate --judge carried:v1 --release NEW" in out
    shown = run_qrels(db_url, "pool", "show", "p30").output
    assert "Carried from release v1 (corpus version whole, chunking none; min overlap 0.2)" in shown
    assert "same text: 3 judged in the release, 3 candidates here, 0 re-judged" in shown
    topped = run_qrels(db_url, "pool", "topup", "p30", "--systems", "bm25", "--depth", "2").output
    assert "pool 'p30':" in topped
    chinese = run_qrels(db_url, "--lang", "zh", "pool", "show", "p30").output
    assert "迁移自发布 v1" in chinese and "文本相同：发布中已定级 3 个" in chinese
    bad = run_qrels(db_url, "carry", "--release", released, "--to-corpus-version", "c30",
                    "--pool", "again", "--min-overlap", "0", expect=2)  # fmt: skip
    assert "--min-overlap is a share of characters above 0 and at most 1, got 0.0" in bad.stderr


# -- the app ---------------------------------------------------------------------------------


def app_page(name: str, url: str, user: str, pool: str):
    from streamlit.testing.v1 import AppTest

    from tests.annotator.app.test_app import PAGES, user_id

    at = AppTest.from_file(str(PAGES / name), default_timeout=60)
    at.session_state["user_id"] = user_id(url, user)
    at.session_state["chosen_pool"] = pool
    return at.run()


@pytest.fixture
def carried_app(engine, released, db_url, monkeypatch):
    import streamlit as st

    carry.carry(engine, released, "c30", "p30")
    with session_scope(engine) as session:
        add_user("boss", "lead", "password-1", session=session)
    monkeypatch.setenv("QRELS_DATABASE_URL", db_url)
    st.cache_resource.clear()  # the app's engine, for this test's database
    yield db_url
    st.cache_resource.clear()


def test_an_annotator_sees_nothing_carried_on_the_labeling_page(carried_app):
    from tests.annotator.app.test_app import shown_text

    at = app_page("label_page.py", carried_app, "ann1", "p30")
    assert not at.exception
    text = shown_text(at) + "\n".join(str(t.value) for t in at.text)
    assert "Your share of this pool: 0 / 11" in text  # the carried pool, to be graded blind
    for hidden in ("carried", "same text", "split", "mapping", "released", "whole"):
        assert hidden not in text.lower(), hidden


def test_the_pools_page_shows_what_carry_status_computes(carried_app, engine):
    at = app_page("pools_page.py", carried_app, "boss", "p30")
    assert not at.exception and not at.error
    assert "Carried from release v1 (corpus version whole" in "\n".join(t.value for t in at.text)
    status = carry.carry_status(engine, "p30")
    table = at.dataframe[-3].value  # the carried section's, last: classes, documents, chunks
    assert list(table.columns) == ["mapping", "judged in the release", "candidates", "re-judged"]
    assert list(table["judged in the release"]) == [row.judged for row in status.classes]
    assert list(table["candidates"]) == [row.candidates for row in status.classes]
    assert dict(zip(table["mapping"], table["candidates"], strict=True))["split"] == 8
    documents = at.dataframe[-2].value
    assert documents.values.tolist() == [
        ["not mapped: document changed", "b"],
        ["not mapped: document missing", "d"],
    ]
    grade_everything(engine, "p30", HUMANS)
    at = app_page("pools_page.py", carried_app, "boss", "p30")
    table = at.dataframe[-3].value
    assert list(table["re-judged"])[:2] == [3, 8]  # every same-text and split candidate


def test_nothing_mapped_still_reports_and_builds_an_empty_pool(engine, released, tmp_path):
    with session_scope(engine) as session:
        changed = [{**d, "text": d["text"] + " Revised."} for d in DOCS]
        import_corpus(write(tmp_path, "all.jsonl", jsonl(changed)), session=session,
                      version="revised", chunk_size=30)  # fmt: skip
    result = carry.carry(engine, released, "revised", "nothing")
    assert result.pool.added == 0 and result.counts["document_changed"] == 7
    assert result.documents["document_changed"] == ["a", "b", "c", "d", "e"]
    assert carry.carry_status(engine, "nothing").classes[0].candidates == 0


def test_a_lead_accepts_carried_grades_on_the_releases_page(carried_app, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    at = app_page("releases_page.py", carried_app, "boss", "p30")
    at.text_input[0].input("v2")
    at.checkbox[0].check()  # allow unresolved: nobody has graded yet
    at.checkbox[1].check()  # accept carried
    at.button[0].click().run()
    assert not at.exception and "Release v2 written to" in at.success[0].value
    lineage = release_folder.read_manifest(tmp_path / "releases" / "v2")["derived_from"]
    # Nobody graded: q1's two same-text chunks (dev) are accepted, q2's one (test) refused.
    assert (lineage["accepted_carried"], lineage["refused_carried_test_split"]) == (2, 1)
