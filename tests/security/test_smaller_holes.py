"""Issue 12, item 10, the smaller holes: a NUL character in an import gave a raw psycopg
traceback on PostgreSQL (SQLite kept it); runs with duplicate or negative ranks were taken
silently; Streamlit showed full tracebacks to users; the search box answered "It is in the
pool already" for a chunk a system had found, which told an annotator something about the
pool; cached vectorizers were unpickled from QRELS_CACHE_DIR whatever its owner and mode."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import pytest
import streamlit as st
from click.testing import CliRunner
from streamlit.testing.v1 import AppTest

from pooling.i18n import LocalizedError
from pooling.readers import InputError
from pooling.run import Run
from storage import accounts
from storage.db import session_scope
from tests.annotator.app.test_app import item_button
from tests.conftest import snapshot, write
from tests.storage.test_bad_input import corpus as corpus_import
from tests.storage.test_bad_input import judgments, queries, run

SHELL = Path(__file__).resolve().parents[2] / "annotator" / "app" / "shell.py"
CONTROL_CASES = [
    # (importer, file, content, where it is reported, the character)
    (corpus_import, "c.jsonl", '{"_id": "d1", "text": "a\\u0000b"}\n', "line 1, field 'text'", 0),
    (corpus_import, "c.jsonl", '{"_id": "d\\t1", "text": "fine"}\n', "line 1, field '_id'", 9),
    (
        corpus_import,
        "c.jsonl",
        '{"_id": "d1", "text": "x", "metadata": {"src": "\\u001b[31m"}}\n',
        "line 1, field 'metadata.src'",
        0x1B,
    ),
    (queries, "q.jsonl", '{"_id": "q9", "text": "x", "slices": ["a\\u0000"]}\n', "'slices[0]'", 0),
    (queries, "q.jsonl", '{"_id": "q9", "text": "x", "notes": "\\u0085"}\n', "'notes'", 0x85),
    (run, "r.trec", b"q1 Q0 tea\x00x 1 2.0 s\n", "r.trec, line 1:", 0),
    (judgments, "j.trec", b"q1 0 tea 2\nq2 0 bike\x1b 1\n", "j.trec, line 2:", 0x1B),
    (
        judgments,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "grade": 1, "note": "\\u0000"}\n',
        "field 'note'",
        0,
    ),
]


@pytest.mark.parametrize(("importer", "name", "content", "where", "code"), CONTROL_CASES)
def test_control_characters_are_refused_alike_on_both_backends(
    seeded,
    tmp_path,
    importer,
    name,
    content,
    where,
    code,
):
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        importer(write(tmp_path, name, content), session=session)
    message = caught.value.message("en")
    assert where in message and f"control character U+{code:04X}" in message, message
    assert snapshot(seeded) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("q1 Q0 tea 0 2.0 s\n", "line 1, field 'rank': rank 0 is not a whole number from 1"),
        ("q1 Q0 tea -3 2.0 s\n", "line 1, field 'rank': rank -3 is not a whole number from 1"),
        (
            "q1 Q0 tea 1 2.0 s\nq2 Q0 tea 1 2.0 s\nq1 Q0 bike 1 1.0 s\n",
            "line 3, field 'rank': rank repeated for query 'q1' (first seen on line 1)",
        ),
        (
            "q1 Q0 tea 1 2.0 s\nq1 Q0 tea 2 1.0 s\n",
            "line 2, field 'doc_id': duplicate entry for query 'q1' and chunk 'tea'",
        ),
    ],
)
def test_runs_with_bad_or_repeated_ranks_are_refused(seeded, tmp_path, content, message):
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        run(write(tmp_path, "r.trec", content), session=session)
    assert message in caught.value.message("en")
    assert snapshot(seeded) == before


def test_ties_are_broken_as_trec_eval_breaks_them():
    """trec_eval orders by score, then by doc id descending (form_res_rels.c,
    comp_sim_docno), whatever the rank column says; pytrec_eval runs trec_eval's code."""
    import ir_measures

    scores = {"q": {"a": 1.0, "b": 1.0, "c": 2.0, "ab": 1.0}}
    assert [c for c, _ in Run(scores).ranking("q")] == ["c", "b", "ab", "a"]
    run_docs = [ir_measures.ScoredDoc("q", d, s) for d, s in scores["q"].items()]
    for relevant, reciprocal in (("c", 1), ("b", 1 / 2), ("ab", 1 / 3), ("a", 1 / 4)):
        qrels = [ir_measures.Qrel("q", relevant, 1)]
        measured = ir_measures.pytrec_eval.calc_aggregate([ir_measures.RR], qrels, run_docs)
        assert measured[ir_measures.RR] == pytest.approx(reciprocal)


def app_as(url: str, name: str, monkeypatch) -> AppTest:
    monkeypatch.setenv("QRELS_DATABASE_URL", url)
    st.cache_resource.clear()
    from storage.db import make_engine

    with session_scope(make_engine(url)) as session:
        uid = accounts.get_user(name, session=session).id
    at = AppTest.from_file(str(SHELL), default_timeout=60)
    at.session_state["user_id"] = uid
    return at


def incident_only(at: AppTest, caplog, secret: str) -> None:
    """The page says something went wrong under an incident id, and nothing of the error;
    the server's log has the traceback under that id."""
    assert not at.exception
    shown = " ".join(str(node.proto) for node in at._tree if hasattr(node, "proto"))
    assert secret not in shown
    incident = re.search(r"incident ([0-9a-f]{8})", " ".join(e.value for e in at.error))
    assert incident, [e.value for e in at.error]
    logged = [r for r in caplog.records if incident.group(1) in r.getMessage()]
    assert logged and secret in str(logged[0].exc_info[1])


def test_no_traceback_reaches_a_user(pooled, db_url, monkeypatch, caplog):
    from annotator.labeling import assignment, page_position

    secret = "password=hunter2 at db-host:5432"

    def broken(*args, **kwargs):
        raise RuntimeError(secret)

    caplog.set_level(logging.ERROR, logger="annotator.app.ui")
    at = app_as(db_url, "ann1", monkeypatch).run()
    assert not at.exception and item_button(at, "grade_2")
    monkeypatch.setattr(assignment, "submit", broken)  # a button's callback fails
    item_button(at, "grade_2").click().run()
    incident_only(at, caplog, secret)
    monkeypatch.setattr(page_position, "view", broken)  # the labeling fragment fails
    incident_only(app_as(db_url, "ann1", monkeypatch).run(), caplog, secret)
    monkeypatch.setattr("annotator.app.ui.pool_names", broken)  # the page itself fails
    incident_only(app_as(db_url, "boss", monkeypatch).run(), caplog, secret)

    def refused(*args, **kwargs):
        raise LocalizedError("user_unknown", name="zed")

    monkeypatch.setattr("annotator.app.ui.pool_names", refused)  # an error a user can act on
    at = app_as(db_url, "boss", monkeypatch).run()
    assert not at.exception and "user 'zed' does not exist" in at.error[0].value


def test_serve_hides_error_details_and_limits_uploads(monkeypatch, tmp_path):
    from annotator.app.uploads import LIMIT_MB
    from annotator.cli import cli

    started = []
    monkeypatch.setattr(  # the command each of the two app processes runs
        "annotator.cli.serving.serve_two",
        lambda command, *args, **kwargs: started.append(command(8501, "127.0.0.1")),
    )
    url = f"sqlite:///{tmp_path / 'q.db'}"
    assert CliRunner().invoke(cli, ["--db", url, "init"]).exit_code == 0
    assert CliRunner().invoke(cli, ["--db", url, "serve"]).exit_code == 0
    command = " ".join(started[0])
    assert "--client.showErrorDetails none" in command, command
    assert f"--server.maxUploadSize {LIMIT_MB}" in command


def test_the_search_box_answers_the_same_whether_or_not_a_system_found_the_chunk(
    pooled, db_url, monkeypatch
):
    from storage.pool_records import get_pool, pool_candidates

    at = app_as(db_url, "ann1", monkeypatch).run()
    query = next(t.value for t in at.text if t.value in ("alpha", "beta"))  # the query shown
    query_id = {"alpha": "q1", "beta": "q2"}[query]
    with session_scope(pooled) as session:
        pooled_ids = {
            c.chunk_id
            for c in pool_candidates(get_pool("p", session=session), session=session)
            if c.query_id == query_id
        }
    texts = {"a#0": "alpha one", "c#0": "gamma one"}  # each the other query's candidate
    answers = {}
    at.toggle(key="search_open").set_value(True).run()
    for chunk_id, words in texts.items():
        at.text_input(key="search_text").input(words).run()
        at.button(key="add_0").click().run()
        answers[chunk_id in pooled_ids] = [
            e.value for kind in ("success", "warning", "info") for e in getattr(at, kind)
        ]
    assert set(answers) == {True, False}  # one was in the pool, the other was not
    assert answers[True] == answers[False] == ["Added: it will be judged like any other passage."]


def test_the_index_cache_is_loaded_only_from_a_folder_of_ones_own(tmp_path, monkeypatch):
    import joblib

    from pooling.retrievers import Corpus, VectorRetriever

    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    corpus = Corpus("fp", ["a", "b", "c"], ["brake pads", "green tea", "brake fluid"])
    built = VectorRetriever(corpus)
    assert built.search({"q": "brake"}, 2).ranking("q")
    model = built.path / "model.joblib"
    loaded = []
    monkeypatch.setattr(joblib, "load", lambda *a, **k: loaded.append(a))

    def refused(match: str) -> None:
        with pytest.raises(LocalizedError, match=match):
            VectorRetriever(corpus).search({"q": "brake"}, 2)
        assert loaded == []

    for place in (tmp_path / "cache", built.path, model):
        mode = place.stat().st_mode
        place.chmod(mode | 0o002)
        refused(rf"{re.escape(str(place))}: others can write to it \(mode 0o\d+\)")
        place.chmod(mode | 0o020)  # the group counts as others too
        refused("others can write to it")
        place.chmod(mode)
    if os.getuid() == 0:  # only root can give a file away
        os.chown(model, 65534, 65534)
        refused(r"model\.joblib: it belongs to user id 65534, not to you \(0\)")


def test_an_id_with_a_space_is_refused_as_releases_could_not_write_it(seeded, tmp_path):
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        corpus_import(write(tmp_path, "c.jsonl", '{"_id": "d 1", "text": "x"}\n'), session=session)
    assert "c.jsonl, line 1, field '_id': id 'd 1' holds a space" in caught.value.message("en")
    assert snapshot(seeded) == before


def test_control_characters_typed_into_the_app_are_refused_with_a_message(
    pooled, db_url, monkeypatch
):
    from annotator.auth import add_user
    from annotator.quality import pool_quality

    at = app_as(db_url, "ann1", monkeypatch).run()
    before = snapshot(pooled)
    at.text_area[0].input("see\x00below")
    item_button(at, "grade_2").click().run()
    assert not at.exception
    assert "the note holds the control character U+0000" in " ".join(e.value for e in at.error)
    assert at.text_area[0].value == "see\x00below"  # what was typed stays, to be mended
    with session_scope(pooled) as session:
        boss = accounts.get_user("boss", session=session).id
        with pytest.raises(LocalizedError, match="account name holds the control character"):
            add_user("eve\x1b[2J", "annotator", "password-1", session=session)
    with pytest.raises(LocalizedError, match="rationale holds the control character U\\+0008"):
        pool_quality.record_decision(pooled, "p", ("q1", "a#1"), 2, "ok\x08", boss, "threshold")
    after = snapshot(pooled)
    after.pop("assignment"), before.pop("assignment")  # the hold is renewed as she works
    assert after == before
