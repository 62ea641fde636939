"""A release's folder: the files written from a snapshot and its resolution, the manifest
that says what they belong to, and checking a folder against its manifest.

| file | what |
| --- | --- |
| ``qrels.trec`` | ``qid 0 chunk_id grade`` (trec_eval, ir_measures, ranx) |
| ``qrels.tsv`` | BEIR layout, header ``query-id corpus-id score`` |
| ``qrels-doc.trec`` | document level: the highest grade of each document's chunks |
| ``queries.jsonl`` | every query with slices, split, answerable and ``flags`` |
| ``judgments.jsonl`` | every judgment and adjudication, people under pseudonyms |
| ``chunks.tsv`` | every chunk id of the corpus version and its document id |
| ``model_judgments.jsonl`` | model judges' current grades on the pool's candidates |
| ``sample.json`` | the pool's sample of queries people judge completely, and its design |
| ``manifest.json`` | versions, pool, policy, counts, agreement, sha256 of every file |

``chunks.tsv`` is what lets an evaluator tell chunk ids from document ids in a run and
reduce a chunk run to documents (``annotator.evaluation``); releases written before it
existed do not list it in their manifest, and ``verify_release`` does not ask them for it.
So with ``model_judgments.jsonl`` (one line per model, query and chunk: ``model``,
``prompt_hash`` (null where unknown), ``query_id``, ``chunk_id``, ``grade``; never part of
the qrels) and ``sample.json`` (``qrels sample``'s design and queries with their
probabilities; ``design`` null when the pool has none): what metric estimates need
(``annotator.estimation``).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pandas as pd

from annotator import agreement
from annotator.adjudication import Resolution, final_grades, statuses
from pooling.grades import EVIDENCE
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
from storage.release_records import ReleaseSnapshot

CHUNK_MAP = "chunks.tsv"
CHUNK_MAP_HEADER = ("chunk-id", "doc-id")
MODEL_JUDGMENTS = "model_judgments.jsonl"
SAMPLE = "sample.json"
FILES = (
    "qrels.trec",
    "qrels.tsv",
    "qrels-doc.trec",
    "queries.jsonl",
    "judgments.jsonl",
    CHUNK_MAP,
    MODEL_JUDGMENTS,
    SAMPLE,
)
# Checked only where the manifest lists them (older releases lack them).
ADDED_LATER = {CHUNK_MAP, MODEL_JUDGMENTS, SAMPLE}
MANIFEST = "manifest.json"
NO_EVIDENCE = "no chunk graded 2 or more"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_jsonl(path: Path, records: Iterable[dict]) -> None:
    """``records`` appended to ``path`` as they come, one JSON object a line, in UTF-8.
    orjson: the standard encoder took a fifth of a release of a million judgments."""
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    with open(path, "ab") as handle:
        handle.writelines(dumps(record, option=newline) for record in records)


@dataclass
class Tally:
    """What the lines of ``judgments.jsonl`` say, read in order: each person's current grade
    per candidate (their last judgment of it), the leads' last decisions, the gold items'
    and the carried grades, and the rubric versions. One reading of the lines for the
    release that writes them (``write_judgments``) and for ``recompute``, which reads them
    back."""

    current: dict[tuple[str, str, str], int | None] = field(default_factory=dict)
    decisions: dict[tuple[str, str], tuple] = field(default_factory=dict)
    gold: dict[tuple[str, str], int] = field(default_factory=dict)
    carried: dict[tuple[str, str], int] = field(default_factory=dict)
    rubrics: set[str] = field(default_factory=set)

    def add(self, record: dict) -> None:
        kind, key = record["type"], (record["query_id"], record["chunk_id"])
        if kind == "judgment":
            self.current[(record["annotator"], *key)] = record["grade"]
            if record.get("rubric_version"):
                self.rubrics.add(record["rubric_version"])
        elif kind == "adjudication":
            self.decisions[key] = (record["grade"],)
        elif kind == "gold":
            self.gold[key] = record["grade"]
        elif kind == "carried":
            self.carried[key] = record["grade"]

    def noting(self, records: Iterable[dict]) -> Iterator[dict]:
        """``records`` as they are, each added on its way."""
        for record in records:
            self.add(record)
            yield record

    def frame(self) -> pd.DataFrame:
        """The current grades as ``annotator.agreement``'s frame (people by pseudonym)."""
        rows = [(who, query, chunk, grade) for (who, query, chunk), grade in self.current.items()]
        return agreement.frame_of(rows, ["annotator", "query_id", "chunk_id", "grade"])


def write_judgments(folder: Path, records: Iterable[dict]) -> Tally:
    """``records`` (judgments, adjudications, gold items, carried grades) appended to the
    ``judgments.jsonl`` of ``folder`` as they come; returns the ``Tally`` of what they
    said. A release decides its grades from this tally, so its files say exactly what
    decided them."""
    seen = Tally()
    _write_jsonl(folder / "judgments.jsonl", seen.noting(records))
    return seen


def write_model_judgments(folder: Path, rows: Iterable[tuple[str, str, str, int]]) -> None:
    """``model_judgments.jsonl`` from ``(model, query_id, chunk_id, grade)`` rows (the
    model judges' current grades, ``storage.history.model_candidate_judgments``)."""
    (folder / MODEL_JUDGMENTS).touch()
    _write_jsonl(
        folder / MODEL_JUDGMENTS,
        (
            {"model": m, "prompt_hash": None, "query_id": q, "chunk_id": c, "grade": g}
            for m, q, c, g in rows
        ),
    )


def write_sample(folder: Path, sample: dict | None) -> None:
    """``sample.json``: the pool's sample in force (``SampleRecord.to_dict``), or a design
    of null when there is none."""
    data = sample if sample is not None else {"design": None, "queries": []}
    text = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (folder / SAMPLE).write_text(text, encoding="utf-8")


def _query_records(snapshot: ReleaseSnapshot, qrels: Qrels) -> list[dict]:
    """Every query, kept even without evidence: ``flags`` says so instead."""
    best = {q: max(judged.values()) for q, judged in qrels.items()}
    return [
        {
            "_id": query.query_id,
            "text": query.text,
            "slices": query.slices,
            "split": query.split,
            "answerable": query.answerable,
            "notes": query.notes,
            "flags": [] if best.get(query.query_id, 0) >= EVIDENCE else [NO_EVIDENCE],
        }
        for query in snapshot.queries
    ]


def _write_chunk_map(path: Path, parents: dict[str, str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\t".join(CHUNK_MAP_HEADER) + "\n")
        handle.writelines(f"{chunk}\t{parents[chunk]}\n" for chunk in sorted(parents))


def write_release(
    folder: Path,
    version: str,
    snapshot: ReleaseSnapshot,
    resolution: Resolution,
    frame: pd.DataFrame,
    parents: dict[str, str],
    rubrics: set[str],
    *,
    policy: str,
    now: datetime | None = None,
    derived_from: dict | None = None,
) -> tuple[dict, str]:
    """Write the release's files and manifest into ``folder`` (which holds nothing but
    the ``judgments.jsonl`` of ``write_judgments``) from the snapshot, its ``resolution``,
    the current judgments ``frame`` (for agreement), chunk -> document ``parents`` and the
    ``rubrics`` the judgments were made under; returns the manifest and its sha256.
    ``derived_from`` (a pool carried from another release: ``annotator.carry.derived_from``)
    goes into the manifest as it is."""
    qrels = Qrels.from_dict({}, version)
    for (query_id, chunk_id), grade in sorted(resolution.grades.items()):
        qrels.grades.setdefault(query_id, {})[chunk_id] = grade
    qrels.save(folder / "qrels.trec")
    qrels.save(folder / "qrels.tsv", "beir")
    qrels.documents(parents).save(folder / "qrels-doc.trec")
    queries = _query_records(snapshot, qrels)
    _write_jsonl(folder / "queries.jsonl", queries)
    _write_chunk_map(folder / CHUNK_MAP, parents)
    graded = frame.dropna(subset=["grade"])
    alpha = agreement.krippendorff_alpha(graded) if len(graded) else None
    manifest = {
        "release": version,
        "created_at": (now or datetime.now(UTC)).isoformat(),
        "query_set": {
            "name": snapshot.query_set.name,
            "content_hash": snapshot.query_set.content_hash,
        },
        "corpus_version": {
            "name": snapshot.corpus_version.name,
            "content_hash": snapshot.corpus_version.content_hash,
        },
        "chunking": snapshot.corpus_version.chunking,
        "rubric_versions": sorted(rubrics),
        "pool": {
            "name": snapshot.pool.name,
            "overlap": snapshot.pool.overlap,
            "config": snapshot.pool.config,
        },
        "adjudication_policy": policy,
        "counts": {
            "queries": len(snapshot.queries),
            "judged_candidates": qrels.size,
            "per_grade": qrels.per_grade(),
            "unresolved_left_out": len(resolution.unresolved),
            "not_chosen_by_active_pooling": len(snapshot.not_chosen - resolution.grades.keys()),
            "queries_without_evidence": sum(1 for q in queries if q["flags"]),
            "adjudicated": resolution.adjudicated,
            "gold_items": len(snapshot.gold),
        },
        "agreement": {
            "krippendorff_alpha_ordinal": alpha.value if alpha else None,
            "undefined": alpha.undefined if alpha else "no judgments",
        },
        "files": {
            name: sha256_of(folder / name)
            for name in FILES
            if name not in ADDED_LATER or (folder / name).is_file()
        },
    }
    if derived_from is not None:
        manifest["derived_from"] = derived_from
    text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (folder / MANIFEST).write_text(text, encoding="utf-8")
    return manifest, sha256_of(folder / MANIFEST)


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
    for _, record in read_jsonl(folder / "judgments.jsonl"):
        seen.add(record)
    policy, overlap = manifest["adjudication_policy"], manifest["pool"]["overlap"]
    grades, _ = final_grades(statuses(seen.frame(), policy, overlap), seen.decisions)
    settled = {key: g for key, g in seen.gold.items() if key not in seen.decisions}
    qrels = Qrels.from_dict({}, manifest["release"])
    for (query_id, chunk_id), grade in sorted({**seen.carried, **grades, **settled}.items()):
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
    except (OSError, json.JSONDecodeError) as exc:
        return [t("verify_manifest_unreadable", detail=exc)]
    problems = []
    listed = manifest.get("files", {})
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
    for name in ("queries.jsonl", "judgments.jsonl"):
        try:
            for _ in read_jsonl(folder / name):
                pass
        except InputError as error:
            problems.append(str(error))
    for name, read in ((MODEL_JUDGMENTS, read_model_judgments), (SAMPLE, read_sample)):
        if name in listed:
            try:
                read(folder)
            except InputError as error:
                problems.append(str(error))
    if CHUNK_MAP in listed:
        try:
            read_chunk_map(folder)
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


def read_model_judgments(folder: Path | str) -> dict[str, Qrels]:
    """Model name -> its grades in a release's ``model_judgments.jsonl`` (empty for a
    release written before the file existed)."""
    path = Path(folder) / MODEL_JUDGMENTS
    found: dict[str, Qrels] = {}
    if path.is_file():
        for line, record in read_jsonl(path):
            where = Where(str(path), line)
            name = require_text(record, "model", where)
            query_id, chunk_id = (require_id(record, f, where) for f in ("query_id", "chunk_id"))
            grade = parse_grade(record.get("grade"), "grade", where)
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
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(str(path), "bad_json", detail=error) from None
    if not isinstance(data, dict) or not isinstance(data.get("queries", []), list):
        raise InputError(str(path), "not_object", found=type(data).__name__)
    return data if data.get("design") else None


def release_rationales(folder: Path | str) -> dict[tuple[str, str], str]:
    """(query id, chunk id) -> the rationale of the last decision on it in a release (an
    adjudication, or a gold item's)."""
    found = {}
    for _, record in read_jsonl(Path(folder) / "judgments.jsonl"):
        if record["type"] in ("adjudication", "gold"):
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
