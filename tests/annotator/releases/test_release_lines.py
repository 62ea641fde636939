"""The lines the database writes for a release's judgments
(``storage.release_lines.release_history``) are byte for byte those of the reference writer,
a dict a judgment encoded by orjson (what releases wrote before), and the current grades
taken from their rows are the ``Tally`` of those lines: unicode ids and texts, notes with
quotes and newlines, floats of every form, unsure judgments, revisions, imports,
adjudications and gold items. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime

import orjson
import pandas as pd
import pytest
from sqlalchemy import insert
from sqlmodel import select

from annotator.auth import add_user
from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.releases import releases
from annotator.releases.release_files import write_history
from pooling import release_folder
from pooling.qrels import BEIR_HEADER, Qrels
from pooling.release_folder import Tally
from storage import gold_records, history, release_lines
from storage.catalog import chunk_keys, query_keys
from storage.db import session_scope, snapshot_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.models import (
    Adjudication,
    Chunk,
    CorpusVersion,
    Judgment,
    JudgmentBatch,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    User,
)
from storage.pool_records import get_pool
from tests.conftest import write
from tests.storage.test_imports import jsonl

QUERIES = ["问题-0", "q\u00e9-1", "q2"]
CHUNKS = ["文档-0", "ch\u00e9-1", "c\U0001f600-2", "c3"]
NOTES = [
    "",
    'he said "yes"\nthen\tno \\ back',
    "\u2028 separator, 中文, emoji \U0001f600, </script>, \u00e9\u0301",
]
# Whole, short, tiny (orjson writes 0.00001, SQLite 1.0e-05), unrounded, None.
SECONDS = [12.0, 3.5, 1e-05, 0.1 + 0.2, 269.04441213863697, None, 2.5e-07, 1234567.891]
TIMES = [
    datetime(2026, 3, 1, 9, 30),
    datetime(2026, 3, 1, 9, 30, 0, 120),
    datetime(2026, 12, 31, 23, 59, 59, 999999),
]


def pool_candidates(pool: Pool, *, session) -> list[tuple[str, str]]:
    """Every candidate of the pool, by (query id, chunk id)."""
    return session.exec(
        select(Query.query_id, Chunk.chunk_id)
        .join(PoolCandidate, PoolCandidate.query_id == Query.id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(PoolCandidate.pool_id == pool.id)
    ).all()


def reference_records(pool: Pool, *, session) -> list[dict]:
    """The judgments and adjudications as releases wrote them before the database wrote
    the lines: one dict per row, read through the ORM's datetimes."""
    people = {
        user_id: history.pseudonym(user_id, joined)
        for user_id, joined in session.exec(
            select(User.id, User.created_at).where(User.kind == "human")
        )
    }
    sources = {(p, None): f"app:{name}" for p, name in session.exec(select(Pool.id, Pool.name))}
    for batch_id, source in session.exec(select(JudgmentBatch.id, JudgmentBatch.source)):
        sources[(None, batch_id)] = f"import:{source}"
    query_ids = {
        k: n
        for n, k in query_keys(session.get(QuerySet, pool.query_set_id), session=session).items()
    }
    chunk_ids = {
        k: n
        for n, k in chunk_keys(
            session.get(CorpusVersion, pool.corpus_version_id), session=session
        ).items()
    }
    candidates = set(pool_candidates(pool, session=session))
    records = []
    for j in session.exec(select(Judgment).order_by(Judgment.id)):
        key = (query_ids.get(j.query_id), chunk_ids.get(j.chunk_id))
        if j.user_id not in people or key not in candidates:
            continue
        records.append(
            {
                "type": "judgment",
                "annotator": people[j.user_id],
                "query_id": key[0],
                "chunk_id": key[1],
                "grade": j.grade,
                "unsure": j.unsure,
                "note": j.note,
                "revision": j.revision,
                "rubric_version": j.rubric_version,
                "seconds": j.seconds,
                "source": sources.get(
                    (j.pool_id, None) if j.pool_id else (None, j.batch_id), "import:None"
                ),
                "created_at": j.created_at.replace(tzinfo=None).isoformat(),
            }
        )
    decisions = session.exec(
        select(Adjudication, User.created_at, Query.query_id, Chunk.chunk_id)
        .join(User, User.id == Adjudication.user_id)
        .join(Query, Query.id == Adjudication.query_id)
        .join(Chunk, Chunk.id == Adjudication.chunk_id)
        .where(Adjudication.pool_id == pool.id)
        .order_by(Adjudication.id)
    )
    for a, joined, query_id, chunk_id in decisions:
        records.append(
            {
                "type": "adjudication",
                "lead": history.pseudonym(a.user_id, joined),
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grade": a.grade,
                "rationale": a.rationale,
                "policy": a.policy,
                "created_at": a.created_at.replace(tzinfo=None).isoformat(),
            }
        )
    return records


def import_collection(session, folder) -> None:
    """The CHUNKS as corpus "c", the QUERIES as set "q", and run "r" ranking every chunk."""
    corpus = [{"_id": c, "text": f"chunk {c} ünïcode"} for c in CHUNKS]
    queries = [{"_id": q, "text": f"query {q} «»"} for q in QUERIES]
    run = "".join(f"{q} Q0 {c} {r + 1} {9 - r} r\n" for q in QUERIES for r, c in enumerate(CHUNKS))
    import_corpus(write(folder, "c.jsonl", jsonl(corpus)), session=session, version="c")
    import_queries(write(folder, "q.jsonl", jsonl(queries)), session=session, name="q")
    import_run(write(folder, "r.trec", run), session=session, system="r")


def everything_a_release_meets(engine, folder) -> None:
    with session_scope(engine) as session:
        import_collection(session, folder)
        users = {
            name: add_user(name, "annotator", "password-1", session=session).id
            for name in ("ann1", "ann2", "ann3")
        }
        users["lead"] = add_user("lead", "lead", "password-1", session=session).id
    build_pool(engine, "p", systems="run:r", depth=len(CHUNKS), overlap=2)
    # The app: grades, an unsure with a note, a revision of an earlier grade.
    for n, name in enumerate(("ann1", "ann2", "ann1", "ann2", "ann1")):
        item = assignment.next_item(engine, "p", users[name])
        kind = {"unsure": True} if n == 2 else {"grade": n % 4}
        note = NOTES[1] if n % 2 else "中文 «note»"  # the app refuses control characters
        assert assignment.submit(engine, item, users[name], note=note, seconds=SECONDS[n], **kind)
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        qs = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
        cs = chunk_keys(session.get(CorpusVersion, pool.corpus_version_id), session=session)
        rows = [
            dict(
                user_id=users["ann3"],
                query_id=qs[q],
                chunk_id=cs[c],
                grade=None if n % 5 == 4 else n % 4,
                unsure=n % 5 == 4,
                note=NOTES[n % len(NOTES)],
                rubric_version="v1" if n % 2 else "rubric \u00e9 2",
                seconds=SECONDS[n % len(SECONDS)],
                revision=n % 3 or None,
                created_at=TIMES[n % len(TIMES)],
            )
            for n, (q, c) in enumerate((q, c) for q in QUERIES for c in CHUNKS for _ in range(2))
        ]
        session.execute(insert(Judgment), rows)  # pool and batch None: "import:None"
        batch = JudgmentBatch(source='file "ü".tsv\n', format="trec", content_hash="h1")
        history.append_judgments(
            session.get(User, users["ann2"]),
            session.get(QuerySet, pool.query_set_id),
            session.get(CorpusVersion, pool.corpus_version_id),
            [
                {"query_id": qs[q], "chunk_id": cs[c], "grade": 3}
                for q in QUERIES[:2]
                for c in CHUNKS
            ],
            session=session,
            batch=batch,
            rubric_version="v1",
        )
        lead = session.get(User, users["lead"])
        for grade_ in (1, 2):
            history.adjudicate(
                pool, QUERIES[0], CHUNKS[1], grade_, "why «this»\n", lead, "exact", session=session
            )
        gold_records.add(
            pool,
            {(QUERIES[1], CHUNKS[2]): (3, 'gold "é"')},
            source="adjudication",
            user_id=None,
            session=session,
        )


def test_the_databases_lines_are_the_reference_writers(engine, tmp_path):
    everything_a_release_meets(engine, tmp_path)
    result = releases.create_release(engine, "v1", "p", tmp_path / "out", allow_unresolved=True)
    written = (result.folder / "judgments.jsonl").read_bytes()
    with snapshot_scope(engine) as session:
        pool = get_pool("p", session=session)
        reference = reference_records(pool, session=session)
        snapshot = releases.release_records.read_snapshot(pool, session=session)
        reference += releases._gold_records(snapshot)
        seen = Tally()
        expected = b"".join(
            orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in seen.noting(reference)
        )
        (tmp_path / "again").mkdir()
        judged = release_lines.release_history(pool, session=session)
        frame, rubrics = write_history(tmp_path / "again", judged)
    assert written.decode() == expected.decode()  # the differing line shown, not bytes
    assert written == expected
    assert sum(r["type"] == "judgment" for r in reference) > 30
    assert {r["seconds"] for r in reference if r["type"] == "judgment"} >= set(SECONDS)
    # The ids are categories in their sorted order (``release_files._named``); as text, the
    # Tally's frame.
    ids = ["query_id", "chunk_id"]
    assert all(list(frame[c].cat.categories) == sorted(set(frame[c])) for c in ids)
    pd.testing.assert_frame_equal(frame.astype(dict.fromkeys(ids, "str")), seen.frame())
    assert (
        rubrics
        == seen.rubrics
        == {"v1", "rubric \u00e9 2"}
        | {r["rubric_version"] for r in reference if r["type"] == "judgment"}
    )
    assert release_folder.recompute(result.folder) == Qrels.from_file(result.folder / "qrels.trec")
    assert release_folder.verify_release(result.folder) == []


def test_a_release_of_no_judgments_has_an_empty_frame(engine, tmp_path):
    everything_a_release_meets(engine, tmp_path)
    with snapshot_scope(engine) as session:
        pool = get_pool("p", session=session)
        judged = release_lines.release_history(pool, session=session)
        judged.batches = iter(())
        frame, rubrics = write_history(tmp_path, judged)
    pd.testing.assert_frame_equal(frame, Tally().frame())
    assert rubrics == set()


def test_whole_seconds_and_fractions_are_written_as_the_datetimes(engine, tmp_path):
    everything_a_release_meets(engine, tmp_path)
    with snapshot_scope(engine) as session:
        pool = get_pool("p", session=session)
        lines = "".join(
            b.text for b in release_lines.release_history(pool, session=session).batches
        )
        stored = session.exec(
            select(Judgment.created_at).where(Judgment.user_id.is_not(None)).order_by(Judgment.id)
        ).all()
    written = [orjson.loads(line)["created_at"] for line in lines.split("\n")[:-1]]  # not at U+2028
    assert written == [t.replace(tzinfo=None).isoformat() for t in stored]
    assert set(written) >= {t.isoformat() for t in TIMES}


def test_the_other_files_are_the_reference_writers(engine, tmp_path):
    """qrels.trec, qrels.tsv and pool-unjudged.tsv are byte for byte lines of the (query,
    chunk) pairs sorted in Python: ids of several planes of unicode (code point order, not
    UTF-16's), candidates graded, unresolved and never judged. What any faster ordering of
    these files has to keep."""
    everything_a_release_meets(engine, tmp_path)
    result = releases.create_release(engine, "v1", "p", tmp_path / "out", allow_unresolved=True)
    folder = result.folder
    grades = Qrels.from_file(folder / "qrels.trec")
    ordered = sorted((q, c, g) for q, judged in grades.items() for c, g in judged.items())
    assert len({c for _, c, _ in ordered}) >= 3
    trec = "".join(f"{q} 0 {c} {g}\n" for q, c, g in ordered)
    assert (folder / "qrels.trec").read_bytes() == trec.encode()
    tsv = "".join(f"{q}\t{c}\t{g}\n" for q, c, g in ordered)
    assert (folder / "qrels.tsv").read_bytes() == ("\t".join(BEIR_HEADER) + "\n" + tsv).encode()
    with snapshot_scope(engine) as session:
        candidates = pool_candidates(get_pool("p", session=session), session=session)
    graded = {(q, c) for q, c, _ in ordered}
    left = sorted(key for key in candidates if key not in graded)
    assert len(left) >= 3 and len({c for _, c in left}) >= 3
    unjudged = "".join(f"{q}\t{c}\tunresolved\n" for q, c in left)
    expected = "\t".join(release_folder.POOL_UNJUDGED_HEADER) + "\n" + unjudged
    assert (folder / release_folder.POOL_UNJUDGED).read_bytes() == expected.encode()


def test_the_unjudged_candidates_are_those_no_person_judged(engine, tmp_path):
    """What a release finds left to judge (``ReleaseHistory.unjudged``, while it reads the
    lines) is the pool's candidates without a person's judgment, from any pool or import; a
    model judge's grade leaves a candidate unjudged, and so unresolved."""
    with session_scope(engine) as session:
        import_collection(session, tmp_path)
    build_pool(engine, "p", systems="run:r", depth=len(CHUNKS), overlap=2)
    people = f"{QUERIES[0]} 0 {CHUNKS[0]} 1\n{QUERIES[1]} 0 {CHUNKS[2]} 0\n"
    model = f"{QUERIES[0]} 0 {CHUNKS[0]} 3\n{QUERIES[2]} 0 {CHUNKS[3]} 2\n"
    with session_scope(engine) as session:
        for name, kind, text in (("person", "human", people), ("llm", "model", model)):
            import_judgments(
                write(tmp_path, f"{name}.trec", text),
                session=session,
                annotator=name,
                kind=kind,
                rubric_version="v1",
            )
    with snapshot_scope(engine) as session:
        pool = get_pool("p", session=session)
        lines = release_lines.release_history(pool, session=session)
        write_history(tmp_path, lines)
        unjudged = lines.unjudged()
        candidates = pool_candidates(pool, session=session)
    judged = {(QUERIES[0], CHUNKS[0]), (QUERIES[1], CHUNKS[2])}
    assert sorted(unjudged) == sorted(key for key in candidates if key not in judged)
    assert (QUERIES[2], CHUNKS[3]) in unjudged and len(unjudged) == len(candidates) - 2
    result = releases.create_release(engine, "v1", "p", tmp_path / "out", allow_unresolved=True)
    left = (result.folder / release_folder.POOL_UNJUDGED).read_text()
    assert f"{QUERIES[2]}\t{CHUNKS[3]}\tunresolved\n" in left
    assert result.manifest["counts"]["unresolved_left_out"] == len(candidates)  # overlap 2


def test_judgments_of_other_candidates_are_left_out(engine, tmp_path):
    """A pool of fewer candidates than were judged (a second pool, two chunks a query): its
    lines are the reference writer's for its own candidates alone, whichever batch they
    fall in, and each of its candidates is judged."""
    everything_a_release_meets(engine, tmp_path)
    build_pool(engine, "p2", systems="run:r", depth=2, overlap=2)
    with snapshot_scope(engine) as session:
        pool = get_pool("p2", session=session)
        reference = [r for r in reference_records(pool, session=session) if r["type"] == "judgment"]
        candidates = set(pool_candidates(pool, session=session))
        lines = release_lines.release_history(pool, session=session, batch=7)
        with pytest.raises(RuntimeError):  # not before every line is read
            lines.unjudged()
        write_history(tmp_path, lines)
    expected = b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in reference)
    assert (tmp_path / "judgments.jsonl").read_bytes() == expected
    assert {(r["query_id"], r["chunk_id"]) for r in reference} == candidates
    assert len(candidates) == 2 * len(QUERIES)  # of the 12 judged
    assert lines.unjudged() == []
