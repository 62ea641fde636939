"""A lead's figures never hold up an annotator's key: every read for figures, reports and
releases runs in a snapshot (``storage.db.snapshot_scope``), never under SQLite's write lock
(``BEGIN IMMEDIATE``). Here each lead read is held open in another thread right after its
first query, as a long count at a million judgments would be, and a keypress made meanwhile
through the labeling page's functions must finish at once and be saved."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import event, func
from sqlmodel import select

from annotator.labeling import assignment
from annotator.pools import pool_figures
from annotator.quality import gold, pool_quality, progress
from annotator.releases import releases
from storage.db import session_scope
from storage.models import Judgment
from tests.annotator.labeling.test_keypress import grade, keypress, make_pool

HOLD_SECONDS = 5.0  # how long a lead's read stays open: far beyond a keypress
QUICK_SECONDS = 1.0  # a keypress meanwhile takes well under this more than a quiet one
POLICY = "threshold"

LEAD_READS = {
    "team progress": lambda engine, _: progress.team_figures(engine, "p"),
    "agreement": lambda engine, _: pool_quality.pool_agreement(engine, "p", POLICY, rounds=20),
    "adjudication queue": lambda engine, _: pool_quality.pool_queue(engine, "p", POLICY),
    "pool figures": lambda engine, _: pool_figures.pool_figures(engine, "p"),
    "gold report": lambda engine, _: gold.gold_checks(engine, "p"),
    "data version": lambda engine, _: progress.data_version(engine),
    "release create": lambda engine, folder: releases.create_release(
        engine, "v1", "p", folder / "releases", policy=POLICY, allow_unresolved=True
    ),
}


class HeldRead:
    """Holds the reads of one thread open after their first query, until ``release``."""

    def __init__(self, engine) -> None:
        self.engine, self.thread = engine, None
        self.reading, self.released = threading.Event(), threading.Event()

    def after_execute(self, _connection, _cursor, statement: str, *_args) -> None:
        started = statement.lstrip().upper().startswith("SELECT")
        if threading.get_ident() == self.thread and started and not self.reading.is_set():
            self.reading.set()  # the lead's transaction is open and has read
            self.released.wait(HOLD_SECONDS)

    def run(self, work) -> threading.Thread:
        outcome: dict = {}

        def lead() -> None:
            self.thread = threading.get_ident()
            try:
                outcome["result"] = work()
            except BaseException as error:  # shown by the test, in its own thread
                outcome["error"] = error
            finally:
                self.reading.set()

        event.listen(self.engine, "after_cursor_execute", self.after_execute)
        thread = threading.Thread(target=lead)
        thread.outcome = outcome
        thread.start()
        assert self.reading.wait(HOLD_SECONDS * 2), "the lead's read never started"
        return thread

    def finish(self, thread: threading.Thread):
        self.released.set()
        thread.join()
        event.remove(self.engine, "after_cursor_execute", self.after_execute)
        if "error" in thread.outcome:
            raise thread.outcome["error"]
        return thread.outcome["result"]


def judgments_of(engine, user: int) -> int:
    with session_scope(engine) as session:
        return session.exec(select(func.count()).where(Judgment.user_id == user)).one()


@pytest.mark.parametrize("read", list(LEAD_READS))
def test_a_key_pressed_while_a_lead_counts_is_quick_and_saved(engine, tmp_path, read):
    users = make_pool(engine, tmp_path, queries=12, chunks=6)
    grade(engine, users["other"], 30)  # figures with something in them
    grade(engine, users["busy"], 20)
    started = time.perf_counter()
    view = keypress(engine, users["busy"], assignment.next_item(engine, "p", users["busy"]))
    quiet = time.perf_counter() - started  # on a loaded machine, more than a second alone
    before = judgments_of(engine, users["busy"])

    held = HeldRead(engine)
    lead = held.run(lambda: LEAD_READS[read](engine, tmp_path))
    try:
        started = time.perf_counter()
        keypress(engine, users["busy"], view.item)
        seconds = time.perf_counter() - started
    finally:
        result = held.finish(lead)

    assert seconds < quiet + QUICK_SECONDS, f"a key took {seconds:.1f} s beside the lead's {read}"
    assert judgments_of(engine, users["busy"]) == before + 1
    assert result is not None


@pytest.mark.parametrize("read", list(LEAD_READS))
def test_no_lead_read_takes_the_write_lock(engine, tmp_path, read):
    if engine.dialect.name != "sqlite":
        pytest.skip("BEGIN IMMEDIATE is SQLite's write lock")
    users = make_pool(engine, tmp_path, queries=3, chunks=4)
    grade(engine, users["other"], 6)
    begun = []

    def note(_connection, _cursor, statement: str, *_args) -> None:
        if statement.startswith("BEGIN"):
            begun.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        LEAD_READS[read](engine, tmp_path)
    finally:
        event.remove(engine, "before_cursor_execute", note)
    # A release records itself once its files are written; the kept figures (Team progress,
    # Pools) save their grades once the read is over, one row: those writes are expected.
    writes = 1 if read in ("release create", "team progress", "pool figures") else 0
    assert begun.count("BEGIN IMMEDIATE") == writes, begun
