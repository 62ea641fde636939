"""Assignment: order, overlap, history, double clicks, timeouts and concurrency, on SQLite
and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlmodel import select

from annotator.cli import cli
from annotator.labeling import assignment
from storage import slots
from storage.db import session_scope
from storage.models import Assignment, Chunk, Judgment, Query
from storage.pool_records import get_pool
from tests.conftest import N_CHUNKS, N_QUERIES, together


def judge_all(engine, user_id, grade=1, limit=1000):
    done = 0
    while done < limit:
        item = assignment.next_item(engine, "p", user_id)
        if item is None:
            return done
        assert assignment.submit(engine, item, user_id, grade=grade, seconds=1.0)
        done += 1
    return done


def test_annotators_start_in_different_places(engine, pool):
    firsts = {
        (item.query_id, item.chunk_id)
        for item in (assignment.next_item(engine, "p", user_id) for user_id in pool.values())
    }
    assert len(firsts) >= 4  # six annotators, spread over queries and chunks


def test_one_query_at_a_time(engine, pool):
    first = assignment.next_item(engine, "p", pool["a1"])
    assert assignment.next_item(engine, "p", pool["a1"]) == first  # held until judged
    seen = []
    item = first
    for _ in range(N_CHUNKS):
        seen.append((item.query_id, item.chunk_id))
        assert assignment.submit(engine, item, pool["a1"], grade=2)
        item = assignment.next_item(engine, "p", pool["a1"])
    assert len({q for q, _ in seen}) == 1 and len(set(seen)) == N_CHUNKS  # the whole query
    assert item.query_id != seen[0][0]  # then another one


def test_every_candidate_gets_exactly_overlap_judgments(engine, pool):
    for user in ("a1", "a2", "a3"):
        judge_all(engine, pool[user])
    with session_scope(engine) as session:
        judges = Counter(
            session.exec(select(Judgment.query_id, Judgment.chunk_id, Judgment.user_id)).all()
        )
        per_candidate = Counter((q, c) for q, c, _ in judges)
    assert all(n == 1 for n in judges.values())  # nobody judged a candidate twice
    assert len(per_candidate) == N_QUERIES * N_CHUNKS
    assert set(per_candidate.values()) == {2}


def test_a_double_click_writes_once_and_a_change_is_a_new_revision(engine, pool):
    item = assignment.next_item(engine, "p", pool["a1"])
    assert assignment.submit(engine, item, pool["a1"], grade=1)
    assert not assignment.submit(engine, item, pool["a1"], grade=1)  # same revision again
    again = assignment.reload(engine, item)
    assert (again.grade, again.revision, again.judged) == (1, 1, True)
    assert assignment.submit(engine, again, pool["a1"], grade=3)
    assert assignment.reload(engine, item).grade == 3
    with session_scope(engine) as session:
        history = session.exec(
            select(Judgment.grade, Judgment.revision).order_by(Judgment.id)
        ).all()
    assert history == [(1, 1), (3, 2)]  # the old grade stays in the history
    assert [i.grade for i in assignment.judged_items(engine, "p", pool["a1"])] == [3]


def test_unsure_needs_a_note(engine, pool):
    item = assignment.next_item(engine, "p", pool["a1"])
    with pytest.raises(ValueError, match="needs a note"):
        assignment.submit(engine, item, pool["a1"], unsure=True)
    assert assignment.submit(engine, item, pool["a1"], unsure=True, note="two readings")
    assert assignment.reload(engine, item).unsure is True


def test_skip_frees_the_slot_and_comes_back_last(engine, pool):
    item = assignment.next_item(engine, "p", pool["a1"])
    assignment.skip(engine, item, pool["a1"])
    following = assignment.next_item(engine, "p", pool["a1"])
    assert following.chunk_id != item.chunk_id and following.query_id == item.query_id
    other = assignment.next_item(engine, "p", pool["a2"])
    assert other is not None  # the skipped slot is free for others meanwhile
    offered = []
    while following is not None and (following.query_id, following.chunk_id) != (
        item.query_id,
        item.chunk_id,
    ):
        offered.append(following)
        assert assignment.submit(engine, following, pool["a1"], grade=0)
        following = assignment.next_item(engine, "p", pool["a1"])
    assert following is not None  # it came back ...
    assert len(offered) == N_QUERIES * N_CHUNKS - 1  # ... after everything else


def test_an_abandoned_item_is_released_after_the_timeout(engine, pool):
    item = assignment.next_item(engine, "p", pool["a1"])
    with session_scope(engine) as session:
        held = session.get(Assignment, item.assignment_id)
        held.expires_at = held.taken_at - timedelta(seconds=1)
        session.add(held)
        pool_row = get_pool("p", session=session)
        assert slots.release_expired(pool_row, session=session) == 1
    # Too late: the slot is gone, so the grade is not written.
    assert not assignment.submit(engine, item, pool["a1"], grade=2)


def test_a_lead_can_ask_for_more_judgments(engine, pool):
    result = CliRunner().invoke(
        cli, ["--db", str(engine.url), "pool", "require", "p", "q1", "c2", "--judgments", "3"]
    )
    assert result.exit_code == 0, result.output + result.stderr
    for user in ("a1", "a2", "a3", "a4"):
        judge_all(engine, pool[user])
    with session_scope(engine) as session:
        judged = Counter(session.exec(select(Judgment.query_id, Judgment.chunk_id)).all())
        keys = {c.chunk_id: c.id for c in session.exec(select(Chunk)).all()}
        queries = {q.query_id: q.id for q in session.exec(select(Query)).all()}
    target = (queries["q1"], keys["c2"])
    assert judged[target] == 3 and max(n for k, n in judged.items() if k != target) == 2
    with session_scope(engine) as session, pytest.raises(LookupError, match="not a candidate"):
        slots.require_judgments(get_pool("p", session=session), "q1", "zz", 3, session=session)


def test_progress_counts_done_and_assigned(engine, pool):
    item = assignment.next_item(engine, "p", pool["a1"])
    before = assignment.progress(engine, "p", pool["a1"], item.query_id)
    assert (before.query_done, before.query_total) == (0, N_CHUNKS)
    assert before.pool_total == N_QUERIES * N_CHUNKS
    assignment.submit(engine, item, pool["a1"], grade=1)
    after = assignment.progress(engine, "p", pool["a1"], item.query_id)
    assert (after.query_done, after.pool_done) == (1, 1)


def test_concurrent_annotators_never_over_judge(engine, pool):
    """Six annotators at once, each judging until nothing is left for them."""
    totals = together(lambda name: judge_all(engine, pool[name]), pool)
    with session_scope(engine) as session:
        judgments = session.exec(
            select(Judgment.query_id, Judgment.chunk_id, Judgment.user_id)
        ).all()
    per_candidate = Counter((q, c) for q, c, _ in judgments)
    assert len(judgments) == len(set(judgments)) == sum(totals.values())  # none duplicated
    assert len(per_candidate) == N_QUERIES * N_CHUNKS  # none lost
    assert set(per_candidate.values()) == {2}  # exactly overlap each
