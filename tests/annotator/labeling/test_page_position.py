"""The labeling page's state: where back and forward lead, and what is shown there."""

from __future__ import annotations

import pytest

from annotator.labeling import assignment, page_position


@pytest.mark.parametrize(
    ("position", "step", "judged", "expected"),
    [
        (None, page_position.BACK, 3, 2),  # from the current item to the newest judged one
        (2, page_position.BACK, 3, 1),
        (0, page_position.BACK, 3, 0),  # the oldest stays there
        (1, page_position.FORWARD, 3, 2),
        (2, page_position.FORWARD, 3, None),  # past the newest is the current item
        (None, page_position.FORWARD, 3, None),
        (None, page_position.BACK, 0, None),  # nothing judged: nowhere to go back to
    ],
)
def test_moves(position, step, judged, expected):
    assert page_position.moved(position, step, judged) == expected


def test_the_view_steps_back_through_what_was_judged_one_item_at_a_time(engine, pool):
    user = pool["a1"]
    graded = []
    for value in (3, 1, 2):
        item = assignment.next_item(engine, "p", user)
        assert assignment.submit(engine, item, user, grade=value)
        graded.append(item.chunk_id)
    current = page_position.view(engine, "p", user, None)
    assert not current.reviewing and current.judged == 3
    assert current.item.chunk_id not in graded
    newest = page_position.view(engine, "p", user, page_position.moved(None, page_position.BACK, 3))
    assert newest.reviewing and (newest.item.chunk_id, newest.item.grade) == (graded[2], 2)
    oldest = page_position.view(engine, "p", user, 0)
    assert (oldest.item.chunk_id, oldest.item.grade) == (graded[0], 3)
    # A position beyond the history (another tab, a stale session) is the current item.
    assert page_position.view(engine, "p", user, 7).position is None


def test_a_key_acts_only_on_the_item_drawn_last(engine, pool):
    """Issue 20: what a key was meant for travels with it (the assignment and revision);
    it acts only when that is the item the page drew last."""
    user = pool["a1"]
    first = page_position.view(engine, "p", user, None).item
    shown = page_position.drawn(first)
    assert page_position.on_screen(shown, first)
    assert not page_position.on_screen(None, first)  # nothing drawn yet
    assert assignment.submit(engine, first, user, grade=2)
    following = page_position.view(engine, "p", user, None).item
    assert following.assignment_id != first.assignment_id
    # A key meant for the first item, arriving once the next one is drawn, does not act
    # (before issue 20 it graded the next one, never seen).
    assert not page_position.on_screen(page_position.drawn(following), first)
    # Back on the first item: its new revision is drawn; a key from before the grade (a
    # second press) does not act, and the database refuses it too.
    again = page_position.view(engine, "p", user, 0).item
    assert not page_position.on_screen(page_position.drawn(again), first)
    assert assignment.submit(engine, first, user, grade=3) is False
    assert page_position.on_screen(page_position.drawn(again), again)
