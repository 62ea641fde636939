"""A query set from the file a team has: a list of questions, one a line (``.txt``), a
spreadsheet's CSV with a ``text`` column (``.csv``), or BEIR ``queries.jsonl`` (anything
else), told by the file's extension.

Every form gives the same ``QueryRecord`` that ``read_queries`` gives, with the same checks
(UTF-8, no control characters, unique ids, no empty text) and errors that name the file,
line and field.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from pooling.readers import (
    SPLITS,
    FirstSeen,
    InputError,
    QueryRecord,
    Where,
    all_lines,
    optional_choice,
    query_text,
    read_lines,
    read_queries,
    require_id,
)

TEXT_COLUMN = "text"
ID_COLUMNS = ("id", "_id", "query_id")  # the first the header holds names the queries
KNOWN_COLUMNS = {TEXT_COLUMN, *ID_COLUMNS, "split", "slices", "answerable", "notes"}
TRUE, FALSE = {"true", "yes", "1", "是"}, {"false", "no", "0", "否"}


def read_query_file(path: Path | str, default_split: str = "test") -> list[QueryRecord]:
    """The queries of ``path`` by its extension: ``.txt`` (``read_question_lines``),
    ``.csv`` (``read_question_csv``), else BEIR JSONL (``read_queries``)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".txt":
        return read_question_lines(path, default_split)
    if suffix == ".csv":
        return read_question_csv(path, default_split)
    return read_queries(path, default_split)


def read_question_lines(path: Path | str, default_split: str = "test") -> list[QueryRecord]:
    """One question per non-blank line; its id is ``q`` and its line number (``q7`` is on
    line 7), its split ``default_split``. The same question twice is refused (it would be
    judged twice)."""
    records, texts = [], FirstSeen()
    for number, text in read_lines(path):
        where = Where(str(path), number)
        question = query_text({"text": text.strip()}, "text", where)
        texts.check(question, where, "text", "duplicate_question")
        records.append(_record(number, f"q{number}", question, default_split))
    if not records:
        raise InputError(str(path), "file_empty")
    return records


def read_question_csv(path: Path | str, default_split: str = "test") -> list[QueryRecord]:
    """A CSV file with a header holding a ``text`` column, and optionally ``id`` (or
    ``_id``, ``query_id``; else ``q`` and the line number), ``split`` (dev/test, else
    ``default_split``), ``slices`` (tags separated by ``;``), ``answerable`` (true/false,
    yes/no, 1/0; default true) and ``notes``; other columns are kept as metadata."""
    name = str(path)
    rows = csv_rows(name, "\n".join(line for _, line in all_lines(path)))
    header = next(((line, cells) for line, cells in rows if any(cells)), None)
    if header is None:
        raise InputError(name, "file_empty")
    header_line, columns = header[0], [column.strip() for column in header[1]]
    if TEXT_COLUMN not in columns:
        raise InputError(name, "csv_no_text_column", line=header_line, found=", ".join(columns))
    id_column = next((column for column in ID_COLUMNS if column in columns), None)
    records, ids, texts = [], FirstSeen(), FirstSeen()
    for where, cells in csv_cells(name, rows, columns):
        query_id = require_id(cells, id_column, where) if id_column else f"q{where.line}"
        ids.check(query_id, where, id_column or TEXT_COLUMN, value=query_id)
        text = query_text(cells, TEXT_COLUMN, where)
        texts.check(text, where, TEXT_COLUMN, "duplicate_question")
        split = cells.get("split") or None
        records.append(
            QueryRecord(
                line=where.line,
                query_id=query_id,
                text=text,
                slices=[tag.strip() for tag in cells.get("slices", "").split(";") if tag.strip()],
                split=optional_choice({"split": split}, "split", where, SPLITS, default_split),
                answerable=_yes_no(cells.get("answerable", ""), where),
                notes=cells.get("notes", ""),
                metadata={k: v for k, v in cells.items() if k not in KNOWN_COLUMNS and v},
            )
        )
    if not records:
        raise InputError(name, "file_empty")
    return records


def csv_rows(name: str, text: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """Each CSV row with the line it begins on (a quoted cell may span lines); raises
    ``InputError`` (file ``name``, line) for text that is not CSV."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=True)
    while True:
        begins = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(name, "bad_csv", line=reader.line_num, detail=str(exc)) from None
        yield begins, row


def csv_cells(
    name: str, rows: Iterator[tuple[int, list[str]]], columns: list[str]
) -> Iterator[tuple[Where, dict[str, str]]]:
    """Each row of ``rows`` after the header, as its place and its cells by ``columns``
    (stripped); blank rows are passed over, a row with more cells than ``columns`` is an
    ``InputError`` naming its line."""
    for line, row in rows:
        where = Where(name, line)
        if len(row) > len(columns):
            raise where.error("csv_extra_cells", expected=len(columns), found=len(row))
        cells = {column: value.strip() for column, value in zip(columns, row, strict=False)}
        if any(cells.values()):
            yield where, cells


def _yes_no(value: str, where: Where) -> bool:
    if not value or value.lower() in TRUE:
        return True
    if value.lower() in FALSE:
        return False
    raise where.error("not_yes_no", "answerable", value=value)


def _record(line: int, query_id: str, text: str, split: str) -> QueryRecord:
    return QueryRecord(
        line=line,
        query_id=query_id,
        text=text,
        slices=[],
        split=split,
        answerable=True,
        notes="",
        metadata={},
    )
