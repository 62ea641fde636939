"""Judges counted while others write (``storage.tallies``: ``pool_candidate.judges`` and the
query tallies' ``complete``). On PostgreSQL, in READ COMMITTED, one person's two judgments
of a pair written in two transactions at once were both counted: each transaction's check
for an earlier judgment of theirs missed the other's. Now each waits for the candidates'
locks, in id order, before it looks. SQLite's writers take turns; the same checks hold."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from sqlalchemy import select, text
from sqlmodel import Session

from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from storage import slots, tallies
from storage.catalog import chunk_keys, query_keys, resolve_corpus_version, resolve_query_set
from storage.db import session_scope
from storage.history import append_judgments
from storage.imports import annotator_account
from storage.models import JudgmentBatch, PoolCandidate, User
from storage.pool_records import get_pool
from tests.conftest import N_CHUNKS, N_QUERIES, together
from tests.storage.test_candidate_judges import assert_judges_agree

Write = Callable[[Session], object]


def imported(pairs: list[tuple[str, str]], tag: str, annotator: str = "a1") -> Write:
    """``annotator``'s grades of ``pairs`` appended as an import or a carry appends them."""

    def write(session: Session) -> None:
        user, _ = annotator_account(annotator, "human", session=session)
        query_set = resolve_query_set(None, session=session)
        version = resolve_corpus_version(None, session=session)
        queries, chunks = (
            query_keys(query_set, session=session),
            chunk_keys(version, session=session),
        )
        rows = [{"query_id": queries[q], "chunk_id": chunks[c], "grade": 1} for q, c in pairs]
        batch = JudgmentBatch(source=tag, format="carried", content_hash=tag)  # type: ignore[call-arg]
        append_judgments(
            user, query_set, version, rows, session=session, batch=batch, rubric_version="v1"
        )

    return write


def pressed(item: assignment.Item, user_id: int, stale: bool = False) -> Write:
    """The key that grades ``item``, held by ``user_id`` (the labeling page's write);
    ``stale``: refused, as the pair was graded (imported) meanwhile, which closed the item."""

    def write(session: Session) -> None:
        user = session.get(User, user_id)
        assert user is not None
        judgment = slots.record_judgment(
            item.assignment_id,
            user,
            session=session,
            expected_revision=item.revision,
            grade=2,
            unsure=False,
            note="",
            seconds=None,
            rubric_version="v1",
        )
        assert (judgment is None) == stale

    return write


def waits(engine, pids: list[int]) -> None:
    """Until the other transaction (its server process in ``pids``) waits for a lock; on
    SQLite it waits for the write lock at its start, which shows nowhere: a pause."""
    if engine.dialect.name != "postgresql":
        time.sleep(0.5)
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with engine.connect() as connection:  # a new transaction: pg_stat_activity anew
            if pids:
                query = text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid")
                if connection.execute(query, {"pid": pids[0]}).scalar() == "Lock":
                    return
        time.sleep(0.05)
    raise AssertionError("the second transaction never waited for the first")


def at_once(engine, first: Write, second: Write) -> None:
    """``first`` writes and stays uncommitted until ``second``, in another thread, waits for
    it; then ``first`` commits, and ``second`` goes on and commits."""
    pids: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with session_scope(engine) as session:
                if engine.dialect.name == "postgresql":
                    pids.append(session.execute(text("SELECT pg_backend_pid()")).scalar_one())
                second(session)
        except BaseException as exc:  # reported in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    with session_scope(engine) as session:
        first(session)
        thread.start()
        waits(engine, pids)
    thread.join(timeout=60)
    assert not thread.is_alive() and not errors, errors


def judges_of(engine, query: str, chunk: str) -> int:
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        key_q = query_keys(resolve_query_set(None, session=session), session=session)[query]
        key_c = chunk_keys(resolve_corpus_version(None, session=session), session=session)[chunk]
        statement = select(PoolCandidate.judges).where(
            PoolCandidate.pool_id == pool.id,
            PoolCandidate.query_id == key_q,
            PoolCandidate.chunk_id == key_c,
        )
        return session.execute(statement).scalar_one()


@pytest.mark.parametrize("order", ["key, then import", "import, then key", "two imports"])
def test_one_person_judging_a_pair_twice_at_once_is_one_judge(engine, pool, order):
    item = assignment.next_item(engine, "p", pool["a1"])
    assert item is not None
    pair = [(item.query_id, item.chunk_id)]
    key, first_import = pressed(item, pool["a1"]), imported(pair, "i1")
    writes = {
        "key, then import": (key, first_import),
        "import, then key": (first_import, pressed(item, pool["a1"], stale=True)),
        "two imports": (first_import, imported(pair, "i2")),
    }[order]
    at_once(engine, *writes)
    assert judges_of(engine, item.query_id, item.chunk_id) == 1
    assert_judges_agree(engine, "p")


def test_a_second_judge_at_once_completes_the_candidate_once(engine, pool):
    """Two people's judgments of a pair at once: two judges, and the query's tally counts
    the candidate complete once."""
    item = assignment.next_item(engine, "p", pool["a1"])
    assert item is not None
    pair = [(item.query_id, item.chunk_id)]
    at_once(engine, pressed(item, pool["a1"]), imported(pair, "i1", annotator="a2"))
    assert judges_of(engine, item.query_id, item.chunk_id) == 2
    assert_judges_agree(engine, "p")


def test_a_large_import_beside_annotators_pressing_keys(engine, pool):
    """A batch of every pair of two pools, by an annotator of the app, while four others
    press keys in both: no deadlock, no transaction lost, the same counts as from scratch."""
    build_pool(engine, "p2", systems="run:r", depth=N_CHUNKS, overlap=2)
    every = [(f"q{q}", f"c{c}") for q in range(N_QUERIES) for c in range(N_CHUNKS)]

    def work(name: str, importer: str, tag: str) -> None:
        if name == "import":
            with session_scope(engine) as session:
                imported(every, tag, annotator=importer)(session)
            return
        for pool_name in ("p", "p2") * 3:
            item = assignment.next_item(engine, pool_name, pool[name])
            if item is not None:
                assert assignment.submit(engine, item, pool[name], grade=1)

    for round_, importer in enumerate(["a1", "a6", "a1"]):  # a1 again: no new judge
        people = ["import", "a2", "a3", "a4", "a5"]
        together(lambda name: work(name, importer, f"all{round_}"), people)  # noqa: B023
    assert_judges_agree(engine, "p", "p2")
    with session_scope(engine) as session:
        kept = tallies.kept(get_pool("p", session=session), session=session)[1]
        assert sum(t["complete"] for t in kept.values()) > 0
