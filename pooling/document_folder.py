"""A folder of documents as a corpus: every ``.md``, ``.txt``, ``.html``, ``.pdf`` and
``.docx`` file in it (and in its sub-folders) is one whole document, its path in the folder
its id.

A team's documents are rarely a BEIR ``corpus.jsonl``; they are a folder of Markdown, text,
HTML, PDF and Word files (``pooling.office_documents`` reads the last two, and keeps where
each page and heading begins: ``pooling.document_places``). Each file becomes a
``CorpusRecord`` like a whole-document line of a JSONL corpus, so the import, the chunker
and everything after treat both the same. The title is the file's first heading (Markdown
``#``, HTML ``<title>`` or ``<h1>``), else its first line. HTML is reduced to its text
(scripts and styles dropped, blocks on lines of their own); Markdown and text are kept as
written, since annotators read passages as plain text.

Files are read and checked whole with the same rules as a JSONL corpus (UTF-8, no control
characters, no empty text unless allowed, at most the settings' file limit), and an error
names the file and line. Only regular files whose real path lies inside the folder are
read: a link that leads out of it (to a private file, to ``/dev/zero``) or anything that is
not a regular file (a FIFO, a device, a socket, a broken link) is passed over and named,
like a file of another kind and a hidden file or folder (named once, not entered); linked
folders are not entered.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from pooling.document_places import markdown_sections, paragraph_sections
from pooling.office_documents import ExtractedDocument, read_docx, read_pdf
from pooling.readers import (
    ID_CONTROL,
    CorpusRecord,
    InputError,
    all_lines,
    control_code,
    format_character,
    format_code,
    open_regular,
    printable,
    read_corpus,
)

FORMATS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".html": "html"}
FORMATS.update({".htm": "html", ".pdf": "pdf", ".docx": "docx"})
SUFFIXES = ".md, .txt, .html, .pdf, .docx"  # as messages name them
FOLDER_CHUNK_SIZE = 800  # characters: a folder of pages is chunked unless told otherwise
TITLE_LIMIT = 300  # characters of a first line taken as a title


# Why a file is passed over -> the message that lists such files.
SKIPPED = {
    "hidden": "folder_skipped_hidden",  # a name starting with "." (a folder once, not entered)
    "kind": "folder_skipped",  # not one of FORMATS
    "doc": "folder_skipped_doc",  # Word 97-2003: a binary format no pure-Python reader reads
    "outside": "folder_skipped_outside",  # a link whose target lies outside the folder
    "special": "folder_skipped_special",  # a FIFO, a device, a socket, a broken link
}


@dataclass
class DocumentFolder:
    """The documents of a folder, in path order, and the files passed over, each with
    why (a key of ``SKIPPED``)."""

    records: list[CorpusRecord]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why)
    # PDF pages left out for having no text layer: (path, page numbers)
    pages_without_text: list[tuple[str, list[int]]] = field(default_factory=list)


def read_document_folder(folder: Path | str, allow_empty: bool = False) -> DocumentFolder:
    """Every ``.md``/``.markdown``, ``.txt`` and ``.html``/``.htm`` file under ``folder``
    as a whole-document ``CorpusRecord`` (hidden files and folders are passed over, listed
    in ``skipped``, a hidden folder once as ``name/`` and not its contents): ``id`` its
    path relative to the folder with ``/`` between parts (each run of whitespace made
    ``_``, since ids are written into whitespace-separated files), ``title``, ``text``,
    ``metadata`` ``{"path", "format"}`` and ``file`` the file's path for errors.
    Only regular files whose real path is inside the folder are read; the others are
    listed in ``skipped`` with why. Raises ``InputError`` for a file that is not UTF-8,
    holds a control character, has no text (unless ``allow_empty``; a PDF none of whose
    pages has a text layer is named as such), is larger than the
    settings' file limit, two files whose ids are equal, a control or format character in
    a file name, and a folder with no such file."""
    root = Path(folder)
    records: list[CorpusRecord] = []
    skipped: list[tuple[str, str]] = []
    without_text: list[tuple[str, list[int]]] = []
    ids: dict[str, str] = {}  # id -> the relative path it came from
    inside = root.resolve()
    files, dotted = _files(root)
    skipped.extend((relative, "hidden") for relative in dotted)
    for path in files:
        relative = path.relative_to(root).as_posix()
        suffix = path.suffix.lower()
        kind = FORMATS.get(suffix)
        source = _source(path, inside)
        if isinstance(source, str) or kind is None:
            why = source if isinstance(source, str) else "doc" if suffix == ".doc" else "kind"
            skipped.append((relative, why))
            continue
        if found := ID_CONTROL.search(relative):
            raise InputError(str(path), "file_name_control", code=control_code(found))
        if hidden := format_character(relative):
            raise InputError(str(path), "file_name_format", code=format_code(hidden))
        doc_id = re.sub(r"\s+", "_", relative)
        if doc_id in ids:
            raise InputError(str(path), "document_id_taken", value=doc_id, other=ids[doc_id])
        ids[doc_id] = relative
        try:
            document = _read(source, kind)
        except InputError as error:  # named as the folder shows it, not by its real path
            error.file = str(path)
            raise
        title, text = document.title, document.text
        if document.pages_without_text:
            without_text.append((relative, document.pages_without_text))
        if not text.strip() and not allow_empty:
            if document.pages_without_text and not document.pages:  # scans only, no OCR here
                raise InputError(
                    str(path), "pdf_without_text_layer", count=len(document.pages_without_text)
                )
            raise InputError(str(path), "empty_text")
        records.append(
            CorpusRecord(
                line=1,
                id=doc_id,
                title=title,
                text=text,
                parent_id=None,
                metadata={"path": relative, "format": kind},
                places=document.metadata(),
                file=str(path),
            )
        )
    if not records:
        raise InputError(str(root), "folder_no_documents", suffixes=SUFFIXES)
    return DocumentFolder(records, skipped, without_text)


def read_corpus_source(
    path: Path | str, allow_empty: bool, notes: list[tuple[str, dict]]
) -> list[CorpusRecord]:
    """The records of a BEIR corpus file (``read_corpus``), or of a folder of documents,
    adding to ``notes`` (message key, parameters) the files passed over."""
    if not Path(path).is_dir():
        return read_corpus(path, allow_empty)
    folder = read_document_folder(path, allow_empty)
    for why, key in SKIPPED.items():
        files = [printable(relative) for relative, reason in folder.skipped if reason == why]
        if files:
            shown = ", ".join(files[:5]) + (", …" if len(files) > 5 else "")
            notes.append((key, {"count": len(files), "suffixes": SUFFIXES, "files": shown}))
    for relative, pages in folder.pages_without_text:
        shown = ", ".join(str(page) for page in pages)
        notes.append(("pages_without_text", {"file": printable(relative), "pages": shown}))
    return folder.records


def _files(root: Path) -> tuple[list[Path], list[str]]:
    """The files under ``root`` in path order, and the hidden files and folders passed
    over (paths relative to ``root``, a folder's ending in ``/``; its contents neither
    entered nor listed: a ``.git`` holds thousands); linked folders are not followed (they
    may lead anywhere)."""
    if not root.is_dir():
        raise InputError(str(root), "file_not_found")
    found: list[Path] = []
    hidden: list[str] = []
    for directory, folders, files in os.walk(root):
        here = Path(directory).relative_to(root)
        hidden += [(here / name).as_posix() + "/" for name in folders if name.startswith(".")]
        hidden += [(here / name).as_posix() for name in files if name.startswith(".")]
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        found.extend(Path(directory, name) for name in files if not name.startswith("."))
    return sorted(found, key=lambda path: path.relative_to(root).as_posix()), sorted(hidden)


def _source(path: Path, inside: Path) -> Path | str:
    """The real path to read ``path`` from, when it is a regular file inside the folder
    ``inside`` (resolved), else why it is passed over: ``outside`` for a link whose target
    lies outside, ``special`` for a FIFO, a device, a socket or a broken or looping link."""
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(inside):
            return "outside"
        return real if stat.S_ISREG(real.stat().st_mode) else "special"
    except (OSError, RuntimeError):  # a broken link, a loop of links
        return "special"


def _read(path: Path, kind: str) -> ExtractedDocument:
    """The title, text and places (pages, sections) of one file."""
    if kind in ("pdf", "docx"):
        with open_regular(path):  # a regular file within the size limit, before it is parsed
            pass
        return read_pdf(path) if kind == "pdf" else read_docx(path)
    text = "\n".join(line for _, line in all_lines(path))
    if kind == "html":
        # Character references cannot spell a control character: html.unescape drops them.
        title, text, headings = html_parts(text)
        return ExtractedDocument(title, text, sections=paragraph_sections(text, headings))
    text = text.strip()
    if kind == "markdown":
        return ExtractedDocument(markdown_title(text), text, sections=markdown_sections(text))
    return ExtractedDocument(first_line(text), text)


def first_line(text: str) -> str:
    """The first non-blank line, cut to a title's length."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:TITLE_LIMIT]
    return ""


ATX = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
FRONT_TITLE = re.compile(r"^title\s*:\s*(.+?)\s*$")


def markdown_title(text: str) -> str:
    """A Markdown page's title: ``title:`` in its front matter, else its first heading
    (``# Title`` or a line underlined with ``===``/``---``), else its first line."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            if found := FRONT_TITLE.match(line):
                return found.group(1).strip("\"'")[:TITLE_LIMIT]
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced:
            continue
        if found := ATX.match(line):
            return found.group(1).strip()[:TITLE_LIMIT]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and SETEXT.match(following):
            return line.strip()[:TITLE_LIMIT]
    return first_line(text)


BLOCKS = {
    "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "td", "th",
    "tr", "ul",
}  # fmt: skip
HIDDEN = {"script", "style", "template", "noscript", "head", "title"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


class _HtmlText(HTMLParser):
    """The visible text of a page, each block on its own paragraph, and its title."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self.heading: list[str] = []
        self.headings: list[list[str]] = []  # every h1-h6, in order
        self._hidden = 0
        self._in = {"title": False, "h1": False}
        self._in_heading = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in HIDDEN:
            self._hidden += 1
        if tag in self._in:
            self._in[tag] = True
        if tag in HEADINGS:
            self._in_heading = True
            self.headings.append([])
        if tag in BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN and self._hidden:
            self._hidden -= 1
        if tag in self._in:
            self._in[tag] = False
        if tag in HEADINGS:
            self._in_heading = False
        if tag in BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in["title"]:
            self.title.append(data)
        if self._hidden:
            return
        if self._in["h1"]:
            self.heading.append(data)
        if self._in_heading:
            self.headings[-1].append(data)
        self.parts.append(data)


def html_title_and_text(html: str) -> tuple[str, str]:
    """An HTML page's title and visible text (``html_parts``)."""
    return html_parts(html)[:2]


def html_parts(html: str) -> tuple[str, str, list[str]]:
    """An HTML page's title (``<title>``, else its first ``<h1>``, else its first line of
    text), its visible text (scripts, styles and the head left out, runs of spaces made
    one, each block (paragraph, heading, list item, cell) a paragraph of its own) and its
    headings (``<h1>``-``<h6>``) in order."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    paragraphs = []
    for block in "".join(parser.parts).split("\n\n"):
        line = " ".join(block.split())
        if line:
            paragraphs.append(line)
    text = "\n\n".join(paragraphs)
    title = " ".join("".join(parser.title).split()) or " ".join("".join(parser.heading).split())
    headings = [" ".join("".join(parts).split()) for parts in parser.headings]
    return (title or first_line(text))[:TITLE_LIMIT], text, [h for h in headings if h]
