"""``Qrels``: graded judgments per query, as a plain object, and the judgment files.

Like ranx's ``Qrels``, it owns its data (query id -> id -> grade) and its formats, and it is
the one place they are read and written:

- ``trec``: TREC qrels, ``qid 0 id grade`` per line (trec_eval, ir_measures, ranx);
- ``beir``: BEIR qrels TSV, the header ``query-id corpus-id score`` then one tab-separated
  line per judgment.

Ids are chunk ids for a chunk-level release and document ids for a document-level one
(``Qrels.documents``). Reading checks every line and raises ``InputError`` naming the file,
line and field; the format is told from the content (a BEIR file starts with its header).

``read_judgments`` reads the files ``qrels import judgments`` takes: those two formats and
JSONL (``query_id``, ``chunk_id``, ``grade``, optional ``unsure`` and ``note``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from pooling.grades import GRADES, RELEVANT
from pooling.i18n import check_name
from pooling.readers import (
    FirstSeen,
    InputError,
    Where,
    optional_bool,
    optional_str,
    parse_grade,
    read_jsonl,
    read_lines,
    require_id,
)

__all__ = [
    "FORMATS",
    "JudgmentLine",
    "Qrels",
    "judgment_lines",
    "qrels_format",
    "read_judgments",
]


FORMATS = ("trec", "beir")
BEIR_HEADER = ("query-id", "corpus-id", "score")
COLUMNS = ["query_id", "doc_id", "grade"]


@dataclass(frozen=True)
class JudgmentLine:
    """One line of a judgments file: a grade, or ``unsure`` (JSONL only) with a note."""

    line: int
    query_id: str
    chunk_id: str
    grade: int | None
    unsure: bool = False
    note: str = ""


class Qrels(Mapping):
    """Grades per query: ``qrels[query_id]`` is ``{id: grade}`` on the 0–3 scale. A
    read-only mapping of query ids, like the dict that trec_eval's readers give."""

    def __init__(self, grades: Mapping[str, Mapping[str, int]] | None = None, name: str = "qrels"):
        self.name = name
        self.grades: dict[str, dict[str, int]] = {q: dict(d) for q, d in (grades or {}).items()}

    def __getitem__(self, query_id: str) -> dict[str, int]:
        return self.grades[query_id]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.grades))

    def __len__(self) -> int:
        return len(self.grades)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and self.to_dict() == {
            q: dict(d) for q, d in other.items()
        }

    def __repr__(self) -> str:
        return f"Qrels(name={self.name!r}, queries={len(self)}, judgments={self.size})"

    @property
    def size(self) -> int:
        """The number of judgments."""
        return sum(len(judged) for judged in self.grades.values())

    def judgments(self) -> Iterator[tuple[str, str, int]]:
        """``(query_id, id, grade)``, by query id then id."""
        for query_id in sorted(self.grades):
            for doc_id, grade in sorted(self.grades[query_id].items()):
                yield query_id, doc_id, grade

    def relevant(self, threshold: int = RELEVANT) -> dict[str, set[str]]:
        """Per query with any, the ids graded ``threshold`` or more."""
        found = {
            q: {d for d, g in judged.items() if g >= threshold} for q, judged in self.grades.items()
        }
        return {q: ids for q, ids in found.items() if ids}

    def per_grade(self) -> dict[str, int]:
        """How many judgments have each grade (keys ``"0"``..``"3"``)."""
        counts = dict.fromkeys((str(g) for g in GRADES), 0)
        # Counted without sorting: a release's qrels hold a million.
        for grade, many in Counter(
            chain.from_iterable(map(dict.values, self.grades.values()))
        ).items():
            counts[str(grade)] += many
        return counts

    def documents(self, parents: Mapping[str, str]) -> Qrels:
        """Document-level qrels: each document's grade is the highest of its chunks'
        (``parents``: chunk id -> document id)."""
        grades: dict[str, dict[str, int]] = {}
        # The highest grade does not depend on the order; each file sorts what it writes.
        for query_id in sorted(self.grades):
            judged: dict[str, int] = {}
            for chunk_id, grade in self.grades[query_id].items():
                document = parents[chunk_id]
                judged[document] = max(grade, judged.get(document, grade))
            if judged:
                grades[query_id] = judged
        return Qrels(grades, self.name)

    # -- conversions ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, dict[str, int]]:
        return {q: dict(judged) for q, judged in self.grades.items()}

    @classmethod
    def from_dict(cls, grades: Mapping[str, Mapping[str, int]], name: str = "qrels") -> Qrels:
        return cls(grades, name)

    def to_dataframe(self):
        """A ``pandas.DataFrame`` with columns ``query_id``, ``doc_id``, ``grade``."""
        import pandas as pd

        return pd.DataFrame(list(self.judgments()), columns=COLUMNS)

    @classmethod
    def from_dataframe(cls, frame, name: str = "qrels") -> Qrels:
        """From a frame with columns ``query_id``, ``doc_id`` and ``grade``."""
        grades: dict[str, dict[str, int]] = {}
        for query_id, doc_id, grade in frame[COLUMNS].itertuples(index=False):
            grades.setdefault(str(query_id), {})[str(doc_id)] = int(grade)
        return cls(grades, name)

    # -- files ---------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: Path | str, name: str | None = None) -> Qrels:
        """TREC qrels or BEIR qrels TSV, told from the content (an empty file is empty
        qrels: a release may hold no grades); raises ``InputError`` on a bad line, a grade
        off the scale or the same (query, id) twice."""
        name = name or Path(path).stem
        if not any(True for _ in read_lines(path)):
            return cls({}, name)
        kind = qrels_format(path)
        if kind not in FORMATS:
            raise InputError(str(path), "unknown_qrels_format", line=1)
        grades: dict[str, dict[str, int]] = {}
        for line in _checked(path, kind, READERS[kind](path), allow_empty=True):
            assert line.grade is not None  # TREC and BEIR lines always hold a grade
            grades.setdefault(line.query_id, {})[line.chunk_id] = line.grade
        return cls(grades, name)

    def save(self, path: Path | str, kind: str = "trec") -> None:
        """Write the qrels as ``kind`` (``trec`` or ``beir``), by query id then id."""
        check_name(kind, FORMATS, "what_qrels_format")
        middle, last = (" 0 ", " ") if kind == "trec" else ("\t", "\t")
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            if kind == "beir":
                handle.write("\t".join(BEIR_HEADER) + "\n")
            # A query's lines joined at once (``judgments``' order): a release writes a
            # million.
            for query_id in sorted(self.grades):
                start = query_id + middle
                judged = sorted(self.grades[query_id].items())
                handle.write(
                    "".join([f"{start}{doc_id}{last}{grade}\n" for doc_id, grade in judged])
                )


# -- reading judgment files -------------------------------------------------------------


def qrels_format(path: Path | str) -> str:
    """``trec``, ``beir`` or ``jsonl``, told from the first non-blank line of the file."""
    for number, text in read_lines(path):
        stripped = text.strip()
        if stripped.startswith("{"):
            return "jsonl"
        if tuple(c.strip() for c in stripped.split("\t")) == BEIR_HEADER:
            return "beir"
        if len(stripped.split()) == 4:
            return "trec"
        raise InputError(str(path), "unknown_judgment_format", line=number)
    raise InputError(str(path), "file_empty")


def _trec_lines(path: Path | str) -> Iterator[JudgmentLine]:
    for number, text in read_lines(path):
        where = Where(str(path), number)
        columns = text.split()
        if len(columns) != 4:
            raise where.error("column_count", expected=4, found=len(columns))
        query_id, _, chunk_id, grade = columns
        yield JudgmentLine(number, query_id, chunk_id, parse_grade(grade, "grade", where))


def _beir_lines(path: Path | str) -> Iterator[JudgmentLine]:
    lines = read_lines(path)
    next(lines)  # the header, already checked by qrels_format
    for number, text in lines:
        where = Where(str(path), number)
        columns = [c.strip() for c in text.split("\t")]
        if len(columns) != 3:
            raise where.error("tsv_column_count", found=len(columns))
        query_id, chunk_id, grade = columns
        for name, value in (("query-id", query_id), ("corpus-id", chunk_id)):
            if not value:
                raise where.error("empty_value", name)
        yield JudgmentLine(number, query_id, chunk_id, parse_grade(grade, "score", where))


def _jsonl_lines(path: Path | str) -> Iterator[JudgmentLine]:
    for number, record in read_jsonl(path):
        where = Where(str(path), number)
        unsure = optional_bool(record, "unsure", where, False)
        grade = record.get("grade")
        if unsure and grade is not None:
            raise where.error("unsure_with_grade", "grade", value=grade)
        if not unsure:
            if grade is None:
                raise where.error("missing_field", "grade")
            grade = parse_grade(grade, "grade", where)
        yield JudgmentLine(
            number,
            require_id(record, "query_id", where),
            require_id(record, "chunk_id", where),
            grade,
            unsure,
            optional_str(record, "note", where),
        )


READERS = {"trec": _trec_lines, "beir": _beir_lines, "jsonl": _jsonl_lines}
# The field that names the chunk and the query, per format, for located errors.
CHUNK_FIELD = {"jsonl": "chunk_id", "beir": "corpus-id", "trec": "doc_id"}
QUERY_FIELD = {"jsonl": "query_id", "beir": "query-id", "trec": "query_id"}


def _checked(
    path: Path | str, kind: str, lines: Iterator[JudgmentLine], allow_empty: bool = False
) -> Iterator[JudgmentLine]:
    """``lines``, refusing the same (query, chunk) twice, and (unless ``allow_empty``) a
    file with none."""
    seen, count = FirstSeen(), 0
    for judgment in lines:
        where = Where(str(path), judgment.line)
        pair = (judgment.query_id, judgment.chunk_id)
        seen.check(pair, where, CHUNK_FIELD[kind], "duplicate_pair", query=pair[0], chunk=pair[1])
        count += 1
        yield judgment
    if not count and not allow_empty:
        raise InputError(str(path), "file_empty")


def judgment_lines(path: Path | str) -> tuple[str, Iterator[JudgmentLine]]:
    """The format of a judgments file and its lines one at a time, each checked alone (the
    caller refuses repeated pairs, e.g. by database key, and an empty file): for files of
    millions of lines."""
    kind = qrels_format(path)
    return kind, READERS[kind](path)


def read_judgments(path: Path | str) -> tuple[str, list[JudgmentLine]]:
    """Judgments from TREC qrels, BEIR qrels TSV or JSONL, the format told from the content.
    Returns ``(format, lines)``; raises ``InputError`` on the first bad line."""
    kind = qrels_format(path)
    return kind, list(_checked(path, kind, READERS[kind](path)))
