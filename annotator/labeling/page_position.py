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
from sqlmodel import Session

from annotator.labeling import assignment
from storage import slots
from storage.models import Pool, User

BACK, FORWARD = -1, 1


@dataclass(frozen=True)
class View:
    """What the page shows: ``item`` (None when nothing is left) at ``position``, how
    many items the annotator has judged in the pool, and their progress in the item's query
    and in the pool."""

    item: assignment.Item | None
    position: int | None
    judged: int
    progress: assignment.Progress = assignment.Progress(0, 0, 0, 0)

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


# The least time between the server drawing an item and a key for it. The page stops a key
# until the item has been painted for a quarter of a second (annotator/app/page_keys.py),
# and it is painted after the server drew it, so no key the page let through is refused
# here; a key that came sooner (the page's guard missing, or a script) was pressed before
# anyone could have read the item, and writes nothing.
SEEN_SECONDS = 0.2


def seen(seconds_shown: float) -> bool:
    """Whether an item drawn ``seconds_shown`` ago may take a key (``SEEN_SECONDS``)."""
    return seconds_shown >= SEEN_SECONDS


def view(
    engine: Engine,
    pool_name: str,
    user_id: int,
    position: int | None,
    *,
    login: str | None = None,
) -> View:
    """The item at ``position`` for ``user_id``, with their progress, read (and the next
    item claimed) in one transaction: a keypress's render is one round of statements, not
    one per figure; with ``login``, the check that their login session is still live is
    one of them (``Refused`` if not). A position past their history (it may have shrunk in
    another tab) is the current item."""

    def work(pool: Pool, user: User, session: Session) -> View:
        judged = slots.judged_count(pool, user, session=session)
        if position is not None and 0 <= position < judged:
            earlier = assignment.judged_at(pool, user, position, judged, session)
            if earlier is not None:
                progress = assignment.standing(pool, user, earlier.query_key, session)
                return View(earlier, position, judged, progress)
        item = assignment.current(pool, user, session)
        if item is None:
            return View(None, None, judged)
        if item is assignment.TRY_AGAIN:  # taken by others meanwhile: in_turn tries again
            return item
        # The current item is the one they hold (held on, or claimed just now).
        progress = assignment.standing(pool, user, item.query_key, session, holds=True)
        return View(item, None, judged, progress)

    found = assignment.in_turn(engine, pool_name, user_id, work, login=login)
    return found or View(None, None, assignment.judged_count(engine, pool_name, user_id))
