"""Migration 0024 on SQLite and PostgreSQL: a database whose pools shared pairs before the
one-grade rule (issue 36) gets the rows the rule makes as grades arrive, and its tallies
are recounted, so that ``qrels status``, the next item and the tallies agree."""

from __future__ import annotations

from alembic import command
from sqlalchemy import delete, update
from sqlmodel import select

from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from storage import annotator_tallies, tallies
from storage.db import _alembic_config, current_revision, head_revision, session_scope, upgrade
from storage.models import Assignment, Judgment, utcnow
from storage.pool_records import get_pool
from tests.annotator.labeling.test_one_grade import CANDIDATES, assert_all_agree, grade_all
from tests.conftest import N_CHUNKS


def _rows_without_judgment(session, pool_id: int, user_id: int) -> list[Assignment]:
    """The rows the rule made for ``user_id`` in the pool: judged, with no judgment there."""
    judged_here = select(Judgment.assignment_id).where(Judgment.assignment_id.is_not(None))
    return list(
        session.exec(
            select(Assignment)
            .where(
                Assignment.pool_id == pool_id,
                Assignment.user_id == user_id,
                Assignment.id.not_in(judged_here),
            )
            .order_by(Assignment.id)
        )
    )


def as_before_the_rule(engine, people: dict[str, int]) -> None:
    """Rewind the rows of pool p2 to what a database made before the rule held: a1 has no
    row there for what they graded in p; of a2's, one is held open, one skipped, the rest
    missing; the tallies count what is left (as the code of the time kept them)."""
    command.downgrade(_alembic_config(engine), "0023")
    with session_scope(engine) as session:
        p2 = get_pool("p2", session=session)
        gone = [row.id for row in _rows_without_judgment(session, p2.id, people["a1"])]
        held, skipped, *rest = _rows_without_judgment(session, p2.id, people["a2"])
        gone += [row.id for row in rest]
        session.execute(delete(Assignment).where(Assignment.id.in_(gone)))
        session.execute(
            update(Assignment).where(Assignment.id == held.id).values(done_at=None, revision=0)
        )
        session.execute(
            update(Assignment)
            .where(Assignment.id == skipped.id)
            .values(done_at=None, slot=None, revision=0, skipped_at=utcnow())
        )
        tallies.refill(p2, session=session)


def test_an_upgrade_makes_the_rows_of_grades_made_in_the_other_pool(engine, db_url, pool):
    people = {name: pool[name] for name in ("a1", "a2", "a3")}
    build_pool(engine, "p2", systems="run:r", depth=N_CHUNKS, overlap=2)
    grade_all(engine, "p", people["a1"])
    grade_all(engine, "p", people["a2"], grade=2)
    as_before_the_rule(engine, people)
    with session_scope(engine) as session:
        p2 = get_pool("p2", session=session)
        assert annotator_tallies.tally(p2, people["a1"], session=session).done == 0
    upgrade(engine)
    assert current_revision(engine) == head_revision()  # 0024 and every one after
    for name in ("a1", "a2"):
        # Nothing left for them in p2: every pair is theirs, judged, as if graded there.
        assert assignment.next_item(engine, "p2", people[name]) is None, name
        assert assignment.judged_count(engine, "p2", people[name]) == CANDIDATES, name
    with session_scope(engine) as session:
        p2 = get_pool("p2", session=session)
        rows = session.exec(select(Assignment).where(Assignment.pool_id == p2.id)).all()
        assert len(rows) == 2 * CANDIDATES and all(row.done_at for row in rows)
        slots = {(row.candidate_id, row.slot) for row in rows}
        assert len(slots) == len(rows) and {slot for _, slot in slots} == {0, 1}
    assert_all_agree(engine, db_url, "p2", people)
    assert_all_agree(engine, db_url, "p", people)
    assert assignment.next_item(engine, "p2", people["a3"]) is None  # overlap 2 reached


def test_an_upgrade_with_nothing_to_make_changes_nothing(engine, db_url, pool):
    build_pool(engine, "p2", systems="run:r", depth=N_CHUNKS, overlap=2)
    grade_all(engine, "p", pool["a1"])
    with session_scope(engine) as session:
        before = sorted(
            (a.id, a.slot, a.revision, a.done_at) for a in session.exec(select(Assignment))
        )
    command.downgrade(_alembic_config(engine), "0023")
    upgrade(engine)
    with session_scope(engine) as session:
        after = sorted(
            (a.id, a.slot, a.revision, a.done_at) for a in session.exec(select(Assignment))
        )
    assert after == before
    assert_all_agree(engine, db_url, "p2", {"a1": pool["a1"], "a2": pool["a2"]})


def test_an_upgrade_counts_a_finders_grade_made_in_the_other_pool(engine, db_url, pool):
    """a1's search added a pair to "a", then a1 graded it in "b": before the rule their
    row in "a" stayed a finder's (no slot) while ``qrels status`` counted them a judge."""
    from annotator.labeling.search import ManualSearch
    from tests.annotator.labeling.test_one_grade_finder import FOUND

    build_pool(engine, "a", systems="run:r", depth=3, overlap=2)
    build_pool(engine, "b", systems="run:r", depth=N_CHUNKS, overlap=2)
    people = {name: pool[name] for name in ("a1", "a2", "a3")}
    ManualSearch(engine, "a").add(*FOUND, people["a1"])
    grade_all(engine, "b", people["a1"])
    command.downgrade(_alembic_config(engine), "0023")
    with session_scope(engine) as session:
        a = get_pool("a", session=session)
        rows = _rows_without_judgment(session, a.id, people["a1"])
        found = [row.id for row in rows if row.found_at is not None]
        assert len(found) == 1
        session.execute(
            update(Assignment)
            .where(Assignment.id == found[0])
            .values(slot=None, done_at=None, revision=0)
        )
        session.execute(
            delete(Assignment).where(Assignment.id.in_([r.id for r in rows if r.id != found[0]]))
        )
        tallies.refill(a, session=session)
    upgrade(engine)
    assert assignment.next_item(engine, "a", people["a1"]) is None
    grade_all(engine, "a", people["a2"])
    assert assignment.next_item(engine, "a", people["a3"]) is None
    assert_all_agree(engine, db_url, "a", people)
