"""A release's folder: the files written from a snapshot and its resolution, the manifest
that says what they belong to, and checking a folder against its manifest.

| file | what |
| --- | --- |
| ``qrels.trec`` | ``qid 0 chunk_id grade`` (trec_eval, ir_measures, ranx) |
| ``qrels.tsv`` | BEIR layout, header ``query-id corpus-id score`` |
| ``qrels-doc.trec`` | document level: the highest grade of each document's chunks |
| ``queries.jsonl`` | every query with slices, split, answerable and ``flags`` |
| ``judgments.jsonl`` | every judgment and adjudication, people under pseudonyms |
| ``manifest.json`` | versions, pool, policy, counts, agreement, sha256 of every file |
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from annotator import agreement
from annotator.adjudication import Resolution
from pooling.grades import EVIDENCE
from pooling.i18n import t
from pooling.qrels import Qrels
from pooling.readers import InputError, read_jsonl
from storage.release_records import ReleaseSnapshot

FILES = ("qrels.trec", "qrels.tsv", "qrels-doc.trec", "queries.jsonl", "judgments.jsonl")
MANIFEST = "manifest.json"
NO_EVIDENCE = "no chunk graded 2 or more"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_jsonl(path: Path, records: list[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


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


def write_release(
    folder: Path,
    version: str,
    snapshot: ReleaseSnapshot,
    resolution: Resolution,
    *,
    policy: str,
    now: datetime | None = None,
    derived_from: dict | None = None,
) -> tuple[dict, str]:
    """Write the release's files and manifest into ``folder`` (which exists and is empty);
    returns the manifest and its sha256. ``derived_from`` (a pool carried from another
    release: ``annotator.carry.derived_from``) goes into the manifest as it is."""
    qrels = Qrels.from_dict({}, version)
    for (query_id, chunk_id), grade in sorted(resolution.grades.items()):
        qrels.grades.setdefault(query_id, {})[chunk_id] = grade
    qrels.save(folder / "qrels.trec")
    qrels.save(folder / "qrels.tsv", "beir")
    qrels.documents(snapshot.parents).save(folder / "qrels-doc.trec")
    queries = _query_records(snapshot, qrels)
    _write_jsonl(folder / "queries.jsonl", queries)
    _write_jsonl(folder / "judgments.jsonl", snapshot.history)
    frame = agreement.frame_of(snapshot.judgments)
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
        "rubric_versions": sorted(
            {r["rubric_version"] for r in snapshot.history if r.get("rubric_version")}
        ),
        "pool": {
            "name": snapshot.pool_name,
            "overlap": snapshot.overlap,
            "config": snapshot.pool_config,
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
        },
        "agreement": {
            "krippendorff_alpha_ordinal": alpha.value if alpha else None,
            "undefined": alpha.undefined if alpha else "no judgments",
        },
        "files": {name: sha256_of(folder / name) for name in FILES},
    }
    if derived_from is not None:
        manifest["derived_from"] = derived_from
    text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (folder / MANIFEST).write_text(text, encoding="utf-8")
    return manifest, sha256_of(folder / MANIFEST)


def verify_release(folder: Path | str) -> list[str]:
    """Problems with a release folder: missing or changed files (sha256 against the
    manifest) and files that are not in their format. Empty when the release is intact."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [t("verify_manifest_unreadable", detail=exc)]
    problems = []
    for name in FILES:
        path = folder / name
        if not path.is_file():
            problems.append(t("verify_missing", file=name))
        elif sha256_of(path) != manifest.get("files", {}).get(name):
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
    return problems


def read_qrels(folder: Path | str, level: str = "chunk") -> Qrels:
    """A release's qrels at chunk or document level."""
    name = "qrels.trec" if level == "chunk" else "qrels-doc.trec"
    return Qrels.from_file(Path(folder) / name, Path(folder).name)


def read_queries(folder: Path | str) -> list[dict]:
    """A release's queries, as written in ``queries.jsonl``."""
    return [record for _, record in read_jsonl(Path(folder) / "queries.jsonl")]


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
