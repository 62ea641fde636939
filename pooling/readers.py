"""Read the files users bring (BEIR JSONL, TREC runs and qrels, BEIR qrels TSV) into typed
records, or raise an ``InputError`` that names the file, line and field.

Nothing here touches the database: a file is read and checked whole before anything is
written, so a bad line can never leave half an import behind. BOM, CRLF and very long
lines are handled; blank lines are skipped.

Control characters are refused wherever they are, with the line and field, so that both
backends hold the same thing: PostgreSQL cannot store NUL in text (SQLite would keep it),
and the others (escape sequences, backspace, C1 codes) would act unseen on terminals and
in files. Tab, line feed and carriage return are text, except in ids.

JSON that one backend would store and the other refuse, or that Python cannot hold, is
refused the same way: numbers that are not finite (``NaN``, ``Infinity``, ``1e400``;
PostgreSQL's JSON has none), a lone surrogate escape (``"\\ud800"``, not UTF-8: no database
can store it) and nesting deeper than ``MAX_JSON_DEPTH``; so are ranks that do not fit the
database's integers (``MAX_RANK``).
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from pooling.characters import (
    CONTROL,
    ID_CONTROL,
    SURROGATE,
    control_code,
    format_character,
    format_code,
    printable,
)

# Where the checks of typed names and texts were defined before ``pooling.characters``,
# still importable from here.
from pooling.characters import MAX_NAME as MAX_NAME
from pooling.characters import MAX_SEARCH as MAX_SEARCH
from pooling.characters import MAX_TEXT as MAX_TEXT
from pooling.characters import refuse_control as refuse_control
from pooling.characters import typed_name as typed_name
from pooling.fingerprints import Fingerprint as Fingerprint
from pooling.fingerprints import fingerprint as fingerprint
from pooling.grades import HIGHEST, LOWEST
from pooling.i18n import LocalizedError, t
from pooling.settings import VARIABLES, current

SPLITS = ("dev", "test")  # a query is for tuning (dev) or for the frozen gate (test)
MAX_JSON_DEPTH = 32  # objects and arrays within a record: metadata needs a few
MAX_RANK = 2**31 - 1  # PostgreSQL's integer
MAX_QUERY_TEXT = 4_000  # a query's text in an imported query set: a question, not a document
MEGABYTE = 1024 * 1024


class InputError(LocalizedError):
    """Bad input, located: ``file``, ``line`` (1-based) and ``field`` where known; rendered
    in the current language each time it is shown (``message(lang)``)."""

    def __init__(
        self, file: str, key: str, line: int | None = None, field: str | None = None, **params
    ):
        self.file, self.line, self.field = file, line, field
        super().__init__(key, **params)

    def location(self, lang: str | None = None) -> str:
        file = printable(self.file)
        if self.line is None:
            return t("at_file", lang, file=file)
        if self.field is None:
            return t("at_line", lang, file=file, line=self.line)
        return t("at_field", lang, file=file, line=self.line, field=self.field)

    def message(self, lang: str | None = None) -> str:
        what = super().message(lang)
        return t("located", lang, where=self.location(lang), what=what)


def json_type_name(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "null" if value is None else "number"
    )


# -- lines ------------------------------------------------------------------------------


def open_regular(path: os.PathLike | str, limit_mb: int | None = None) -> BinaryIO:
    """``path`` opened for reading in binary, when it is a regular file of at most
    ``limit_mb`` megabytes (default: the settings' ``file_limit_mb``). Raises
    ``InputError`` for a missing file, one that is not a regular file (a folder, a FIFO, a
    device such as ``/dev/zero``: none has an end to read to) and one that is too large,
    before reading any of it. Opened without blocking, so a FIFO does not wait for a writer."""
    name = str(path)
    limit = current().file_limit_mb if limit_mb is None else limit_mb
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(name, "file_not_found") from None
    except IsADirectoryError:
        raise InputError(name, "not_regular_file") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise InputError(name, "not_regular_file")
        if status.st_size > limit * MEGABYTE:
            size = f"{status.st_size / MEGABYTE:.1f}"
            raise InputError(name, "file_too_large", size=size, limit=limit, variable=_LIMIT)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


_LIMIT = VARIABLES["file_limit_mb"]  # named in the message, to raise it


def all_lines(path: os.PathLike | str, limit_mb: int | None = None) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line, blank ones too, without the line
    ending; a leading BOM is dropped. Raises ``InputError`` for a missing file, one that is
    not a regular file or larger than ``limit_mb`` (``open_regular``; also when it grows
    past it while read), text that is not UTF-8 or a control character, with the line."""
    name = str(path)
    limit = current().file_limit_mb if limit_mb is None else limit_mb
    read = 0
    with open_regular(path, limit) as handle:
        for number, raw in enumerate(handle, start=1):
            read += len(raw)
            if read > limit * MEGABYTE:
                size = f"{read / MEGABYTE:.1f}"
                raise InputError(name, "file_too_large", size=size, limit=limit, variable=_LIMIT)
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(name, "not_utf8", line=number, detail=exc.reason) from None
            text = text.rstrip("\r\n")
            if found := CONTROL.search(text):
                raise InputError(name, "control_character", line=number, code=control_code(found))
            yield number, text


def read_lines(path: os.PathLike | str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each non-blank line, without the line ending."""
    for number, text in all_lines(path):
        if text.strip():
            yield number, text


def read_jsonl(path: os.PathLike | str) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each record of a JSON-lines file."""
    for number, text in read_lines(path):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(str(path), "bad_json", line=number, detail=exc.msg) from None
        except ValueError as exc:  # an integer longer than Python reads (4,300 digits)
            raise InputError(str(path), "bad_json", line=number, detail=str(exc)) from None
        except RecursionError:  # nested far deeper than MAX_JSON_DEPTH
            limit = MAX_JSON_DEPTH
            raise InputError(str(path), "json_too_deep", line=number, limit=limit) from None
        if not isinstance(record, dict):
            raise InputError(str(path), "not_object", line=number, found=json_type_name(record))
        _refuse_controls(record, "", Where(str(path), number))
        yield number, record


def _refuse_controls(value: Any, field: str, where: Where, depth: int = 0) -> None:
    """Raise ``InputError`` naming the field (``metadata.source``, ``slices[1]``) of the
    first string, or object key, in ``value`` that holds a control character or a lone
    surrogate, of the first number that is not finite, or where objects and arrays nest
    deeper than ``MAX_JSON_DEPTH``."""
    if isinstance(value, str):
        if found := CONTROL.search(value):
            raise where.error("control_character", field or None, code=control_code(found))
        if found := SURROGATE.search(value):
            raise where.error("lone_surrogate", field or None, code=control_code(found))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise where.error("json_not_finite", field or None, value=value)
    elif isinstance(value, dict | list):
        if depth >= MAX_JSON_DEPTH:
            raise where.error("json_too_deep", field or None, limit=MAX_JSON_DEPTH)
        if isinstance(value, dict):
            for key, item in value.items():
                inner = f"{field}.{key}" if field else key
                _refuse_controls(key, field, where)
                _refuse_controls(item, inner, where, depth + 1)
        else:
            for index, item in enumerate(value):
                _refuse_controls(item, f"{field}[{index}]", where, depth + 1)


# -- fields -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Where:
    """A record's place, for errors about its fields."""

    file: str
    line: int

    def error(self, key: str, field: str | None = None, **params) -> InputError:
        return InputError(self.file, key, line=self.line, field=field, **params)


def require_id(record: dict, name: str, where: Where) -> str:
    """A required identifier: a non-empty string (integers are accepted as their text)."""
    if name not in record or record[name] is None:
        raise where.error("missing_field", name)
    value = record[name]
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise where.error("wrong_type", name, expected="@type_string", found=json_type_name(value))
    value = str(value).strip()
    if not value:
        raise where.error("empty_value", name)
    if found := ID_CONTROL.search(value):
        raise where.error("control_character", name, code=control_code(found))
    if hidden := format_character(value):
        raise where.error("format_character", name, code=format_code(hidden))
    if any(c.isspace() for c in value):  # releases write ids into whitespace-separated files
        raise where.error("id_with_space", name, value=value)
    return value


def require_text(record: dict, name: str, where: Where) -> str:
    """A required, non-blank text."""
    if name not in record or record[name] is None:
        raise where.error("missing_field", name)
    value = record[name]
    if not isinstance(value, str):
        raise where.error("wrong_type", name, expected="@type_string", found=json_type_name(value))
    if not value.strip():
        raise where.error("empty_text", name)
    return value


def query_text(record: dict, name: str, where: Where) -> str:
    """A query's text: required, non-blank, at most ``MAX_QUERY_TEXT`` characters."""
    value = require_text(record, name, where)
    if len(value) > MAX_QUERY_TEXT:
        raise where.error("query_too_long", name, length=len(value), limit=MAX_QUERY_TEXT)
    return value


def optional_str(record: dict, name: str, where: Where, default: str = "") -> str:
    value = record.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise where.error("wrong_type", name, expected="@type_string", found=json_type_name(value))
    return value


def optional_bool(record: dict, name: str, where: Where, default: bool) -> bool:
    value = record.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise where.error("wrong_type", name, expected="@type_bool", found=json_type_name(value))
    return value


def optional_object(record: dict, name: str, where: Where) -> dict:
    value = record.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where.error("wrong_type", name, expected="@type_object", found=json_type_name(value))
    return value


def optional_tags(record: dict, name: str, where: Where) -> list[str]:
    value = record.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise where.error(
            "wrong_type", name, expected="@type_string_list", found=json_type_name(value)
        )
    return list(dict.fromkeys(v.strip() for v in value))


def optional_choice(record: dict, name: str, where: Where, choices: tuple, default: str) -> str:
    value = record.get(name)
    if value is None:
        return default
    if value not in choices:
        raise where.error("bad_choice", name, value=value, choices=", ".join(choices))
    return value


def parse_int(text: str, name: str, where: Where) -> int:
    try:
        return int(text)
    except ValueError:
        raise where.error("not_integer", name, value=text) from None


def parse_grade(value: Any, name: str, where: Where) -> int:
    """A grade on the 0–3 scale; ``1.0`` is accepted as 1, ``1.5`` or ``-1`` are not."""
    if isinstance(value, bool):
        raise where.error("grade_range", name, value=value)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise where.error("not_integer", name, value=value) from None
    if not isinstance(value, int | float) or not math.isfinite(value) or value != int(value):
        raise where.error("not_integer", name, value=value)
    if not LOWEST <= value <= HIGHEST:
        raise where.error("grade_range", name, value=int(value))
    return int(value)


def parse_score(text: str, name: str, where: Where) -> float:
    try:
        value = float(text)
    except ValueError:
        raise where.error("not_number", name, value=text) from None
    if not math.isfinite(value):
        raise where.error("not_number", name, value=text)
    return value


class FirstSeen:
    """Remembers on which line each key was first seen, to report duplicates precisely."""

    def __init__(self) -> None:
        self._lines: dict[Any, int] = {}

    def check(self, key: Any, where: Where, field: str, error: str = "duplicate_id", **params):
        first = self._lines.setdefault(key, where.line)
        if first != where.line:
            raise where.error(error, field, first=first, **params)


# -- records ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusRecord:
    line: int
    id: str
    title: str
    text: str
    parent_id: str | None
    metadata: dict = field(default_factory=dict)
    file: str | None = None  # the file it was read from, when not the one being imported
    # Where its pages and sections begin (``pooling.document_places``), kept in the
    # document's metadata; derived from the text's file, so not part of its fingerprint: a
    # folder imported before places were kept imports again as the same version.
    places: dict = field(default_factory=dict)


@dataclass(frozen=True)
class QueryRecord:
    line: int
    query_id: str
    text: str
    slices: list[str]
    split: str
    answerable: bool
    notes: str
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunLine:
    line: int
    query_id: str
    chunk_id: str
    rank: int
    score: float
    tag: str


def read_corpus(path: Path | str, allow_empty: bool = False) -> list[CorpusRecord]:
    """BEIR ``corpus.jsonl``: ``_id``, ``text``, optional ``title``, ``doc_id``/``parent_id``
    (the line is then a chunk of that document) and ``metadata``. An empty ``text`` is an
    error unless ``allow_empty`` (some real collections hold empty documents that are judged)."""
    records, seen = [], FirstSeen()
    for number, record in read_jsonl(path):
        where = Where(str(path), number)
        record_id = require_id(record, "_id", where)
        seen.check(record_id, where, "_id", value=record_id)
        parent = next(
            (
                require_id(record, f, where)
                for f in ("parent_id", "doc_id")
                if record.get(f) is not None
            ),
            None,
        )
        records.append(
            CorpusRecord(
                line=number,
                id=record_id,
                title=optional_str(record, "title", where),
                text=(optional_str if allow_empty else require_text)(record, "text", where),
                parent_id=parent,
                metadata=optional_object(record, "metadata", where),
            )
        )
    if not records:
        raise InputError(str(path), "file_empty")
    return records


def read_documents(path: Path | str, allow_empty: bool = False) -> dict[str, str]:
    """Whole documents from a BEIR ``corpus.jsonl`` (the texts a pre-chunked corpus was cut
    from): doc id -> text. A line naming a parent (a chunk, not a document) is an error."""
    records = read_corpus(path, allow_empty)
    for number, record in read_jsonl(path):
        for name in ("parent_id", "doc_id"):
            if record.get(name) is not None:
                raise Where(str(path), number).error("document_has_parent", name)
    return {record.id: record.text for record in records}


def read_queries(path: Path | str, default_split: str = "test") -> list[QueryRecord]:
    """BEIR ``queries.jsonl``: ``_id``, ``text``, optional ``slices`` (list of tags),
    ``split`` (dev/test, else ``default_split``), ``answerable`` (default true), ``notes``."""
    records, seen = [], FirstSeen()
    for number, record in read_jsonl(path):
        where = Where(str(path), number)
        query_id = require_id(record, "_id", where)
        seen.check(query_id, where, "_id", value=query_id)
        records.append(
            QueryRecord(
                line=number,
                query_id=query_id,
                text=query_text(record, "text", where),
                slices=optional_tags(record, "slices", where),
                split=optional_choice(record, "split", where, SPLITS, default_split),
                answerable=optional_bool(record, "answerable", where, True),
                notes=optional_str(record, "notes", where),
                metadata=optional_object(record, "metadata", where),
            )
        )
    if not records:
        raise InputError(str(path), "file_empty")
    return records
