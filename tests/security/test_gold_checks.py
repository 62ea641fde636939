"""Issue 21, item 1: gold checks could be spotted, skipped and gamed. A gold item appeared
at every ``rate``-th item, grew "this pool x / N" and "this query x / N" by one and could
switch the query; skipping one handed the next gold item and left the annotator out of
``qrels gold report``; re-grading a missed gold item after My progress showed the answer
made the latest grade count. These drive the functions the label page calls
(``next_item``, ``progress``, ``submit``, ``skip``, ``judged_item``), on SQLite and
PostgreSQL. And item 6's gold part: gold items stay out of agreement and the queue."""

from __future__ import annotations

import json

from sqlmodel import select

from annotator.labeling import assignment
from annotator.quality import adjudication, gold, pool_quality
from annotator.releases import releases
from pooling.release_folder import read_manifest
from storage.db import session_scope
from storage.models import Chunk, Judgment, Query
from tests.annotator.quality.test_gold import CHUNKS, GOLD, QUERIES
from tests.conftest import run_qrels


def is_gold(item: assignment.Item) -> bool:
    return (item.query_id, item.chunk_id) in GOLD


def test_progress_is_the_same_before_and_after_a_gold_item(engine, gold_pool):
    gold.configure(engine, "p", rate=5)
    user = gold_pool["a1"]
    shown = []  # each item with the progress the page shows beside it
    while (item := assignment.next_item(engine, "p", user)) is not None:
        shown.append((item, assignment.progress(engine, "p", user, item.query_id)))
        assert assignment.submit(engine, item, user, grade=1)
    checks = [n for n, (item, _) in enumerate(shown) if is_gold(item)]
    assert checks and len(shown) > QUERIES * (CHUNKS - 2)
    # The pool's total never moves, and each item adds one to what is done.
    assert [p.pool_done for _, p in shown] == list(range(len(shown)))
    assert {p.pool_total for _, p in shown} == {len(shown)}
    # Each query is one run of items whose total is known from its first item on.
    for query in {item.query_id for item, _ in shown}:
        mine = [p for item, p in shown if item.query_id == query]
        assert [p.query_done for p in mine] == list(range(len(mine)))
        assert {p.query_total for p in mine} == {len(mine)}
    for n in checks:  # before, at and after a gold item: the same query, the same totals
        around = shown[max(n - 1, 0) : n + 2]
        same_query = [p for item, p in around if item.query_id == shown[n][0].query_id]
        assert len({(p.query_total, p.pool_total) for p in same_query}) == 1
    # Not at a fixed place: not every gold item is the rate-th item of its run.
    assert len({n % 5 for n in checks}) > 1


def test_skipping_every_gold_item_leaves_the_annotator_flagged(engine, gold_pool, db_url):
    gold.configure(engine, "p", rate=5, min_seen=3)
    user = gold_pool["a1"]
    skipped = set()
    while (item := assignment.next_item(engine, "p", user)) is not None:
        key = (item.query_id, item.chunk_id)
        if key in skipped:  # only the skipped gold items are left: skipped again, and done
            assignment.skip(engine, item, user)
            break
        if key in GOLD:  # the attacker knows the gold items and never grades one
            assignment.skip(engine, item, user)
            skipped.add(key)
            continue
        assert assignment.submit(engine, item, user, grade=GOLD.get(key, 1))
    assert len(skipped) >= 3
    with session_scope(engine) as session:
        graded = set(
            session.exec(
                select(Query.query_id, Chunk.chunk_id)
                .select_from(Judgment)
                .join(Query, Query.id == Judgment.query_id)
                .join(Chunk, Chunk.id == Judgment.chunk_id)
                .where(Judgment.user_id == user)
            )
        )
    assert not graded & set(GOLD)  # no grade was written on a gold item
    report = json.loads(run_qrels(db_url, "gold", "report", "--pool", "p", "--json").stdout)
    a1 = next(row for row in report if row["annotator"] == "a1")
    assert a1["seen"] == len(skipped) and a1["flagged"] and a1["exact"] == 0
    mine = gold.own_figures(engine, "p", "a1")
    assert mine.shown and {(m["query_id"], m["chunk_id"]) for m in mine.missed} == skipped
    assert all(m["skipped"] and m["grade"] is None for m in mine.missed)


def test_only_the_first_judgment_of_a_gold_item_counts(engine, gold_pool):
    gold.configure(engine, "p", rate=3, min_seen=1)
    user = gold_pool["a1"]
    wrong = lambda key: (GOLD[key] + 2) % 4  # noqa: E731
    while (item := assignment.next_item(engine, "p", user)) is not None:
        key = (item.query_id, item.chunk_id)
        assert assignment.submit(engine, item, user, grade=wrong(key) if key in GOLD else 1)
    before = gold.own_figures(engine, "p", "a1")
    assert before.shown and before.standing.flagged and before.missed
    # My progress shows each missed item with the gold grade: step back and grade it so.
    answers = {(m["query_id"], m["chunk_id"]): m["gold"] for m in before.missed}
    for index in range(assignment.judged_count(engine, "p", user)):
        item = assignment.judged_item(engine, "p", user, index)
        if (item.query_id, item.chunk_id) in answers:
            grade = answers[(item.query_id, item.chunk_id)]
            assert assignment.submit(engine, item, user, grade=grade)  # written as history
    assert assignment.reload(engine, item).grade == grade
    after = gold.own_figures(engine, "p", "a1")
    assert after.standing == before.standing and after.missed == before.missed


def test_gold_items_stay_out_of_agreement_and_the_adjudication_queue(engine, gold_pool, tmp_path):
    """Item 6 (its gold part): gold items entered the agreement figures, a release
    manifest's alpha and the queue's tallies."""
    gold.configure(engine, "p", rate=3)
    for n, name in enumerate(("a1", "a2", "a3")):
        # Everyone agrees on ordinary work; on gold, each gives another grade.
        agreeing = lambda item, n=n: n if is_gold(item) else int(item.chunk_id[-1]) % 4  # noqa: E731
        user = gold_pool[name]
        while (item := assignment.next_item(engine, "p", user)) is not None:
            assert assignment.submit(engine, item, user, grade=agreeing(item))
    frame = pool_quality.judgments_frame(engine, "p")
    assert not set(zip(frame["query_id"], frame["chunk_id"], strict=True)) & set(GOLD)
    table = pool_quality.pool_queue(engine, "p", "threshold").table
    keys = list(zip(table["query_id"], table["chunk_id"], strict=True))
    assert {s for k, s in zip(keys, table["status"], strict=True) if k in GOLD} == {"gold"}
    assert {s for k, s in zip(keys, table["status"], strict=True) if k not in GOLD} == {"agreed"}
    assert adjudication.queue(table).empty  # nothing needs a decision: gold's grade stands
    (whole,) = pool_quality.pool_agreement(engine, "p", "threshold", rounds=0).reports
    assert whole.alpha.value == 1.0
    folder = releases.create_release(engine, "v1", "p", tmp_path).folder
    alpha = read_manifest(folder)["agreement"]["krippendorff_alpha_ordinal"]
    assert alpha == 1.0
