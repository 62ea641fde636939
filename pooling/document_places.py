"""Where a chunk lies in its document, as a reader cites it: its page (PDF) and the heading
of its section (Markdown, HTML, Word).

A document's metadata keeps where each page and section begins in its text
(``pages``: ``[[offset, page], ...]``, ``sections``: ``[[offset, heading], ...]``,
written by ``pooling.document_folder``); a chunk's span (``pooling.spans``) then says
which page it starts on and ends on, and under which heading it starts. Nothing is stored
per chunk, so a corpus imported before this reads as it did.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pooling.i18n import t

ATX = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$", re.M)
FENCE = re.compile(r"^\s*(```|~~~)", re.M)
HEADING_LIMIT = 300


@dataclass(frozen=True)
class Place:
    """A chunk's first and last page (None where the document has no pages) and the
    heading it is under ("" where none)."""

    first_page: int | None = None
    last_page: int | None = None
    section: str = ""

    def pages(self) -> str:
        """``3`` or ``3-4``; "" without pages."""
        if self.first_page is None:
            return ""
        if self.last_page is None or self.last_page == self.first_page:
            return str(self.first_page)
        return f"{self.first_page}-{self.last_page}"

    def label(self, lang: str | None = None, title: str = "") -> str:
        """``page 3 · Brakes``, in ``lang``; "" when nothing is known. A section headed with
        the document's ``title`` (a Markdown file's first ``# Title``) is not named again."""
        parts = []
        if self.first_page is not None:
            key = "place_page" if self.last_page in (None, self.first_page) else "place_pages"
            parts.append(t(key, lang, pages=self.pages()))
        if self.section and self.section.strip() != title.strip():
            parts.append(self.section)
        return " · ".join(parts)


def place_of(meta: Mapping | None, start: int | None, end: int | None) -> Place:
    """The place of the span ``start``-``end`` in a document whose metadata is ``meta``;
    an empty ``Place`` when the span is unknown or the document kept no places."""
    if not meta or start is None:
        return Place()
    first = last = None
    pages = meta.get("pages") or []
    if pages:
        offsets = [offset for offset, _ in pages]
        first = pages[max(0, bisect.bisect_right(offsets, start) - 1)][1]
        stop = max(start, (end if end is not None else start) - 1)
        last = pages[max(0, bisect.bisect_right(offsets, stop) - 1)][1]
    section = ""
    sections = meta.get("sections") or []
    if sections:
        index = bisect.bisect_right([offset for offset, _ in sections], start) - 1
        section = sections[index][1] if index >= 0 else ""
    return Place(first, last, section)


def markdown_sections(text: str) -> list[tuple[int, str]]:
    """Where each ``#`` heading of a Markdown text begins, and the heading (fenced code
    passed over)."""
    fences = [found.start() for found in FENCE.finditer(text)]
    sections = []
    for found in ATX.finditer(text):
        if sum(1 for fence in fences if fence < found.start()) % 2:
            continue  # inside a fence: a shell comment, not a heading
        heading = found.group(1).strip()[:HEADING_LIMIT]
        if heading:
            sections.append((found.start(), heading))
    return sections


def paragraph_sections(text: str, headings: list[str]) -> list[tuple[int, str]]:
    """Where each of ``headings`` (in order) stands as a whole paragraph of ``text``
    (paragraphs separated by a blank line), for HTML reduced to text."""
    sections, offset, wanted = [], 0, 0
    for paragraph in text.split("\n\n"):
        if wanted < len(headings) and paragraph == headings[wanted]:
            sections.append((offset, paragraph[:HEADING_LIMIT]))
            wanted += 1
        offset += len(paragraph) + 2
    return sections
