"""Status figures for pools: a candidate is complete once `overlap` humans judged it."""

from __future__ import annotations

from sqlmodel import select

from storage import tallies
from storage.catalog import version_names
from storage.db import read_connection, session_scope
from storage.imports import annotator_account, import_corpus, import_judgments, import_queries
from storage.models import Chunk, Pool, PoolCandidate, Query
from storage.status import status
from tests.conftest import write
from tests.storage.test_imports import CORPUS, QUERIES, jsonl


def test_pool_progress_counts_distinct_human_judges(engine, tmp_path):
    with session_scope(engine) as session:
        cv = import_corpus(write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version="c")
        qs = import_queries(write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name="q")
        assert cv.created and qs.created
        query = session.exec(select(Query).where(Query.query_id == "q1")).one()
        chunks = {c.chunk_id: c for c in session.exec(select(Chunk)).all()}
        pool = Pool(
            name="p",
            query_set_id=query.query_set_id,
            corpus_version_id=chunks["tea"].corpus_version_id,
            overlap=2,
        )
        session.add(pool)
        session.flush()
        for key, chunk_id in enumerate(["tea", "bike", "bike-2"]):
            session.add(
                PoolCandidate(
                    pool_id=pool.id,
                    query_id=query.id,
                    chunk_id=chunks[chunk_id].id,
                    shuffle_key=key,
                )
            )
        tallies.candidates_added(pool, [(query.id, None)] * 3, session=session)
        annotator_account("judge", "model", session=session)

    def judge(name: str, lines: str, kind: str = "human") -> None:
        with session_scope(engine) as session:
            path = write(tmp_path, f"{name}.trec", lines)
            import_judgments(path, session=session, annotator=name, kind=kind, rubric_version="v1")

    judge("ann", "q1 0 tea 2\nq1 0 bike 0\n")
    judge("bob", "q1 0 tea 3\n")
    judge("judge", "q1 0 bike 1\nq1 0 bike-2 1\n", kind="model")  # a model does not count
    judge("ann2", "q1 0 tea 3\n")
    with read_connection(engine.url.render_as_string(hide_password=False)) as connection:
        (summary,) = status(connection).pools
    assert (summary.name, summary.candidates, summary.overlap, summary.complete) == ("p", 3, 2, 1)


def test_status_counts_each_query_sets_judgments_apart(engine, tmp_path):
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version="c")
        for name in ("one", "two"):
            queries = write(tmp_path, f"{name}.jsonl", jsonl(QUERIES))
            import_queries(queries, session=session, name=name)
    for name, lines in (("one", "q1 0 tea 2\nq2 0 bike 1\n"), ("two", "q1 0 tea 3\n")):
        with session_scope(engine) as session:
            path = write(tmp_path, f"{name}.trec", lines)
            import_judgments(
                path, session=session, annotator="ann", rubric_version="v1", query_set=name
            )
    with read_connection(engine.url.render_as_string(hide_password=False)) as connection:
        one, two = status(connection).query_sets
    assert (one.name, one.judgments, one.judged_queries, one.judgments_by_annotator) == (
        "one",
        2,
        2,
        {"ann": 2},
    )
    assert (two.name, two.judgments, two.judged_queries) == ("two", 1, 1)


def test_the_app_offers_the_newest_versions_first(engine, tmp_path):
    """A lead who imports a new corpus version and its run takes the form's first choice:
    the newest, not the first by name (the run went to an old version before)."""
    with session_scope(engine) as session:
        for version in ("z-old", "a-new"):
            import_corpus(
                write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=session, version=version
            )
            import_queries(
                write(tmp_path, "q.jsonl", jsonl(QUERIES)), session=session, name=version
            )
        assert version_names(session=session) == (["a-new", "z-old"], ["a-new", "z-old"])
