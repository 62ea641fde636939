"""Issue 21, item 2: ``release create --accept-carried`` published grades for chunks whose
text differs. ``carry_mapping.carried_grades`` gave every new chunk overlapping a judged same-text
chunk by 20% or more the class "same text", so a neighbour got the judged chunk's grade.
Now the class is the pair's: only a new chunk with the judged chunk's very span (in a
document with the same text hash) is "same text". On SQLite and PostgreSQL."""

from __future__ import annotations

from annotator.judge import carried_classes
from annotator.pools.pool_building import build_pool
from annotator.releases import carry, releases
from pooling.qrels import Qrels
from storage.db import session_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from tests.conftest import run_text, write
from tests.storage.test_imports import jsonl

TEXT = "Brake pads wear down. Replace them early. Bleed the fluid yearly."
FIRST, SECOND, THIRD = "Brake pads wear down.", "Replace them early.", "Bleed the fluid yearly."
OLD = {"o1": f"{FIRST} {SECOND}", "o2": THIRD}  # the judged chunking
# The new one, with overlapping chunks: n1 is o1's text; n2 shares "Replace them early."
# with o1 (over 20% of either) and holds all of o2.
NEW = {"n1": f"{FIRST} {SECOND}", "n2": f"{SECOND} {THIRD}"}


def test_only_a_chunk_with_the_same_text_gets_an_accepted_grade(engine, tmp_path):
    documents = write(tmp_path, "docs.jsonl", jsonl([{"_id": "d", "text": TEXT}]))
    with session_scope(engine) as session:
        for version, chunks in (("old", OLD), ("new", NEW)):
            lines = [{"_id": c, "text": text, "doc_id": "d"} for c, text in chunks.items()]
            import_corpus(
                write(tmp_path, f"{version}.jsonl", jsonl(lines)),
                session=session,
                version=version,
                documents=documents,
            )
        queries = [{"_id": "q1", "text": "brake pads", "split": "dev"}]
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        run_file = write(tmp_path, "r.trec", run_text([("q1", "o1"), ("q1", "o2")]))
        import_run(run_file, session=session, system="r", corpus_version="old")
        import_judgments(
            write(tmp_path, "v1.trec", "q1 0 o1 3\nq1 0 o2 0\n"),
            session=session,
            annotator="expert",
            rubric_version="v1",
            corpus_version="old",
        )
    build_pool(engine, "p", systems="run:r", depth=10, overlap=1, corpus_version="old")
    folder = releases.create_release(engine, "v1", "p", tmp_path).folder
    carry.carry(engine, folder, "new", "p2")
    # The old chunk o1 is "same text" (n1), yet its grade 3 reaches n2 only as a guess.
    assert carry.carry_status(engine, "p2").chunks[0].mapping == "same_text"
    grades = carried_classes.judge_classes(engine, "carried:v1", "new")
    assert grades == {("q1", "n1"): "same_text", ("q1", "n2"): "partial"}
    released = releases.create_release(
        engine, "v2", "p2", tmp_path, accept_carried=True, allow_unresolved=True
    ).folder
    assert Qrels.from_file(released / "qrels.trec").grades == {"q1": {"n1": 3}}
