"""Versioned, immutable qrels releases: create, verify, compare.

A release is a folder an evaluator can load as it is (trec_eval, ir_measures, ranx, BEIR)
and a manifest that says which corpus, chunking, query set, rubric and pool the grades
belong to, with the sha256 of every file. A version is written once: never again, never
changed.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine

from annotator import adjudication, agreement
from pooling.run import Run
from storage import release_records
from storage.active_records import not_chosen
from storage.db import session_scope
from storage.history import latest_adjudications
from storage.models import CorpusVersion, QuerySet
from storage.pool_records import get_pool, pool_candidates

FILES = ("qrels.trec", "qrels.tsv", "qrels-doc.trec", "queries.jsonl", "judgments.jsonl")
NO_EVIDENCE = "no chunk graded 2 or more"


class ReleaseError(ValueError):
    """A release that cannot be written: unresolved candidates, or a version that exists."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class ReleaseResult:
    version: str
    folder: Path
    manifest: dict


def _write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def create_release(
    engine: Engine,
    version: str,
    pool_name: str,
    out: Path | str,
    *,
    policy: str = "threshold",
    allow_unresolved: bool = False,
    now: datetime | None = None,
) -> ReleaseResult:
    """Write release ``version`` of pool ``pool_name`` into the new folder ``out`` and
    record it. Raises ``ReleaseError`` while candidates are unresolved (unless
    ``allow_unresolved``: they are left out and counted) or when the version exists."""
    adjudication.check_policy(policy)
    out = Path(out)
    frame = agreement.judgments_frame(engine, pool_name)
    with session_scope(engine) as session:
        if release_records.find_release(version, session=session) is not None:
            raise ReleaseError(f"release {version!r} already exists; a version is never rewritten")
        pool = get_pool(pool_name, session=session)
        decisions = latest_adjudications(pool, session=session)
        everything = [(c.query_id, c.chunk_id) for c in pool_candidates(pool, session=session)]
        # An active pool's candidates that were never chosen were never asked about: left
        # out of the release like chunks outside the pool, and counted apart.
        never_asked = not_chosen(pool, session=session)
        query_set = session.get(QuerySet, pool.query_set_id)
        corpus = session.get(CorpusVersion, pool.corpus_version_id)
        queries = release_records.queries_of(query_set, session=session)
        parents = release_records.chunk_parents(corpus, session=session)
        history = release_records.history(pool, session=session)
        pool_config, overlap = pool.config, pool.overlap
    table = adjudication.candidates(frame, policy, overlap)
    grades, unresolved = adjudication.final_grades(table, decisions)
    unjudged = [
        key
        for key in everything
        if key not in grades and key not in unresolved and key not in never_asked
    ]
    unresolved += unjudged
    if unresolved and not allow_unresolved:
        raise ReleaseError(
            f"{len(unresolved)} candidates are unresolved (e.g. {unresolved[0][0]} / "
            f"{unresolved[0][1]}): adjudicate them, or pass --allow-unresolved to leave them "
            "out and count them in the manifest"
        )
    if out.exists() and any(out.iterdir()):
        raise ReleaseError(f"{out} is not empty; a release goes into a new folder")
    out.mkdir(parents=True, exist_ok=True)

    ordered = sorted(grades.items())
    _write_lines(out / "qrels.trec", [f"{q} 0 {c} {g}" for (q, c), g in ordered])
    _write_lines(
        out / "qrels.tsv",
        ["query-id\tcorpus-id\tscore"] + [f"{q}\t{c}\t{g}" for (q, c), g in ordered],
    )
    by_document: dict[tuple[str, str], int] = {}
    for (q, c), g in ordered:
        key = (q, parents[c])
        by_document[key] = max(g, by_document.get(key, 0))
    _write_lines(
        out / "qrels-doc.trec", [f"{q} 0 {d} {g}" for (q, d), g in sorted(by_document.items())]
    )
    best = Counter()
    for (q, _), g in ordered:
        best[q] = max(best[q], g)
    query_lines = []
    for query in queries:
        record = {
            "_id": query.query_id,
            "text": query.text,
            "slices": query.slices,
            "split": query.split,
            "answerable": query.answerable,
            "notes": query.notes,
            "flags": [] if best.get(query.query_id, 0) >= 2 else [NO_EVIDENCE],
        }
        query_lines.append(json.dumps(record, ensure_ascii=False))
    _write_lines(out / "queries.jsonl", query_lines)
    _write_lines(out / "judgments.jsonl", [json.dumps(r, ensure_ascii=False) for r in history])

    alpha = agreement.krippendorff_alpha(frame.dropna(subset=["grade"])) if len(frame) else None
    manifest = {
        "release": version,
        "created_at": (now or datetime.now(UTC)).isoformat(),
        "query_set": {"name": query_set.name, "content_hash": query_set.content_hash},
        "corpus_version": {"name": corpus.name, "content_hash": corpus.content_hash},
        "chunking": corpus.chunking,
        "rubric_versions": sorted(
            {r["rubric_version"] for r in history if r.get("rubric_version")}
        ),
        "pool": {"name": pool_name, "overlap": overlap, "config": pool_config},
        "adjudication_policy": policy,
        "counts": {
            "queries": len(queries),
            "judged_candidates": len(grades),
            "per_grade": {str(g): sum(1 for v in grades.values() if v == g) for g in range(4)},
            "unresolved_left_out": len(unresolved),
            "not_chosen_by_active_pooling": len(never_asked - grades.keys()),
            "queries_without_evidence": sum(1 for q in queries if best.get(q.query_id, 0) < 2),
            "adjudicated": sum(1 for key in grades if key in decisions),
        },
        "agreement": {
            "krippendorff_alpha_ordinal": alpha.value if alpha else None,
            "undefined": alpha.undefined if alpha else "no judgments",
        },
        "files": {name: _sha256(out / name) for name in FILES},
    }
    text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True)
    (out / "manifest.json").write_text(text + "\n", encoding="utf-8")
    with session_scope(engine) as session:
        release_records.record_release(
            version,
            get_pool(pool_name, session=session),
            manifest,
            hashlib.sha256(text.encode()).hexdigest(),
            session=session,
        )
    return ReleaseResult(version, out, manifest)


# -- reading releases -------------------------------------------------------------------


def verify_release(folder: Path | str) -> list[str]:
    """Problems with a release folder: missing or changed files (sha256 against the
    manifest) and files that are not in their format. Empty when the release is intact."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [f"manifest.json: cannot be read ({exc})"]
    problems = []
    for name in FILES:
        path = folder / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif _sha256(path) != manifest.get("files", {}).get(name):
            problems.append(f"{name}: sha256 differs from the manifest (changed after release)")
    if problems:
        return problems
    for number, line in enumerate((folder / "qrels.trec").read_text().splitlines(), 1):
        parts = line.split()
        if len(parts) != 4 or parts[3] not in {"0", "1", "2", "3"}:
            problems.append(f"qrels.trec, line {number}: expected 'qid 0 chunk_id grade'")
    lines = (folder / "qrels.tsv").read_text().splitlines()
    if not lines or lines[0] != "query-id\tcorpus-id\tscore":
        problems.append("qrels.tsv, line 1: expected the header 'query-id corpus-id score'")
    for name in ("queries.jsonl", "judgments.jsonl"):
        for number, line in enumerate((folder / name).read_text().splitlines(), 1):
            try:
                json.loads(line)
            except json.JSONDecodeError:
                problems.append(f"{name}, line {number}: not valid JSON")
    return problems


def read_qrels(folder: Path | str) -> dict[str, dict[str, int]]:
    """A release's chunk-level qrels as query id -> chunk id -> grade."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (Path(folder) / "qrels.trec").read_text().splitlines():
        query_id, _, chunk_id, grade = line.split()
        qrels.setdefault(query_id, {})[chunk_id] = int(grade)
    return qrels


def ndcg_at(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], k: int) -> float:
    """Mean nDCG@k (gain = grade, log2 discount, as trec_eval's ndcg_cut) over the queries
    with a relevant chunk; unretrieved queries count 0."""
    scores = []
    for query_id, judged in qrels.items():
        ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
        if not ideal:
            continue
        ranking = Run(run).ranking(query_id, k)
        dcg = sum(judged.get(c, 0) / math.log2(i + 2) for i, (c, _) in enumerate(ranking))
        scores.append(dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal)))
    return sum(scores) / len(scores) if scores else 0.0


def recall_at(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], k: int) -> float:
    """Mean Recall@k (relevant = grade >= 1) over the queries with a relevant chunk."""
    scores = []
    for query_id, judged in qrels.items():
        relevant = {c for c, g in judged.items() if g > 0}
        if not relevant:
            continue
        ranking = Run(run).ranking(query_id, k)
        scores.append(len(relevant & {c for c, _ in ranking}) / len(relevant))
    return sum(scores) / len(scores) if scores else 0.0


@dataclass
class ReleaseDiff:
    added: list[tuple[str, str, int]]
    removed: list[tuple[str, str, int]]
    changed: list[tuple[str, str, int, int]]
    metrics: dict[str, tuple[float, float]]  # name -> (in A, in B)


def diff_releases(
    a: Path | str, b: Path | str, run: Path | str | None = None, k: int = 10
) -> ReleaseDiff:
    """Judgments added, removed and changed from release ``a`` to ``b``; with a TREC
    ``run``, its nDCG@10 and Recall@k under each."""
    old, new = read_qrels(a), read_qrels(b)
    flat_old = {(q, c): g for q, d in old.items() for c, g in d.items()}
    flat_new = {(q, c): g for q, d in new.items() for c, g in d.items()}
    metrics = {}
    if run is not None:
        scores = Run.from_file(run).scores
        metrics = {
            "nDCG@10": (ndcg_at(scores, old, 10), ndcg_at(scores, new, 10)),
            f"Recall@{k}": (recall_at(scores, old, k), recall_at(scores, new, k)),
        }
    return ReleaseDiff(
        added=sorted((q, c, g) for (q, c), g in flat_new.items() if (q, c) not in flat_old),
        removed=sorted((q, c, g) for (q, c), g in flat_old.items() if (q, c) not in flat_new),
        changed=sorted(
            (q, c, flat_old[(q, c)], g)
            for (q, c), g in flat_new.items()
            if (q, c) in flat_old and flat_old[(q, c)] != g
        ),
        metrics=metrics,
    )


def zip_bytes(folder: Path | str) -> bytes:
    """The release folder as a zip archive, for a download."""
    import io
    import zipfile

    folder = Path(folder)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, f"{folder.name}/{path.name}")
    return buffer.getvalue()


def release_dir() -> Path:
    """Where the app writes releases: ``$QRELS_RELEASE_DIR``, else ``releases/``."""
    import os

    return Path(os.environ.get("QRELS_RELEASE_DIR") or "releases")
