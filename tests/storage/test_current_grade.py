"""One rule, one definition; where speed needs it in SQL and in Python too, the forms are
pinned equal on the same data, on SQLite and PostgreSQL: a person's current grade
(``storage.history``'s ``latest_judgments`` and ``newest_first``, ``storage.counts``'
assignment revisions, a release's ``Tally``) and the lower median (``pooling.grades``,
counted in SQL by ``storage.counts.combination_relevance``)."""

from __future__ import annotations

import random

import orjson
from sqlmodel import select

from annotator.labeling import assignment
from pooling.grades import GRADES, lower_median
from pooling.release_folder import Tally
from pooling.resolution import frame_of
from storage import counts, history, release_lines
from storage.db import session_scope
from storage.models import Judgment, User
from storage.pool_records import get_pool
from tests.conftest import import_grades


def judged_and_changed(engine, users: dict[str, int], tmp_path, seed: int) -> None:
    """Three people grade in the app, change some of their grades (one to unsure), and one
    of them imports grades twice over some of the same candidates."""
    rng = random.Random(seed)
    for user_id in list(users.values())[:3]:
        for _ in range(10):
            item = assignment.next_item(engine, "p", user_id)
            if item is None:
                break
            assignment.submit(engine, item, user_id, grade=rng.choice(GRADES))
        for index in rng.sample(range(10), 4):
            item = assignment.judged_item(engine, "p", user_id, index)
            if rng.random() < 0.25:
                assignment.submit(engine, item, user_id, unsure=True, note="two readings")
            else:
                assignment.submit(engine, item, user_id, grade=rng.choice(GRADES))
    for _ in range(2):
        lines = [
            {"query_id": f"q{q}", "chunk_id": f"c{c}", "grade": rng.choice(GRADES)}
            for q in range(2)
            for c in range(3)
        ]
        import_grades(engine, tmp_path, "a1", lines)


def test_a_persons_current_grade_is_one_rule_in_every_form(engine, pool, tmp_path):
    judged_and_changed(engine, pool, tmp_path, seed=3)
    with session_scope(engine) as session:
        p = get_pool("p", session=session)
        by_id = history.latest_judgments(User.kind == "human")
        grouped = set(session.exec(select(by_id.c.id)).all())
        numbered = select(Judgment.id, history.newest_first().label("n")).subquery()
        window = set(session.exec(select(numbered.c.id).where(numbered.c.n == 1)).all())
        in_app = history.latest_judgments(Judgment.pool_id == p.id)
        app_grouped = set(session.exec(select(in_app.c.id)).all())
        app_revision = set(session.exec(counts._current(p, None, Judgment.id)).all())
        rows = history.candidate_judgments(p, session=session)
        seen = Tally()
        for lines in release_lines.release_history(p, session=session).batches:
            for line in lines.text.split("\n")[:-1]:
                seen.add(orjson.loads(line))
        names = {
            history.pseudonym(user.id, user.created_at): user.name
            for user in session.exec(select(User)).all()
        }
    assert len(grouped) > len(app_grouped) > 10  # re-graded in the app and imported over
    assert window == grouped
    assert app_revision == app_grouped
    sql = {(name, q, c): grade for name, q, c, grade, *_ in rows}
    python = {(names[who], q, c): grade for (who, q, c), grade in seen.current.items()}
    assert python == sql
    assert len(sql) == len(grouped)


def test_the_lower_median_counted_in_sql_is_the_one_resolution_uses(engine, pool, tmp_path):
    judged_and_changed(engine, pool, tmp_path, seed=5)
    with session_scope(engine) as session:
        p = get_pool("p", session=session)
        rows = history.candidate_judgments(p, session=session)
        relevance = {
            threshold: counts.combination_relevance(p, session=session, threshold=threshold)
            for threshold in GRADES[1:]
        }
    frame = frame_of(rows, history.JUDGMENT_COLUMNS).dropna(subset=["grade"])
    medians = lower_median(
        frame.astype({"grade": float}).groupby(["query_id", "chunk_id"])["grade"]
    )
    for threshold, figures in relevance.items():
        assert sum(relevant for _, _, relevant in figures.values()) == int(
            (medians >= threshold).sum()
        )
