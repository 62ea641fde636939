"""Gold items: mixed into each annotator's work at the pool's rate, indistinguishable from
other items, never changing their grade nor anyone's overlap, and scored as a hand count
would; on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlmodel import select

from annotator.auth import add_user
from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.quality import gold
from annotator.releases import releases
from pooling.qrels import Qrels
from storage import tallies
from storage.db import session_scope
from storage.imports import import_corpus, import_judgments, import_queries, import_run
from storage.models import Chunk, Judgment, Query, User
from storage.pool_records import get_pool
from tests.conftest import run_qrels, run_text, write
from tests.storage.test_imports import jsonl

QUERIES, CHUNKS = 12, 10
GOLD = {(f"q{q}", f"c{q}-{c}"): (q + c) % 4 for q in range(QUERIES) for c in range(2)}


@pytest.fixture
def gold_pool(engine, tmp_path, monkeypatch):
    """A pool of QUERIES x CHUNKS candidates, a release whose grades (GOLD: the first two
    candidates of each query) are made gold items of it, and annotators a1..a3."""
    monkeypatch.setenv("QRELS_LANG", "en")
    corpus = [
        {"_id": f"c{q}-{c}", "text": f"passage {c} on topic {q}"}
        for q in range(QUERIES)
        for c in range(CHUNKS)
    ]
    queries = [{"_id": f"q{q}", "text": f"topic {q}"} for q in range(QUERIES)]
    pairs = [(f"q{q}", f"c{q}-{c}") for q in range(QUERIES) for c in range(CHUNKS)]
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", run_text(pairs)), session=session, system="r")
        for name in ("expert1", "expert2"):
            lines = "".join(f"{q} 0 {c} {g}\n" for (q, c), g in GOLD.items())
            import_judgments(
                write(tmp_path, f"{name}.trec", lines),
                session=session,
                annotator=name,
                rubric_version="v1",
            )
        users = {
            name: add_user(name, "annotator", "password-1", session=session).id
            for name in ("a1", "a2", "a3")
        }
    build_pool(engine, "earlier", systems="run:r", depth=2)
    releases.create_release(engine, "g1", "earlier", tmp_path)
    build_pool(engine, "p", systems="run:r", depth=CHUNKS)
    added = gold.add_from_release(engine, "p", tmp_path / "g1")
    assert (added.added, added.already, added.new_candidates) == (len(GOLD), 0, 0)
    return users


def judge(
    engine, user: int, count: int, grade_of=lambda item: 1, pool: str = "p"
) -> list[assignment.Item]:
    items = []
    for _ in range(count):
        item = assignment.next_item(engine, pool, user)
        if item is None:
            break
        assert assignment.submit(engine, item, user, grade=grade_of(item))
        items.append(item)
    return items


def test_gold_comes_at_the_rate_and_looks_like_any_item(engine, gold_pool):
    gold.configure(engine, "p", rate=10)
    items = judge(engine, gold_pool["a1"], 1000)
    checked = [i for i in items if (i.query_id, i.chunk_id) in GOLD]
    ordinary = QUERIES * (CHUNKS - 2)
    assert len(items) == ordinary + len(checked)  # all the ordinary work, and the gold drawn
    assert 0.04 <= len(checked) / len(items) <= 0.2  # about one in 10
    # No hint: a gold item is an Item like any other, with nothing more and nothing less.
    fields = {f.name for f in dataclasses.fields(assignment.Item)}
    assert all(set(vars(i)) == fields for i in items)
    # Same order rules: one query at a time, a gold item among its query's items.
    runs = [
        q for n, q in enumerate(i.query_id for i in items) if n == 0 or items[n - 1].query_id != q
    ]
    assert len(runs) == len(set(runs)) == QUERIES


def test_a_gold_check_is_recorded_as_asked_for_gold(engine, gold_pool):
    gold.configure(engine, "p", rate=4)
    judge(engine, gold_pool["a1"], 1000)
    with session_scope(engine) as session:
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, Judgment.reason)
            .join(Query, Query.id == Judgment.query_id)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
            .where(Judgment.pool_id == get_pool("p", session=session).id)
        ).all()
    reasons = {(q, c): reason for q, c, reason in rows}
    assert any(pair in GOLD for pair in reasons)
    assert all((reason == "gold") == (pair in GOLD) for pair, reason in reasons.items())


def test_gold_never_changes_a_grade_nor_anyones_overlap(engine, gold_pool, tmp_path):
    gold.configure(engine, "p", rate=4)
    for name in ("a1", "a2", "a3"):  # everyone grades everything 0, gold included
        judge(engine, gold_pool[name], 1000, grade_of=lambda item: 0)
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, User.name)
            .select_from(Judgment)
            .join(Query, Query.id == Judgment.query_id)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
            .join(User, User.id == Judgment.user_id)
            .where(Judgment.pool_id == pool.id)
        ).all()
    per_candidate = Counter((q, c) for q, c, _ in rows)
    ordinary = {k: n for k, n in per_candidate.items() if k not in GOLD}
    assert len(ordinary) == QUERIES * (CHUNKS - 2) and set(ordinary.values()) == {2}
    assert max(n for k, n in per_candidate.items() if k in GOLD) <= 3  # one check each at most
    folder = releases.create_release(engine, "v1", "p", tmp_path).folder
    released = Qrels.from_file(folder / "qrels.trec")
    assert all(released[q][c] == g for (q, c), g in GOLD.items())  # not the 0s annotators gave
    from pooling.release_folder import read_manifest, recompute

    assert read_manifest(folder)["counts"]["gold_items"] == len(GOLD)
    assert recompute(folder) == released
    with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
        connection.execute(text("UPDATE gold_item SET grade = 0"))


def test_figures_equal_a_hand_count():
    checks = pd.DataFrame(
        [
            ("ann", "q1", "a", 3, 3),
            ("ann", "q1", "b", 1, 2),
            ("ann", "q2", "c", 0, 0),
            ("ann", "q2", "d", 2, 0),
            ("ann", "q3", "e", None, 1),  # unsure: takes no part
            ("ann", "q3", "f", 1, 1),
            ("bob", "q1", "a", 0, 3),
            ("bob", "q1", "b", 0, 2),
        ],
        columns=gold.CHECK_COLUMNS[:-1],
    ).astype({"grade": "Int64"})
    ann, bob = gold.standings(checks, floor=0.5, rounds=200)
    given, truth = [3, 1, 0, 2, 1], [3, 2, 0, 0, 1]
    assert (ann.seen, ann.exact, ann.within_one) == (5, 3 / 5, 4 / 5)
    assert ann.binary_ge1 == 4 / 5  # only d: 2 given where 0 is right
    assert ann.binary_ge2 == 3 / 5  # b (1 for 2) and d (2 for 0)
    expected = cohen_kappa_score(truth, given, labels=[0, 1, 2, 3], weights="quadratic")
    assert ann.kappa.value == pytest.approx(expected)
    assert ann.kappa.low <= ann.kappa.value <= ann.kappa.high
    assert not ann.flagged and bob.flagged  # bob: only grade 0 given, kappa 0 < 0.5
    missed = gold.missed(checks, "ann")
    assert list(missed["chunk_id"]) == ["b", "d", "e"]
    # One gold item, missed: no kappa yet, so not "below the floor".
    (one,) = gold.standings(missed[missed["chunk_id"] == "b"], floor=0.5, rounds=50)
    assert one.kappa.value is None and one.exact == 0 and not one.flagged


def test_annotators_see_their_own_figures_once_they_have_seen_enough(engine, gold_pool):
    gold.configure(engine, "p", rate=2, min_seen=3)
    judge(engine, gold_pool["a2"], 2, grade_of=lambda item: 3)
    assert not gold.own_figures(engine, "p", "a2").shown  # one gold item seen: not yet
    judge(engine, gold_pool["a2"], 28, grade_of=lambda item: 3)  # three queries: 6 gold
    mine = gold.own_figures(engine, "p", "a2")
    assert mine.shown and mine.standing.seen >= 3
    assert all(m["grade"] == 3 and m["gold"] != 3 for m in mine.missed)
    gold.configure(engine, "p", show=False)
    assert not gold.own_figures(engine, "p", "a2").shown


def test_adjudicated_candidates_become_gold_and_the_cli(engine, gold_pool, tmp_path, db_url):
    with session_scope(engine) as session:
        lead = add_user("boss", "lead", "password-1", session=session).id
    for name in ("a1", "a2"):
        judge(engine, gold_pool[name], 3)
    from annotator.quality.pool_quality import record_decision

    key = ("q0", "c0-5")
    with pytest.raises(ValueError, match="has no lead's decision"):
        gold.add_from_adjudications(engine, "p", [key], by=lead)
    record_decision(engine, "p", key, 2, "the limits are stated", lead, "threshold")
    added = gold.add_from_adjudications(engine, "p", [key], by=lead)
    assert added.added == 1
    assert {(g.query_id, g.chunk_id): g.rationale for g in gold.gold_items(engine, "p")}[key] == (
        "the limits are stated"
    )
    out = run_qrels(db_url, "gold", "settings", "--pool", "p", "--rate", "5").output
    assert "one gold item in 5" in out
    out = run_qrels(db_url, "gold", "add", "--pool", "p", "--release", tmp_path / "g1").output
    assert "0 gold items added" in out and f"{len(GOLD)} were gold already" in out
    report = run_qrels(db_url, "gold", "report", "--pool", "p", "--json").output
    assert isinstance(__import__("json").loads(report), list)
