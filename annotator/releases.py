"""Versioned, immutable qrels releases: create and compare them.

A release is a folder an evaluator can load as it is (trec_eval, ir_measures, ranx, BEIR)
and a manifest that says which corpus, chunking, query set, rubric and pool the grades
belong to, with the sha256 of every file (``annotator.release_files``). It is made in
three steps: one snapshot of the pool read in a single transaction, resolved to final
grades by a pure function (``annotator.adjudication.resolve``), then written. A version is
written once: never again, never changed.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy.engine import Engine

from annotator import carry
from annotator.adjudication import resolve
from annotator.agreement import frame_of
from annotator.release_files import read_manifest, read_qrels, write_release
from pooling.grades import DEFAULT_POLICY, check_policy
from pooling.i18n import LocalizedError
from pooling.run import Run
from storage import release_records
from storage.db import session_scope
from storage.pool_records import get_pool


class ReleaseError(LocalizedError):
    """A release that cannot be written: unresolved candidates, or a version that exists."""


@dataclass
class ReleaseResult:
    version: str
    folder: Path
    manifest: dict


def create_release(
    engine: Engine,
    version: str,
    pool_name: str,
    out: Path | str,
    *,
    policy: str = DEFAULT_POLICY,
    allow_unresolved: bool = False,
    # A pool built by `qrels carry` records its lineage (``derived_from``); with this, its
    # same-text grades of dev queries nobody re-judged are published (carry.accept_carried).
    accept_carried: bool = False,
    now: datetime | None = None,
) -> ReleaseResult:
    """Write release ``version`` of pool ``pool_name`` into the new folder ``out`` and
    record it. Raises ``ReleaseError`` while candidates are unresolved (unless
    ``allow_unresolved``: they are left out and counted) or when the version exists."""
    check_policy(policy)
    out = Path(out)
    with session_scope(engine) as session:
        if release_records.find_release(version, session=session) is not None:
            raise ReleaseError("release_exists", version=version)
        snapshot = release_records.read_snapshot(
            get_pool(pool_name, session=session), session=session
        )
    resolution = resolve(
        frame_of(snapshot.judgments),
        snapshot.decisions,
        snapshot.candidates,
        snapshot.not_chosen,
        policy=policy,
        overlap=snapshot.overlap,
    )
    lineage = carry.derived_from(engine, pool_name)
    if accept_carried:
        splits = {query.query_id: query.split for query in snapshot.queries}
        judged = {(row[1], row[2]) for row in snapshot.judgments}
        accepted = carry.accept_carried(engine, pool_name, resolution, splits, judged)
        resolution = accepted.resolution
        snapshot.history += accepted.records  # marked "carried" in judgments.jsonl
        lineage["accepted_carried"] = len(accepted.records)
        lineage["refused_carried_test_split"] = accepted.refused_test_split
    if resolution.unresolved and not allow_unresolved:
        query_id, chunk_id = resolution.unresolved[0]
        raise ReleaseError(
            "release_unresolved", count=len(resolution.unresolved), query=query_id, chunk=chunk_id
        )
    if out.exists() and any(out.iterdir()):
        raise ReleaseError("release_folder_not_empty", folder=out)
    out.mkdir(parents=True, exist_ok=True)
    manifest, digest = write_release(
        out, version, snapshot, resolution, policy=policy, now=now, derived_from=lineage
    )
    with session_scope(engine) as session:
        release_records.record_release(
            version, get_pool(pool_name, session=session), manifest, digest, session=session
        )
    return ReleaseResult(version, out, manifest)


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
    # "chunk", or "document" when the releases are on different corpus versions, whose
    # chunk ids mean different things: ``corpus_versions`` names them (A, B).
    level: str = "chunk"
    corpus_versions: tuple[str, str] | None = None


def diff_releases(
    a: Path | str, b: Path | str, run: Path | str | None = None, k: int = 10
) -> ReleaseDiff:
    """Judgments added, removed and changed from release ``a`` to ``b`` (by document when
    they are on different corpus versions: ``comparison_level``); with a TREC ``run``, its
    nDCG@10 and Recall@k under each."""
    old, new = read_qrels(a), read_qrels(b)
    level, versions = comparison_level(a, b)
    judged_old, judged_new = (
        (old, new) if level == "chunk" else (read_qrels(a, level), read_qrels(b, level))
    )
    flat_old = {(q, c): g for q, d in judged_old.items() for c, g in d.items()}
    flat_new = {(q, c): g for q, d in judged_new.items() for c, g in d.items()}
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
        level=level,
        corpus_versions=versions if level == "document" else None,
    )


def comparison_level(a: Path | str, b: Path | str) -> tuple[str, tuple[str, str]]:
    """``"chunk"`` for two releases on one corpus version, else ``"document"`` (chunk ids
    of two corpus versions are not comparable: each release's ``qrels-doc.trec`` is), with
    the two corpus versions' names."""
    versions = tuple(read_manifest(folder)["corpus_version"]["name"] for folder in (a, b))
    return ("chunk" if versions[0] == versions[1] else "document"), versions


@dataclass(frozen=True)
class ReleaseRecord:
    """A release as the database recorded it."""

    version: str
    pool: str
    created_at: datetime
    graded: int | None


def list_releases(engine: Engine) -> list[ReleaseRecord]:
    """Every recorded release, oldest first."""
    with session_scope(engine) as session:
        return [
            ReleaseRecord(
                r.version,
                r.manifest.get("pool", {}).get("name"),
                r.created_at,
                r.manifest.get("counts", {}).get("judged_candidates"),
            )
            for r in release_records.list_releases(session=session)
        ]


def release_dir() -> Path:
    """Where the app writes releases: ``$QRELS_RELEASE_DIR``, else ``releases/``."""
    return Path(os.environ.get("QRELS_RELEASE_DIR") or "releases")
