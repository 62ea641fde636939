"""What a release streams of the history (``storage.release_lines.release_history``) says what the
rows say: SQLite's stored times, written as text without parsing them, read as the datetimes
the models give, whole seconds included; people under pseudonyms; each judgment's source."""

from __future__ import annotations

from datetime import datetime

import orjson
from sqlalchemy import insert, literal
from sqlmodel import select

from storage import release_lines
from storage.db import driver_rows, session_scope, snapshot_scope
from storage.models import Judgment
from storage.pool_records import get_pool
from tests.annotator.labeling.test_keypress import grade, make_pool

# Whole seconds, a fraction, the last microsecond of a year.
TIMES = [
    datetime(2026, 3, 1, 9, 30),
    datetime(2026, 3, 1, 9, 30, 0, 120),
    datetime(2026, 12, 31, 23, 59, 59, 999999),
]


def test_streamed_times_are_the_datetimes_written_as_iso(engine, tmp_path):
    users = make_pool(engine, tmp_path, queries=2, chunks=3)
    grade(engine, users["busy"], 2)  # from the app
    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        first = session.exec(select(Judgment).order_by(Judgment.id)).first()
        rows = [
            dict(
                user_id=users["other"],
                query_id=first.query_id,
                chunk_id=first.chunk_id,
                grade=1,
                unsure=False,
                note="",
                rubric_version="v1",
                created_at=moment,
            )
            for moment in TIMES
        ]
        session.execute(insert(Judgment), rows)
    with snapshot_scope(engine) as session:
        pool = get_pool("p", session=session)
        text = "".join(b.text for b in release_lines.release_history(pool, session=session).batches)
        streamed = [orjson.loads(line) for line in text.split("\n")[:-1]]
        stored = session.exec(select(Judgment.created_at).order_by(Judgment.id)).all()
    assert [r["created_at"] for r in streamed] == [
        t.replace(tzinfo=None).isoformat() for t in stored
    ]
    assert [r["created_at"] for r in streamed][-3:] == [t.isoformat() for t in TIMES]
    assert [r["source"] for r in streamed] == ["app:p"] * 2 + ["import:None"] * 3
    assert len({r["annotator"] for r in streamed}) == 2
    assert all(r["annotator"].startswith("annotator-") for r in streamed)


def test_driver_rows_binds_values_as_the_drivers_parameters(engine):
    # A quote and an IN list go to the driver as parameters, never into the SQL's text.
    tricky = "it's'); DROP TABLE judgment; --"
    statement = select(literal(tricky), literal(3)).where(literal(2).in_([1, 2, 3]))
    with snapshot_scope(engine) as session:
        assert list(driver_rows(session, statement)) == [(tricky, 3)]
        assert list(driver_rows(session, select(literal(1)).where(literal(5).in_([1, 2])))) == []
