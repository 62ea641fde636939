"""The tallies a keypress reads equal a count from scratch, whatever happened: claims by
annotators at once, skips, holds that expired, a lead asking for more judgments, and a
database that upgraded from before the tallies existed."""

from __future__ import annotations

import random

import pytest
from alembic import command
from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError

from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from storage import annotator_tallies, slots, tallies
from storage.db import _alembic_config, retried, session_scope, upgrade
from storage.imports import import_corpus, import_queries, import_run
from storage.models import (
    AnnotatorTally,
    Assignment,
    Judgment,
    PoolCandidate,
    QueryTally,
    User,
)
from storage.pool_records import get_pool
from tests.conftest import together, write
from tests.storage.test_imports import jsonl


def assert_tallies_agree(engine) -> None:
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)


def work(engine, user_id: int, seed: int, grades: int = 10) -> int:
    """Grade up to ``grades`` items, skipping about one in four first."""
    rng, done = random.Random(seed), 0
    while done < grades:
        item = assignment.next_item(engine, "p", user_id)
        if item is None:
            break
        if rng.random() < 0.25 and not item.judged:
            assignment.skip(engine, item, user_id)
            continue
        assert assignment.submit(engine, item, user_id, grade=rng.randint(0, 3))
        done += 1
    return done


def test_a_new_pool_is_counted(engine, pool):
    assert_tallies_agree(engine)
    with session_scope(engine) as session:
        query = tallies.queries(get_pool("p", session=session), session=session)[0]
        assert (query.candidates, query.slots, query.held, query.open) == (6, 12, 0, 6)


def test_annotators_at_once_with_skips(engine, pool):
    together(lambda name: work(engine, pool[name], seed=len(name) + int(name[1:])), pool)
    assert_tallies_agree(engine)


def test_a_claim_that_fails_lets_go_of_the_candidate(engine, pool):
    """next_item tries candidates in the annotator's own order: two annotators each keeping
    the lock of a full candidate while waiting for the other's deadlocked on PostgreSQL
    (and a keypress queued behind them was the one undone)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers take turns: it locks no rows")
    with session_scope(engine) as session:
        pool_row = get_pool("p", session=session)
        first = select(PoolCandidate.id).where(PoolCandidate.pool_id == pool_row.id)
        candidate = session.exec(first.order_by(PoolCandidate.id)).first()[0]
        for name in ("a1", "a2"):  # the pool's overlap: the candidate is full
            assert slots.claim(pool_row, candidate, session.get(User, pool[name]), session=session)
    with session_scope(engine) as session:
        pool_row = get_pool("p", session=session)
        a3 = session.get(User, pool["a3"])
        assert slots.claim(pool_row, candidate, a3, session=session) is None
        with engine.connect() as other:  # another annotator's transaction takes it at once
            locking = select(PoolCandidate.id).where(PoolCandidate.id == candidate)
            other.execute(locking.with_for_update(key_share=True, nowait=True)).one()
            other.rollback()


def tally_row(engine, pool_id: int, user_id: int) -> tuple:
    with engine.connect() as connection:
        row = connection.execute(
            select(AnnotatorTally.waiting, AnnotatorTally.last_query_id).where(
                AnnotatorTally.pool_id == pool_id, AnnotatorTally.user_id == user_id
            )
        ).one()
    return tuple(row)


def test_an_annotators_tally_is_read_once_and_follows_what_the_transaction_does(engine, pool):
    """A keypress asks for an annotator's tally three times and reads it once: kept with
    the transaction's own changes, forgotten when a savepoint is undone, and read afresh
    in the session's next transaction (where others may have changed it)."""
    from sqlmodel import Session

    with Session(engine, expire_on_commit=False) as session:
        pool_row = get_pool("p", session=session)
        a1 = session.get(User, pool["a1"])
        candidate = session.exec(
            select(PoolCandidate).where(PoolCandidate.pool_id == pool_row.id)
        ).first()[0]
        before = annotator_tallies.tally(pool_row, a1.id, session=session)
        assert (before.done, before.waiting, before.last_query_id) == (0, 0, None)
        assert slots.claim(pool_row, candidate.id, a1, session=session)
        took = annotator_tallies.tally(pool_row, a1.id, session=session)
        assert (took.waiting, took.last_query_id) == (1, candidate.query_id)
        attempt = session.begin_nested()
        annotator_tallies.found(pool_row, a1.id, session=session)
        assert annotator_tallies.tally(pool_row, a1.id, session=session).waiting == 2
        attempt.rollback()
        assert annotator_tallies.tally(pool_row, a1.id, session=session).waiting == 1
        session.commit()
        assert tally_row(engine, pool_row.id, a1.id) == (1, candidate.query_id)
        with engine.begin() as other:  # another process, between two transactions
            other.execute(update(AnnotatorTally).values(waiting=AnnotatorTally.waiting + 5))
        assert annotator_tallies.tally(pool_row, a1.id, session=session).waiting == 6
        session.rollback()


def test_a_first_grade_locks_its_query_tally_with_its_candidate(engine, pool):
    """The judges are counted, and a complete candidate added to its query's tally, after
    the annotator's tally moved: were the query's tally taken only then, a claim or skip
    holding it while waiting for that annotator's tally deadlocked (PostgreSQL)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers take turns: it locks no rows")
    item = assignment.next_item(engine, "p", pool["a1"])
    with session_scope(engine) as session:
        user, candidate = session.get(User, pool["a1"]), session.get(Assignment, item.assignment_id)
        row = session.get(PoolCandidate, candidate.candidate_id)
        pair = {"query_id": row.query_id, "chunk_id": row.chunk_id}
        grade = Judgment(user_id=user.id, **pair, grade=1, rubric_version="1")
        session.add(grade)
        session.flush()
        tallies.judging(user, grade, session=session)
        with engine.connect() as other, pytest.raises(OperationalError, match="lock"):
            tally = select(QueryTally.id).where(
                QueryTally.pool_id == row.pool_id, QueryTally.query_id == row.query_id
            )
            other.execute(tally.with_for_update(nowait=True)).one()
        session.rollback()


def test_expired_holds_and_more_judgments_asked_for(engine, pool):
    for name in ("a1", "a2", "a3"):
        work(engine, pool[name], seed=1, grades=5)
        assignment.next_item(engine, "p", pool[name])  # holds one more, never judged
    with session_scope(engine) as session:
        # Every hold lapses: the three unjudged ones give up their slots.
        session.execute(update(Assignment).values(expires_at=Assignment.taken_at))
        pool_row = get_pool("p", session=session)
        assert slots.release_expired(pool_row, session=session) == 3
        slots.require_judgments(pool_row, "q0", "c0", 3, session=session)
    assert_tallies_agree(engine)
    work(engine, pool["a4"], seed=4, grades=30)
    assert_tallies_agree(engine)


def test_an_upgrade_fills_the_tallies_from_the_assignments(engine, pool):
    for name in ("a1", "a2"):
        work(engine, pool[name], seed=2, grades=7)
    assignment.next_item(engine, "p", pool["a3"])
    config = _alembic_config(engine)
    command.downgrade(config, "-1")  # as a database made before the tallies
    upgrade(engine)
    assert_tallies_agree(engine)
    assert assignment.judged_count(engine, "p", pool["a1"]) == 7


def test_tallies_of_a_bulk_load_are_refilled(engine, pool):
    work(engine, pool["a1"], seed=3, grades=9)
    with session_scope(engine) as session:
        pool_row = get_pool("p", session=session)
        session.execute(update(Assignment).values(slot=None))  # as if written by other means
        tallies.refill(pool_row, session=session)
    assert_tallies_agree(engine)
    with session_scope(engine) as session:
        pool_row = get_pool("p", session=session)
        assert annotator_tallies.tally(pool_row, pool["a1"], session=session).waiting == 0


def test_a_pool_of_ten_thousand_queries_is_built(engine, tmp_path):
    """Its tallies are written in pages: one statement of 10,000 rows of seven values each
    passed PostgreSQL's limit of 65,535 parameters, and the build failed."""
    queries = 10_000
    corpus = [{"_id": "c0", "text": "the one chunk"}]
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        texts = [{"_id": f"q{i}", "text": f"query {i}"} for i in range(queries)]
        import_queries(write(tmp_path, "q.jsonl", jsonl(texts)), session=session, name="q")
        run = "".join(f"q{i} Q0 c0 1 1 r\n" for i in range(queries))
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
    build_pool(engine, "p", systems="run:r", depth=1, overlap=1)
    with session_scope(engine) as session:
        assert len(tallies.queries(get_pool("p", session=session), session=session)) == queries
    assert_tallies_agree(engine)


class Undone(Exception):
    """What psycopg raises for a transaction PostgreSQL undid in a deadlock."""

    sqlstate = "40P01"


def test_a_keypress_undone_in_someone_elses_deadlock_is_written_again(engine, pool):
    """PostgreSQL undoes one transaction of a deadlock, perhaps a grade queued behind the
    two that collided: the grade is written again, not lost (nor written twice)."""
    item = assignment.next_item(engine, "p", pool["a1"])
    record, undone = slots.record_judgment, []

    def undone_once(*args, **kwargs):
        judgment = record(*args, **kwargs)
        if not undone:
            undone.append(judgment.id)
            raise OperationalError("UPDATE pool_candidate", {}, Undone())
        return judgment

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(slots, "record_judgment", undone_once)
        assert assignment.submit(engine, item, pool["a1"], grade=2)
    assert undone and assignment.judged_count(engine, "p", pool["a1"]) == 1
    assert_tallies_agree(engine)
    calls = []

    def disk_full(session):
        calls.append(session)
        raise OperationalError("UPDATE", {}, ValueError("disk full"))

    with pytest.raises(OperationalError):  # another error is no collision: raised at once
        retried(engine, disk_full)
    assert len(calls) == 1
