"""PDF and Word files as documents: the text of each PDF page, the paragraphs and headings
of a ``.docx``, and where each page and section begins in the text, so that a chunk can
be cited by its page and heading (``pooling.document_places``).

PDF pages are read with pypdf, Word files with python-docx: both pure Python over files,
nothing run, nothing fetched. A PDF page without a text layer (a scan) has no text to
judge; it is left out and named, since there is no OCR here. An encrypted PDF (one that
will not open without a password) or a file that cannot be read whole is refused with
its name, before anything is written.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pooling.readers import CONTROL, SURROGATE, InputError

TITLE_LIMIT = 300
PAGE_BREAK = "\n\n"  # pages and paragraphs are paragraphs to the chunker
EOF_WINDOW = 2048  # bytes at the end of a PDF that hold its %%EOF marker
HEADING_STYLES = ("Title", "Heading")


@dataclass
class ExtractedDocument:
    """The text of a PDF or Word file and the places in it: ``pages`` (character offset
    where each page's text begins, page number from 1), ``sections`` (offset where each
    heading begins, the heading), and the pages left out for having no text."""

    title: str
    text: str
    pages: list[tuple[int, int]] = field(default_factory=list)
    sections: list[tuple[int, str]] = field(default_factory=list)
    pages_without_text: list[int] = field(default_factory=list)

    def metadata(self) -> dict:
        """The places as a document's metadata keeps them (JSON: lists, not tuples)."""
        meta: dict = {}
        if self.pages:
            meta["pages"] = [list(page) for page in self.pages]
        if self.sections:
            meta["sections"] = [list(section) for section in self.sections]
        if self.pages_without_text:
            meta["pages_without_text"] = list(self.pages_without_text)
        return meta


def clean(text: str) -> str:
    """Extracted text without the control characters and lone surrogates a PDF's fonts
    can produce (each made a space): the file's text is not its author's to fix."""
    return SURROGATE.sub(" ", CONTROL.sub(" ", text))


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:TITLE_LIMIT]


@contextmanager
def _quiet_pypdf():
    """pypdf logs what it repairs; a broken file is reported as an ``InputError`` instead."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def read_pdf(path: Path) -> ExtractedDocument:
    """The text of each page of the PDF at ``path``, pages joined as paragraphs; its title
    from the file's metadata, else its first line. Raises ``InputError`` for an encrypted
    file, a truncated one (no ``%%EOF`` at its end) or one pypdf cannot read."""
    from pypdf import PdfReader

    name = str(path)
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        handle.seek(max(0, handle.tell() - EOF_WINDOW))
        if b"%%EOF" not in handle.read():
            raise InputError(name, "pdf_truncated")
    parts: list[str] = []
    found = ExtractedDocument("", "")
    offset = 0
    with _quiet_pypdf():
        try:
            reader = PdfReader(name, strict=False)
            if reader.is_encrypted and not _opens_without_password(reader):
                raise InputError(name, "pdf_encrypted")
            texts = [clean(page.extract_text() or "").strip() for page in reader.pages]
            title = reader.metadata.get("/Title") if reader.metadata else None
        except InputError:
            raise
        except Exception as exc:  # pypdf raises many kinds for a damaged file
            raise InputError(name, "document_unreadable", detail=_detail(exc)) from None
    for number, text in enumerate(texts, start=1):
        if not text:
            found.pages_without_text.append(number)
            continue
        if parts:
            offset += len(PAGE_BREAK)
        found.pages.append((offset, number))
        parts.append(text)
        offset += len(text)
    found.text = PAGE_BREAK.join(parts)
    found.title = clean(str(title)).strip()[:TITLE_LIMIT] if title else _first_line(found.text)
    return found


def _opens_without_password(reader) -> bool:
    """True for a PDF encrypted with an empty user password (only its owner's rights are
    locked): it opens for anyone, as in every viewer."""
    try:
        return bool(reader.decrypt(""))
    except Exception:  # an algorithm pypdf cannot run without another package
        return False


def read_docx(path: Path) -> ExtractedDocument:
    """The paragraphs of the Word file at ``path`` in order, tables' cells as paragraphs,
    each heading (a ``Title`` or ``Heading N`` style) beginning a section; its title from
    the file's properties, else its first heading, else its first line. Raises
    ``InputError`` for a file python-docx cannot read."""
    import docx

    name = str(path)
    try:
        document = docx.Document(name)
        blocks = list(_blocks(document))
        title = document.core_properties.title or ""
    except Exception as exc:  # python-docx, zipfile and lxml each raise their own kinds
        raise InputError(name, "document_unreadable", detail=_detail(exc)) from None
    found = ExtractedDocument("", "")
    parts: list[str] = []
    offset = 0
    for text, heading in blocks:
        text = clean(text).strip()
        if not text:
            continue
        if parts:
            offset += len(PAGE_BREAK)
        if heading:
            found.sections.append((offset, text[:TITLE_LIMIT]))
        parts.append(text)
        offset += len(text)
    found.text = PAGE_BREAK.join(parts)
    first_heading = found.sections[0][1] if found.sections else ""
    found.title = clean(title).strip()[:TITLE_LIMIT] or first_heading or _first_line(found.text)
    return found


def _blocks(document):
    """(text, is a heading) for each paragraph, and each table cell's text, in order."""
    from docx.table import Table

    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                for cell in row.cells:
                    yield cell.text, False
            continue
        style = block.style.name if block.style is not None else ""
        yield block.text, style.startswith(HEADING_STYLES)


def _detail(exc: Exception) -> str:
    return clean(str(exc) or type(exc).__name__)[:200]
