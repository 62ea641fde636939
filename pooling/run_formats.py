"""Run files as teams write them: a TREC run, JSON lines or a CSV (or TSV) with a header,
told from the content rather than the extension (a ``.txt`` may hold any of them).

- TREC: ``qid Q0 docid rank score tag`` per line, whitespace-separated.
- JSONL: one object a line with ``query_id``, ``chunk_id`` or ``doc_id``, ``score``, and
  optionally ``rank`` and ``tag``. ``chunk_id`` and ``doc_id`` are two names for one field
  (TREC's ``docid``), the id of what the run ranks: its values, not its name, say whether
  they are chunk or document ids, and the reader decides which it needs (an imported run,
  chunks; ``qrels evaluate --level doc``, either).
- CSV: a header naming the same columns (comma- or tab-separated); other columns are
  passed over (a team's export often carries the passage text).

Every form gives the same ``RunLine`` records with the same checks: a (query, id) pair
once, ranks whole numbers from 1 and once per query, scores finite numbers; each error names
the file, line and field as the file spells it. Where a JSONL or CSV run gives no rank, the
rank is the position in trec_eval's order (score descending, ties by id descending), which
is the order everything here reads a run in anyway.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass

from pooling.question_files import csv_cells, csv_rows
from pooling.readers import (
    MAX_RANK,
    FirstSeen,
    InputError,
    RunLine,
    Where,
    all_lines,
    json_type_name,
    optional_str,
    parse_int,
    parse_score,
    read_jsonl,
    read_lines,
    require_id,
)

FORMATS = ("trec", "jsonl", "csv")
QUERY_FIELD = "query_id"
ID_FIELDS = ("chunk_id", "doc_id")  # a run names chunks, or documents for a doc-level run
TREC_FIELDS = ("query_id", "Q0", "doc_id", "rank", "score", "tag")


@dataclass(frozen=True)
class RunLines:
    """A run file's lines and how it spells its fields, for errors found after reading (an
    id the corpus does not know is reported under the file's own field name)."""

    format: str
    lines: list[RunLine]
    id_field: str = "doc_id"


def run_format(path: os.PathLike | str) -> str:
    """``trec``, ``jsonl`` or ``csv``, told from the first non-blank line; raises
    ``InputError`` when it is none of them."""
    for number, text in read_lines(path):
        stripped = text.strip()
        if stripped.startswith("{"):
            return "jsonl"
        if _header_cells(stripped) is not None:
            return "csv"
        if len(stripped.split()) > 1:  # columns: TREC, whose reader names a missing one
            return "trec"
        raise InputError(str(path), "unknown_run_format", line=number)
    raise InputError(str(path), "file_empty")


def read_run_lines(path: os.PathLike | str) -> RunLines:
    """The run in ``path`` in whichever form it is (``run_format``), checked whole."""
    kind = run_format(path)
    if kind == "trec":
        found = RunLines("trec", _trec_lines(path))
    elif kind == "jsonl":
        found = _jsonl_lines(path)
    else:
        found = _csv_lines(path)
    if not found.lines:
        raise InputError(str(path), "file_empty")
    return found


def read_run(path: os.PathLike | str) -> list[RunLine]:
    """The lines of a run file in any form (``read_run_lines``)."""
    return read_run_lines(path).lines


# -- TREC -------------------------------------------------------------------------------


def _trec_lines(path: os.PathLike | str) -> list[RunLine]:
    lines, checks = [], _Checks()
    for number, text in read_lines(path):
        where = Where(str(path), number)
        columns = text.split()
        if len(columns) != len(TREC_FIELDS):
            raise where.error("column_count", expected=len(TREC_FIELDS), found=len(columns))
        query_id, _, chunk_id, rank, score, tag = columns
        position = parse_int(rank, "rank", where)
        line = RunLine(
            number, query_id, chunk_id, position, parse_score(score, "score", where), tag
        )
        lines.append(checks.checked(line, where, "doc_id"))
    return lines


# -- JSONL ------------------------------------------------------------------------------


def _jsonl_lines(path: os.PathLike | str) -> RunLines:
    found: list[tuple[Where, str, str, int | None, float, str]] = []
    id_field = None
    for number, record in read_jsonl(path):
        where = Where(str(path), number)
        named = [name for name in ID_FIELDS if record.get(name) is not None]
        if len(named) != 1:
            key = "run_both_ids" if named else "run_no_id"
            raise where.error(key, ID_FIELDS[0], fields=" / ".join(ID_FIELDS))
        if id_field is None:
            id_field = named[0]
        elif named[0] != id_field:
            raise where.error("run_id_field_changed", named[0], first=id_field)
        rank = record.get("rank")
        found.append(
            (
                where,
                require_id(record, QUERY_FIELD, where),
                require_id(record, id_field, where),
                None if rank is None else _json_int(rank, where),
                _json_score(record.get("score"), where),
                optional_str(record, "tag", where),
            )
        )
    return RunLines("jsonl", _ranked(found, id_field or ID_FIELDS[0]), id_field or ID_FIELDS[0])


def _json_int(value: object, where: Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise where.error(
            "wrong_type", "rank", expected="@type_integer", found=json_type_name(value)
        )
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return parse_int(str(value), "rank", where)


def _json_score(value: object, where: Where) -> float:
    if value is None:
        raise where.error("missing_field", "score")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise where.error(
            "wrong_type", "score", expected="@type_number", found=json_type_name(value)
        )
    if isinstance(value, str):
        return parse_score(value, "score", where)
    if not math.isfinite(value):
        raise where.error("not_number", "score", value=value)
    return float(value)


# -- CSV --------------------------------------------------------------------------------


def _header_cells(text: str) -> list[str] | None:
    """The cells of a run CSV's header (comma- or tab-separated), or None when ``text`` is
    not one: it must name ``query_id`` and ``chunk_id`` or ``doc_id``."""
    for delimiter in ("\t", ","):
        cells = [cell.strip().strip('"') for cell in text.split(delimiter)]
        if QUERY_FIELD in cells and any(name in cells for name in ID_FIELDS):
            return cells
    return None


def _csv_lines(path: os.PathLike | str) -> RunLines:
    name = str(path)
    rows = _csv_rows(name, "\n".join(line for _, line in all_lines(path)))
    header_line, header = next((line, cells) for line, cells in rows if any(cells))
    columns = [cell.strip() for cell in header]
    named = [field for field in ID_FIELDS if field in columns]
    if len(named) != 1:
        raise InputError(name, "run_both_ids", line=header_line, fields=" / ".join(ID_FIELDS))
    id_field = named[0]
    if "score" not in columns:
        raise InputError(
            name, "run_csv_no_column", line=header_line, column="score", found=", ".join(columns)
        )
    found = []
    for where, cells in csv_cells(name, rows, columns):
        for column in (QUERY_FIELD, id_field, "score"):
            if not cells.get(column):
                raise where.error("empty_value", column)
        rank = cells.get("rank") or None
        found.append(
            (
                where,
                require_id(cells, QUERY_FIELD, where),
                require_id(cells, id_field, where),
                None if rank is None else parse_int(rank, "rank", where),
                parse_score(cells["score"], "score", where),
                cells.get("tag", ""),
            )
        )
    return RunLines("csv", _ranked(found, id_field), id_field)


def _csv_rows(name: str, text: str) -> Iterator[tuple[int, list[str]]]:
    """Each row with the line it begins on; the delimiter is the header's."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = "\t" if "\t" in first and _header_cells(first) == first.split("\t") else ","
    return csv_rows(name, text, delimiter)


# -- checks shared by every form ---------------------------------------------------------


class _Checks:
    """A (query, id) pair once; a rank a whole number from 1, at most ``MAX_RANK``, once
    per query."""

    def __init__(self) -> None:
        self.pairs, self.ranks = FirstSeen(), FirstSeen()

    def checked(self, line: RunLine, where: Where, id_field: str) -> RunLine:
        pair = (line.query_id, line.chunk_id)
        self.pairs.check(
            pair, where, id_field, "duplicate_pair", query=line.query_id, chunk=line.chunk_id
        )
        if line.rank < 1:
            raise where.error("rank_not_positive", "rank", value=line.rank)
        if line.rank > MAX_RANK:
            raise where.error("rank_too_large", "rank", value=line.rank, limit=MAX_RANK)
        self.ranks.check((line.query_id, line.rank), where, "rank", "duplicate_rank", query=pair[0])
        return line


def _ranked(
    found: list[tuple[Where, str, str, int | None, float, str]], id_field: str
) -> list[RunLine]:
    """The lines, checked, with a rank where the file gave none: every line gives one or
    none does (a half-ranked file is refused at the later of its first line with a rank
    and its first without, naming the other)."""
    given = [rank is not None for _, _, _, rank, _, _ in found]
    if any(given) and not all(given):
        with_rank, without = found[given.index(True)][0], found[given.index(False)][0]
        if with_rank.line < without.line:
            raise without.error("run_rank_partial", "rank", other=with_rank.line)
        raise with_rank.error("run_rank_partial_before", "rank", other=without.line)
    derived: dict[tuple[str, str], int] = {}
    if found and not given[0]:
        by_query: dict[str, list[tuple[float, str]]] = {}
        for _, query_id, chunk_id, _, score, _ in found:
            by_query.setdefault(query_id, []).append((score, chunk_id))
        for query_id, pairs in by_query.items():
            for position, (_, chunk_id) in enumerate(sorted(pairs, reverse=True), start=1):
                derived.setdefault((query_id, chunk_id), position)
    lines, checks = [], _Checks()
    for where, query_id, chunk_id, rank, score, tag in found:
        position = rank if rank is not None else derived[(query_id, chunk_id)]
        line = RunLine(where.line, query_id, chunk_id, position, score, tag)
        lines.append(checks.checked(line, where, id_field))
    return lines
