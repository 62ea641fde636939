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

import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pooling.grades import HIGHEST, LOWEST
from pooling.i18n import LocalizedError, t

SPLITS = ("dev", "test")  # a query is for tuning (dev) or for the frozen gate (test)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
ID_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # also tab and line breaks
SURROGATE = re.compile("[\ud800-\udfff]")  # only a JSON escape can make one
MAX_JSON_DEPTH = 32  # objects and arrays within a record: metadata needs a few
MAX_RANK = 2**31 - 1  # PostgreSQL's integer
# What may be typed into the app or given on the CLI, in characters: a name (an account, a
# pool, a corpus version, a query set, a system), a note or a rationale, a search of the
# corpus (each word of which costs a look-up in the index).
MAX_NAME = 200
MAX_TEXT = 20_000
MAX_SEARCH = 500


class InputError(LocalizedError):
    """Bad input, located: ``file``, ``line`` (1-based) and ``field`` where known; rendered
    in the current language each time it is shown (``message(lang)``)."""

    def __init__(
        self, file: str, key: str, line: int | None = None, field: str | None = None, **params
    ):
        self.file, self.line, self.field = file, line, field
        super().__init__(key, **params)

    def location(self, lang: str | None = None) -> str:
        if self.line is None:
            return t("at_file", lang, file=self.file)
        if self.field is None:
            return t("at_line", lang, file=self.file, line=self.line)
        return t("at_field", lang, file=self.file, line=self.line, field=self.field)

    def message(self, lang: str | None = None) -> str:
        what = super().message(lang)
        return t("located", lang, where=self.location(lang), what=what)


def _type_name(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "null" if value is None else "number"
    )


# -- lines ------------------------------------------------------------------------------


def all_lines(path: os.PathLike | str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line, blank ones too, without the line
    ending; a leading BOM is dropped. Raises ``InputError`` for a missing file, text that is
    not UTF-8 or a control character, with the line."""
    name = str(path)
    try:
        handle = open(path, "rb")  # noqa: SIM115  (closed below; binary keeps line numbers exact)
    except FileNotFoundError:
        raise InputError(name, "file_not_found") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
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


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


class Fingerprint:
    """``fingerprint`` taken one record at a time, for files too large to hold: add every
    record, then ``hexdigest``."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256(b"[[")
        self._empty = True

    def add(self, record) -> None:
        if not self._empty:
            self._sha.update(b",")
        self._empty = False
        # Where a record was read (its line, its file in a folder) is not its content.
        content = {k: v for k, v in asdict(record).items() if k not in ("line", "file", "places")}
        self._sha.update(_canonical(content))

    def hexdigest(self, *extra: object) -> str:
        sha = self._sha.copy()
        sha.update(b"]")
        for value in extra:
            sha.update(b"," + _canonical(value))
        sha.update(b"]")
        return sha.hexdigest()


def fingerprint(records: list, *extra: object) -> str:
    """sha256 of records (dataclasses, without their line numbers) and any extra values, so
    that the same content hashes the same whatever its BOM, line endings or JSON spacing:
    the canonical JSON of ``[[record, ...], extra, ...]``."""
    digest = Fingerprint()
    for record in records:
        digest.add(record)
    return digest.hexdigest(*extra)


def read_jsonl(path: os.PathLike | str) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each record of a JSON-lines file."""
    for number, text in read_lines(path):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(str(path), "bad_json", line=number, detail=exc.msg) from None
        except RecursionError:  # nested far deeper than MAX_JSON_DEPTH
            limit = MAX_JSON_DEPTH
            raise InputError(str(path), "json_too_deep", line=number, limit=limit) from None
        if not isinstance(record, dict):
            raise InputError(str(path), "not_object", line=number, found=_type_name(record))
        _refuse_controls(record, "", Where(str(path), number))
        yield number, record


def control_code(found: re.Match) -> str:
    """A control character found, as a reader sees it named: U+001B."""
    return f"U+{ord(found.group()):04X}"


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


def refuse_control(
    value: str, what: str, *, line_breaks: bool = True, limit: int = MAX_TEXT
) -> str:
    """``value`` as typed into the app or CLI (a note, a rationale, a search), or
    ``LocalizedError`` naming ``what`` (a message key) when it holds a control character,
    for the same reasons as in files, or is longer than ``limit`` characters;
    ``line_breaks=False`` refuses tab and line breaks too, for names."""
    if found := (CONTROL if line_breaks else ID_CONTROL).search(value):
        raise LocalizedError("typed_control_character", what=f"@{what}", code=control_code(found))
    if found := SURROGATE.search(value):
        raise LocalizedError("typed_surrogate", what=f"@{what}", code=control_code(found))
    if len(value) > limit:
        raise LocalizedError("typed_too_long", what=f"@{what}", length=len(value), limit=limit)
    return value


def typed_name(value: str, what: str) -> str:
    """``value`` when it may name something (an account, a pool, a corpus version, a query
    set, a system; ``what`` is the message key of which): no control character, tab or
    line break, not blank, at most ``MAX_NAME`` characters. Raises ``LocalizedError``."""
    if not refuse_control(value, what, line_breaks=False, limit=MAX_NAME).strip():
        raise LocalizedError("typed_name_empty", what=f"@{what}")
    return value


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
        raise where.error("wrong_type", name, expected="@type_string", found=_type_name(value))
    value = str(value).strip()
    if not value:
        raise where.error("empty_value", name)
    if found := ID_CONTROL.search(value):
        raise where.error("control_character", name, code=control_code(found))
    if any(c.isspace() for c in value):  # releases write ids into whitespace-separated files
        raise where.error("id_with_space", name, value=value)
    return value


def require_text(record: dict, name: str, where: Where) -> str:
    """A required, non-blank text."""
    if name not in record or record[name] is None:
        raise where.error("missing_field", name)
    value = record[name]
    if not isinstance(value, str):
        raise where.error("wrong_type", name, expected="@type_string", found=_type_name(value))
    if not value.strip():
        raise where.error("empty_text", name)
    return value


def optional_str(record: dict, name: str, where: Where, default: str = "") -> str:
    value = record.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise where.error("wrong_type", name, expected="@type_string", found=_type_name(value))
    return value


def optional_bool(record: dict, name: str, where: Where, default: bool) -> bool:
    value = record.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise where.error("wrong_type", name, expected="@type_bool", found=_type_name(value))
    return value


def optional_object(record: dict, name: str, where: Where) -> dict:
    value = record.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where.error("wrong_type", name, expected="@type_object", found=_type_name(value))
    return value


def optional_tags(record: dict, name: str, where: Where) -> list[str]:
    value = record.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise where.error("wrong_type", name, expected="@type_string_list", found=_type_name(value))
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
                text=require_text(record, "text", where),
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
