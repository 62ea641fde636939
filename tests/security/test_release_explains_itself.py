"""Issue 12, item 9: a release is one snapshot and explains itself. Every judgment that
decides a grade is in judgments.jsonl, imported ones too, so that qrels.trec can be worked
out again from judgments.jsonl and the manifest alone; a grade given while the release is
being written lands in no file of it. On SQLite and PostgreSQL."""

from __future__ import annotations

import json

from annotator.labeling import assignment
from annotator.quality import pool_quality
from annotator.releases import releases
from pooling import release_folder
from pooling.qrels import Qrels
from storage import release_lines
from storage.db import session_scope
from storage.imports import import_judgments
from tests.conftest import N_CHUNKS, N_QUERIES, write


def imported(engine, tmp_path, name: str, grade_of) -> None:
    lines = "".join(
        f"q{q} 0 c{c} {grade_of(q, c)}\n" for q in range(N_QUERIES) for c in range(N_CHUNKS)
    )
    with session_scope(engine) as session:
        import_judgments(
            write(tmp_path, f"{name}.trec", lines),
            session=session,
            annotator=name,
            rubric_version="v1",
        )


def lines_of(folder, kind: str) -> list[dict]:
    records = [json.loads(x) for x in (folder / "judgments.jsonl").read_text().splitlines()]
    return [r for r in records if r["type"] == kind]


def test_a_pool_completed_by_imports_has_every_deciding_judgment(engine, pool, tmp_path):
    imported(engine, tmp_path, "offline1", lambda q, c: (q + c) % 4)
    imported(engine, tmp_path, "offline2", lambda q, c: (q + c) % 4 if c != 5 else 0)
    folder = releases.create_release(
        engine, "v1", "p", tmp_path, policy="any", allow_unresolved=True
    ).folder
    judged = lines_of(folder, "judgment")
    assert len(judged) == 2 * N_QUERIES * N_CHUNKS
    assert {r["source"] for r in judged} == {"import:offline1.trec", "import:offline2.trec"}
    manifest = release_folder.read_manifest(folder)
    assert manifest["rubric_versions"] == ["v1"]
    qrels = Qrels.from_file(folder / "qrels.trec")
    assert qrels.size == manifest["counts"]["judged_candidates"] > 0
    assert release_folder.recompute(folder) == qrels


def test_app_revisions_adjudications_and_imports_recompute_to_the_same_file(engine, pool, tmp_path):
    from annotator.auth import add_user

    imported(engine, tmp_path, "offline", lambda q, c: 2)
    for name in ("a1", "a2"):
        while (item := assignment.next_item(engine, "p", pool[name])) is not None:
            assert assignment.submit(engine, item, pool[name], grade=1 if name == "a1" else 3)
            if item.chunk_id == "c1":  # a change of mind: revision 2 replaces revision 1
                again = assignment.reload(engine, item)
                assert assignment.submit(engine, again, pool[name], grade=2)
    with session_scope(engine) as session:
        lead = add_user("boss", "lead", "password-1", session=session).id
    pool_quality.record_decision(engine, "p", ("q0", "c0"), 0, "misleading", lead, "gap2")
    pool_quality.record_decision(engine, "p", ("q0", "c0"), 3, "second look", lead, "gap2")
    folder = releases.create_release(
        engine, "v1", "p", tmp_path, policy="gap2", allow_unresolved=True
    ).folder
    assert len(lines_of(folder, "adjudication")) == 2
    assert {r["revision"] for r in lines_of(folder, "judgment")} == {None, 1, 2}
    qrels = Qrels.from_file(folder / "qrels.trec")
    assert qrels["q0"]["c0"] == 3  # the lead's last word
    assert release_folder.recompute(folder) == qrels


def test_a_grade_given_while_the_release_is_written_lands_in_no_file(
    engine, pool, tmp_path, monkeypatch
):
    for name in ("a1", "a2"):
        for _ in range(N_CHUNKS):
            item = assignment.next_item(engine, "p", pool[name])
            assert assignment.submit(engine, item, pool[name], grade=2)
    late = assignment.next_item(engine, "p", pool["a3"])
    streamed = release_lines.release_history

    def meanwhile(pool_row, *, session, **options):
        # Another annotator grades while the release reads: a transaction of its own.
        assert assignment.submit(engine, late, pool["a3"], grade=0)
        return streamed(pool_row, session=session, **options)

    monkeypatch.setattr(release_lines, "release_history", meanwhile)
    folder = releases.create_release(engine, "v1", "p", tmp_path, allow_unresolved=True).folder
    judgments = lines_of(folder, "judgment")
    assert len(judgments) == 2 * N_CHUNKS  # not the late one
    assert {r["grade"] for r in judgments} == {2}
    assert release_folder.recompute(folder) == Qrels.from_file(folder / "qrels.trec")
