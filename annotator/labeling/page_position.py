"""Where an annotator is on the labeling page, as plain functions: the item in front of
them and how back and forward move. The page keeps only ``position`` in its session.

``position`` is None at the current item (the one they hold, or the next one to claim), or
the index, oldest first, of an item they judged earlier and stepped back to. A new grade on
an earlier item replaces theirs (the old one stays in the history) and returns them to the
current item.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from annotator.labeling import assignment

BACK, FORWARD = -1, 1


@dataclass(frozen=True)
class View:
    """What the page shows: ``item`` (None when nothing is left) at ``position``, and how
    many items the annotator has judged in the pool."""

    item: assignment.Item | None
    position: int | None
    judged: int

    @property
    def reviewing(self) -> bool:
        return self.position is not None


def moved(position: int | None, step: int, judged: int) -> int | None:
    """Where ``step`` (``BACK`` or ``FORWARD``) leads from ``position`` among ``judged``
    earlier items: past the newest is the current item (None); before the oldest stays
    there."""
    target = (judged if position is None else position) + step
    return None if target >= judged or not judged else max(target, 0)


def drawn(item: assignment.Item | None) -> tuple[int, int] | None:
    """What identifies the item a page draws: its assignment and revision (a grade makes
    a new revision, so a key meant for the item before the grade no longer matches)."""
    return None if item is None else (item.assignment_id, item.revision)


def on_screen(shown: tuple[int, int] | None, item: assignment.Item) -> bool:
    """Whether a key meant for ``item`` may act: ``item`` is what the page drew last
    (``shown``, from ``drawn``). A key from a redraw of another item, or a second key on an
    item already graded in this revision, writes nothing."""
    return shown is not None and shown == drawn(item)


def view(engine: Engine, pool_name: str, user_id: int, position: int | None) -> View:
    """The item at ``position`` for ``user_id``; a position past their history (it may have
    shrunk in another tab) is the current item."""
    judged = assignment.judged_count(engine, pool_name, user_id)
    if position is not None and 0 <= position < judged:
        earlier = assignment.judged_item(engine, pool_name, user_id, position)
        if earlier is not None:
            return View(earlier, position, judged)
    return View(assignment.next_item(engine, pool_name, user_id), None, judged)
