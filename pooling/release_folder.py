"""A release's folder as it is read: its files, the manifest that says what they belong to,
checking a folder against its manifest, and its grades worked out again from its own
``judgments.jsonl``. No database: like ranx's ``Qrels.from_file``, a folder is all it needs
(``annotator.releases.release_files`` writes one).

| file | what |
| --- | --- |
| ``qrels.trec`` | ``qid 0 chunk_id grade`` (trec_eval, ir_measures, ranx) |
| ``qrels.tsv`` | BEIR layout, header ``query-id corpus-id score`` |
| ``qrels-doc.trec`` | document level: the highest grade of each document's chunks |
| ``queries.jsonl`` | every query with slices, split, answerable and ``flags`` |
| ``judgments.jsonl`` | every judgment and adjudication, people under pseudonyms |
| ``chunks.tsv`` | every chunk id of the corpus version and its document id |
| ``chunk-places.tsv`` | each chunk's page(s) and section, where its document keeps them |
| ``pool-unjudged.tsv`` | the pool's candidates with no grade in the release, and why |
| ``model_judgments.jsonl`` | model judges' current grades on the pool's candidates |
| ``sample.json`` | the sample of queries people judge completely, its design, every draw |
| ``manifest.json`` | versions, pool, policy, counts, agreement, sha256 of every file |

``chunks.tsv`` is what lets an evaluator tell chunk ids from document ids in a run and
reduce a chunk run to documents (``annotator.evaluation.run_files``). ``pool-unjudged.tsv``
tells a candidate the pool held but nobody graded (``not_chosen`` by active pooling, or
``unresolved`` and left out) from one the pool never held: trec_eval's infAP reads the first
kind as sampled out (grade -1), the second as non-relevant. ``model_judgments.jsonl`` (one
line per model, query and chunk: ``model``, ``prompt_hash`` (``qrels judge``'s; null for
grades imported with ``--kind model``), ``query_id``, ``chunk_id``, ``grade``; never part of
the qrels) and ``sample.json`` (``qrels sample``'s design and queries with their
probabilities; ``design`` null when the pool has none) are what metric estimates need
(``annotator.evaluation.estimation``). Releases written before any of these files existed do
not list it in their manifest, and ``verify_release`` does not ask them for it.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pooling.i18n import LocalizedError, t
from pooling.qrels import Qrels
from pooling.readers import (
    InputError,
    Where,
    parse_grade,
    read_jsonl,
    read_lines,
    require_id,
    require_text,
)
from pooling.release_format import (
    ADJUDICATION,
    CARRIED,
    DECISIONS,
    GOLD,
    JUDGMENT,
    JUDGMENTS,
    KIND,
    MODEL_FIELDS,
    MODEL_JUDGMENTS,
    SAMPLE,
)
from pooling.resolution import final_grades, frame_of, statuses

__all__ = [
    "ADDED_LATER",
    "CHUNK_MAP",
    "CHUNK_MAP_HEADER",
    "CHUNK_PLACES",
    "CHUNK_PLACES_HEADER",
    "FILES",
    "MANIFEST",
    "MODEL_JUDGMENTS",
    "POOL_UNJUDGED",
    "POOL_UNJUDGED_HEADER",
    "SAMPLE",
    "UNJUDGED_REASONS",
    "Tally",
    "intact",
    "read_chunk_map",
    "read_manifest",
    "read_model_judgments",
    "read_pool_unjudged",
    "read_qrels",
    "read_queries",
    "read_sample",
    "recompute",
    "release_rationales",
    "sha256_of",
    "verify_release",
    "zip_bytes",
]


CHUNK_MAP = "chunks.tsv"
CHUNK_MAP_HEADER = ("chunk-id", "doc-id")
CHUNK_PLACES = "chunk-places.tsv"  # written only where a chunk has a page or a section
CHUNK_PLACES_HEADER = ("chunk-id", "pages", "section")
POOL_UNJUDGED = "pool-unjudged.tsv"
POOL_UNJUDGED_HEADER = ("query-id", "chunk-id", "reason")
UNJUDGED_REASONS = ("not_chosen", "unresolved")
FILES = (
    "qrels.trec",
    "qrels.tsv",
    "qrels-doc.trec",
    "queries.jsonl",
    JUDGMENTS,
    CHUNK_MAP,
    CHUNK_PLACES,
    POOL_UNJUDGED,
    MODEL_JUDGMENTS,
    SAMPLE,
)
# Checked only where the manifest lists them (older releases lack them).
ADDED_LATER = {CHUNK_MAP, CHUNK_PLACES, POOL_UNJUDGED, MODEL_JUDGMENTS, SAMPLE}
MANIFEST = "manifest.json"
# A release version: a folder name on every system, never a path, never "." or "..", with no
# control character and at most 100 characters (it names the folder and, carried, a judge).
RELEASE_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def valid_version(version: object) -> bool:
    """Whether ``version`` is a release version (``RELEASE_VERSION``)."""
    return isinstance(version, str) and RELEASE_VERSION.fullmatch(version) is not None


def sha256_of(path: Path) -> str:
    """The sha256 of the file at ``path``, read a block at a time: a release's
    ``judgments.jsonl`` is hundreds of megabytes at L, never held whole."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@dataclass
class Tally:
    """What the lines of ``judgments.jsonl`` say, read in order: each person's current grade
    per candidate (their last judgment of it), the leads' last decisions, the gold items'
    and the carried grades, and the rubric versions. One reading of the lines for the
    release that writes them (``annotator.releases.release_files.write_judgments``) and for
    ``recompute``, which reads them back."""

    current: dict[tuple[str, str, str], int | None] = field(default_factory=dict)
    decisions: dict[tuple[str, str], tuple] = field(default_factory=dict)
    gold: dict[tuple[str, str], int] = field(default_factory=dict)
    carried: dict[tuple[str, str], int] = field(default_factory=dict)
    rubrics: set[str] = field(default_factory=set)

    def add(self, record: dict) -> None:
        kind, key = record[KIND], (record["query_id"], record["chunk_id"])
        if kind == JUDGMENT:
            self.current[(record["annotator"], *key)] = record["grade"]
            if record.get("rubric_version"):
                self.rubrics.add(record["rubric_version"])
        elif kind == ADJUDICATION:
            self.decisions[key] = (record["grade"],)
        elif kind == GOLD:
            self.gold[key] = record["grade"]
        elif kind == CARRIED:
            self.carried[key] = record["grade"]

    def noting(self, records: Iterable[dict]) -> Iterator[dict]:
        """``records`` as they are, each added on its way."""
        for record in records:
            self.add(record)
            yield record

    def frame(self) -> pd.DataFrame:
        """The current grades as the judgments frame (people by pseudonym)."""
        rows = [(who, query, chunk, grade) for (who, query, chunk), grade in self.current.items()]
        return frame_of(rows, ["annotator", "query_id", "chunk_id", "grade"])


def recompute(folder: Path | str) -> Qrels:
    """A release's chunk-level grades worked out again from ``judgments.jsonl`` and the
    manifest alone, as the release decided them: each person's last judgment of a
    candidate is their current one, the manifest's policy and overlap say which candidates
    agree (their lower median), a gold item's grade stands whatever annotators gave it, a
    lead's last adjudication has the final word, and a grade carried from an earlier release
    (``--accept-carried``) stands where nobody judged. Equal
    to ``qrels.trec`` for every release this tool writes."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    seen = Tally()
    for _, record in read_jsonl(folder / JUDGMENTS):
        seen.add(record)
    policy, overlap = manifest["adjudication_policy"], manifest["pool"]["overlap"]
    table = statuses(seen.frame(), policy, overlap)
    grades, _ = final_grades(table, seen.decisions, gold=seen.gold, carried=seen.carried)
    qrels = Qrels.from_dict({}, manifest["release"])
    for (query_id, chunk_id), grade in sorted(grades.items()):
        qrels.grades.setdefault(query_id, {})[chunk_id] = grade
    return qrels


def intact(folder: Path | str) -> Path:
    """``folder`` when it holds an intact release (``verify_release``); raises
    ``LocalizedError`` naming the problems otherwise: what reads a release to build on it
    checks it first."""
    folder = Path(folder)
    problems = verify_release(folder)
    if problems:
        raise LocalizedError("release_not_intact", folder=folder, problems="; ".join(problems))
    return folder


def verify_release(folder: Path | str) -> list[str]:
    """Problems with a release folder: missing or changed files (sha256 against the
    manifest) and files that are not in their format. Empty when the release is intact."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, not JSON, a huge number
        return [t("verify_manifest_unreadable", detail=exc)]
    listed = manifest.get("files", {}) if isinstance(manifest, dict) else None
    if not isinstance(listed, dict):
        return [t("verify_manifest_unreadable", detail="not an object with an object of files")]
    problems = []
    for name in FILES:
        if name in ADDED_LATER and name not in listed:
            continue
        path = folder / name
        if not path.is_file():
            problems.append(t("verify_missing", file=name))
        elif sha256_of(path) != listed.get(name):
            problems.append(t("verify_changed", file=name))
    if problems:
        return problems
    for name in ("qrels.trec", "qrels.tsv", "qrels-doc.trec"):
        try:
            Qrels.from_file(folder / name)
        except InputError as error:
            problems.append(str(error))
    for name in ("queries.jsonl", JUDGMENTS):
        try:
            for _ in read_jsonl(folder / name):
                pass
        except InputError as error:
            problems.append(str(error))
    for name, read in (
        (CHUNK_MAP, read_chunk_map),
        (CHUNK_PLACES, read_chunk_places),
        (POOL_UNJUDGED, read_pool_unjudged),
        (MODEL_JUDGMENTS, read_model_judgments),
        (SAMPLE, read_sample),
    ):
        if name in listed:
            try:
                read(folder)
            except InputError as error:
                problems.append(str(error))
    return problems


def read_qrels(folder: Path | str, level: str = "chunk") -> Qrels:
    """A release's qrels at chunk or document level."""
    name = "qrels.trec" if level == "chunk" else "qrels-doc.trec"
    return Qrels.from_file(Path(folder) / name, Path(folder).name)


def read_queries(folder: Path | str) -> list[dict]:
    """A release's queries, as written in ``queries.jsonl``."""
    return [record for _, record in read_jsonl(Path(folder) / "queries.jsonl")]


def read_chunk_map(folder: Path | str) -> dict[str, str] | None:
    """Chunk id -> document id from a release's ``chunks.tsv``; None for a release written
    before it existed. Raises ``InputError`` (file, line, field) on a malformed line."""
    path = Path(folder) / CHUNK_MAP
    if not path.is_file():
        return None
    parents: dict[str, str] = {}
    for number, text in read_lines(path):
        columns = tuple(c.strip() for c in text.split("\t"))
        if number == 1 and columns == CHUNK_MAP_HEADER:
            continue
        where = Where(str(path), number)
        if len(columns) != 2:
            raise where.error("column_count", expected=2, found=len(columns))
        for name, value in zip(CHUNK_MAP_HEADER, columns, strict=True):
            if not value:
                raise where.error("empty_value", name)
        parents[columns[0]] = columns[1]
    return parents


def read_chunk_places(folder: Path | str) -> dict[str, tuple[str, str]]:
    """Chunk id -> (pages, section) from a release's ``chunk-places.tsv`` (``3`` or
    ``3-4``, "" where none): what an evaluator cites. Empty where the release has none (its
    corpus kept no pages or headings, or it was written before). Raises ``InputError``
    (file, line, field) on a malformed line."""
    path = Path(folder) / CHUNK_PLACES
    if not path.is_file():
        return {}
    places: dict[str, tuple[str, str]] = {}
    for number, text in read_lines(path):
        columns = tuple(c.strip() for c in text.split("\t"))
        if number == 1 and columns == CHUNK_PLACES_HEADER:
            continue
        where = Where(str(path), number)
        if len(columns) != 3:
            raise where.error("column_count", expected=3, found=len(columns))
        if not columns[0]:
            raise where.error("empty_value", "chunk-id")
        places[columns[0]] = (columns[1], columns[2])
    return places


def read_pool_unjudged(folder: Path | str) -> dict[str, dict[str, str]] | None:
    """Query id -> chunk id -> why it has no grade (``not_chosen`` or ``unresolved``), from a
    release's ``pool-unjudged.tsv``; None for a release written before it existed. Raises
    ``InputError`` (file, line, field) on a malformed line."""
    path = Path(folder) / POOL_UNJUDGED
    if not path.is_file():
        return None
    unjudged: dict[str, dict[str, str]] = {}
    for number, text in read_lines(path):
        columns = tuple(c.strip() for c in text.split("\t"))
        if number == 1 and columns == POOL_UNJUDGED_HEADER:
            continue
        where = Where(str(path), number)
        if len(columns) != 3:
            raise where.error("column_count", expected=3, found=len(columns))
        for name, value in zip(POOL_UNJUDGED_HEADER, columns, strict=True):
            if not value:
                raise where.error("empty_value", name)
        if columns[2] not in UNJUDGED_REASONS:
            raise where.error(
                "bad_choice", "reason", value=columns[2], choices=", ".join(UNJUDGED_REASONS)
            )
        unjudged.setdefault(columns[0], {})[columns[1]] = columns[2]
    return unjudged


def read_model_judgments(folder: Path | str) -> dict[str, Qrels]:
    """Model name -> its grades in a release's ``model_judgments.jsonl`` (empty for a
    release written before the file existed)."""
    path = Path(folder) / MODEL_JUDGMENTS
    model, _, query, chunk, graded = MODEL_FIELDS
    found: dict[str, Qrels] = {}
    if path.is_file():
        for line, record in read_jsonl(path):
            where = Where(str(path), line)
            name = require_text(record, model, where)
            query_id, chunk_id = (require_id(record, f, where) for f in (query, chunk))
            grade = parse_grade(record.get(graded), graded, where)
            found.setdefault(name, Qrels(name=name)).grades.setdefault(query_id, {})[chunk_id] = (
                grade
            )
    return found


def read_sample(folder: Path | str) -> dict | None:
    """A release's ``sample.json``, or None when the pool had no sample (or the release
    was written before the file existed). Raises ``InputError`` when it is not a sample."""
    path = Path(folder) / SAMPLE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:  # not UTF-8, not JSON, or a number Python will not read
        raise InputError(str(path), "bad_json", detail=error) from None
    if not isinstance(data, dict) or not isinstance(data.get("queries", []), list):
        raise InputError(str(path), "not_object", found=type(data).__name__)
    draws = data.get("draws")  # from format 2 on; None in a release made before
    if draws is not None and not (
        isinstance(draws, list) and all(isinstance(d, dict) for d in draws)
    ):
        raise InputError(str(path), "not_object", found=type(draws).__name__)
    return data if data.get("design") else None


def release_rationales(folder: Path | str) -> dict[tuple[str, str], str]:
    """(query id, chunk id) -> the rationale of the last decision on it in a release (an
    adjudication, or a gold item's)."""
    found = {}
    for _, record in read_jsonl(Path(folder) / JUDGMENTS):
        if record[KIND] in DECISIONS:
            found[(record["query_id"], record["chunk_id"])] = record.get("rationale", "")
    return found


def read_manifest(folder: Path | str) -> dict:
    return json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))


def zip_bytes(folder: Path | str) -> bytes:
    """The release folder as a zip archive, for a download."""
    folder = Path(folder)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, f"{folder.name}/{path.name}")
    return buffer.getvalue()
