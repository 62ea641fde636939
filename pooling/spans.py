"""Where chunks lie in their document, and how the chunks of two chunkings of one document
overlap.

A chunk's **span** is ``(start, end)``: the character offsets in its document's text of
the chunk's text without its surrounding whitespace (``document[start:end] ==
text.strip()``). The chunker knows its spans (``pooling.chunking``); a corpus that arrives
already chunked has them **located** here, in its documents' texts: a text found at exactly
one place is located (exactly, else with any run of whitespace standing for any other, as
chunkers often normalise whitespace); a text found at several places (a repeated passage)
or at none gets no span, and says how many places it was found at. Nothing is guessed.

**Mapping** an old chunk onto the chunks of a new chunking of the same document: every new
chunk sharing characters with it, with the share of characters shared both ways; those
sharing less than ``min_overlap`` of either chunk are left out. The old chunk is then
``same_text`` (a new chunk has exactly its span), ``merged`` (a larger new chunk holds all
of it), ``split`` (every new chunk it maps onto lies inside it), ``partial`` (the rest:
new chunks that hold part of it and text from outside it) or ``lost`` (no new chunk shares
enough of it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pooling.i18n import LocalizedError

# Mapping classes, from the most faithful to the least.
MAPPED = ("same_text", "merged", "split", "partial")
LOST = "lost"
DEFAULT_MIN_OVERLAP = 0.2


@dataclass(frozen=True)
class Located:
    """Where a chunk's text was found: a span when at exactly one place, else
    ``start``/``end`` None and ``places`` the number of places (0: not found)."""

    start: int | None
    end: int | None
    places: int


def content_span(text: str, start: int = 0) -> tuple[int, int]:
    """The span of ``text`` without its surrounding whitespace, for text that begins at
    ``start`` of its document; ``(start, start)`` for blank text."""
    stripped = text.strip()
    if not stripped:
        return start, start
    lead = len(text) - len(text.lstrip())
    return start + lead, start + lead + len(stripped)


def _exact(document: str, text: str) -> list[int]:
    found, at = [], document.find(text)
    while at != -1:
        found.append(at)
        at = document.find(text, at + 1)  # overlapping places count too
    return found


def locate(document: str, text: str) -> Located:
    """Where ``text`` (a chunk's) lies in ``document``: see ``Located``. A blank text
    is found nowhere."""
    stripped = text.strip()
    if not stripped:
        return Located(None, None, 0)
    places = [(at, at + len(stripped)) for at in _exact(document, stripped)]
    if not places:
        # Any run of whitespace in the chunk may stand for any other in the document.
        pattern = r"\s+".join(re.escape(word) for word in stripped.split())
        places = [
            (m.start(1), m.end(1)) for m in re.finditer(f"(?=({pattern}))", document, re.DOTALL)
        ]
    if len(places) == 1:
        return Located(*places[0], 1)
    return Located(None, None, len(places))


@dataclass(frozen=True)
class Overlap:
    """A new chunk an old chunk maps onto: the characters they share, as a share of the
    old chunk's length and of the new chunk's."""

    chunk_id: str
    shared: int
    share_old: float
    share_new: float


def overlap(old: tuple[int, int], new: tuple[int, int], chunk_id: str) -> Overlap | None:
    """How the spans ``old`` and ``new`` overlap, or None when they share nothing. Equal
    spans share everything, even empty ones."""
    if old == new:
        return Overlap(chunk_id, old[1] - old[0], 1.0, 1.0)
    shared = min(old[1], new[1]) - max(old[0], new[0])
    if shared <= 0:
        return None
    return Overlap(chunk_id, shared, shared / (old[1] - old[0]), shared / (new[1] - new[0]))


def check_min_overlap(value: float) -> float:
    """``value`` if it is a share in (0, 1], else ``LocalizedError``."""
    if not 0 < value <= 1:
        raise LocalizedError("min_overlap_range", value=value)
    return value


def map_span(
    old: tuple[int, int],
    new: Iterable[tuple[str, int, int]],
    min_overlap: float = DEFAULT_MIN_OVERLAP,
) -> tuple[str, list[Overlap]]:
    """The mapping class of the old chunk at span ``old`` and the new chunks (``(chunk id,
    start, end)`` of the same document) it maps onto: those sharing at least
    ``min_overlap`` of either chunk's characters, in document order."""
    check_min_overlap(min_overlap)
    found = []
    for chunk_id, start, end in sorted(new, key=lambda c: (c[1], c[2], c[0])):
        shared = overlap(old, (start, end), chunk_id)
        if shared is not None and max(shared.share_old, shared.share_new) >= min_overlap:
            found.append(shared)
    return classify(found), found


def classify(overlaps: list[Overlap]) -> str:
    """The mapping class of an old chunk from the new chunks it maps onto (``MAPPED`` or
    ``LOST``)."""
    if not overlaps:
        return LOST
    if any(o.share_old == 1 and o.share_new == 1 for o in overlaps):
        return "same_text"
    if any(o.share_old == 1 for o in overlaps):
        return "merged"
    if all(o.share_new == 1 for o in overlaps):
        return "split"
    return "partial"
