"""Carry a release's judgments to a corpus version whose documents are the same but chunked
differently (``qrels carry``), under human review. No Streamlit in here.

Old chunk ids lose their meaning when the chunking changes, and grades mapped onto new
chunks by character overlap may *propose* what to judge but may not be declared comparable.
So carrying builds a pool on the new version holding every new chunk that overlaps a judged
one (grade 0 included), graded blind like any pool, and keeps each mapped grade only as a
judgment of the automatic judge ``carried:<release>`` (kind model: never in a release, never
shown to annotators). Once people have graded, ``qrels calibrate --judge carried:<release>``
says how far the mechanical mapping would have been wrong, per mapping class.

A document is carried when the new version holds it under the same id with the same text
(sha256). One that changed or vanished, or whose text or chunk spans are not known, is
reported and never mapped. Within a carried document each judged chunk maps onto the new
chunks that overlap it (``pooling.spans``). A new chunk carries the grade of the judged
chunk whose span it has (``same_text``), else the highest grade of those mapping onto it,
with the class of that pair: only a same-text pair may ever be published unreviewed. The
mapping rules are pure and live in ``pooling.carry_mapping``; this module runs them against
the database.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from annotator.quality.adjudication import Resolution
from pooling.carry_mapping import (
    ACCEPTED_CLASS,
    JUDGE_PREFIX,
    CarriedChunk,
    ChunkPlace,
    carried_chunks,
    carried_grades,
    class_counts,
    mapping_rows_of,
    pair_class,
    plan,
    unmapped_documents,
)
from pooling.i18n import LocalizedError, NotFound
from pooling.pool import Candidate, Source
from pooling.qrels import Qrels
from pooling.release_folder import MANIFEST, read_qrels, sha256_of
from pooling.release_format import CARRIED, record
from pooling.resolution import merged
from pooling.spans import DEFAULT_MIN_OVERLAP, check_min_overlap
from storage import carry_records
from storage.chunk_spans import chunk_places, document_hashes
from storage.db import session_scope, snapshot_scope
from storage.release_records import recorded_release

if TYPE_CHECKING:  # the retrievers behind pool_records load only when a pool is built
    from storage.pool_records import PoolResult

# -- carrying ----------------------------------------------------------------------------


@dataclass
class CarryResult:
    """What ``carry`` did: the pool it built, its judge, the release's judged candidates
    per mapping class and reason, and the judged documents not mapped, per reason."""

    pool: PoolResult
    pool_version: str  # the corpus version the pool is on
    judge: str
    release: str
    counts: dict[str, int]
    documents: dict[str, list[str]]


def carry(
    engine: Engine,
    release_dir: Path | str,
    corpus_version: str,
    pool_name: str,
    *,
    overlap: int = 2,
    min_overlap: float = DEFAULT_MIN_OVERLAP,
) -> CarryResult:
    """Carry the judgments of the release in ``release_dir`` to ``corpus_version``: build
    pool ``pool_name`` (``overlap`` judgments per candidate) of the new chunks that overlap
    a judged one by at least ``min_overlap`` of either, and record the mapped grades as the
    judgments of ``carried:<release>`` and the mapping itself, in one transaction.
    Raises ``LocalizedError`` for a release that is not intact or not one this database
    recorded (``storage.release_records.recorded_release``), versions that differ
    from the ones the release names, the release's own corpus version, a release carried to
    this version before, or a pool name taken; ``NotFound`` for unknown versions."""
    from annotator.rubric import current_version
    from pooling.systems import RetrievalOptions
    from storage.catalog import chunk_keys, query_keys
    from storage.history import append_judgments
    from storage.imports import annotator_account
    from storage.models import JudgmentBatch
    from storage.pool_records import create_pool, get_pool

    check_min_overlap(min_overlap)
    if overlap < 1:
        raise LocalizedError("overlap_positive", value=overlap)
    with session_scope(engine) as session:
        manifest = recorded_release(release_dir, session=session)
        qrels = read_qrels(release_dir)
        release, judge = manifest["release"], JUDGE_PREFIX + manifest["release"]
        query_set, old_version = _release_versions(manifest, session)
        new_version = _target(corpus_version, old_version, release, session)
        old = {place.chunk_id: place for place in chunk_places(old_version, session=session)}
        _check_ids(qrels, query_keys(query_set, session=session), old, query_set, old_version)
        chunks = plan(
            qrels,
            old,
            chunk_places(new_version, session=session),
            document_hashes(old_version, session=session),
            document_hashes(new_version, session=session),
            min_overlap,
        )
        grades, counts = carried_grades(chunks), class_counts(chunks)
        lineage = {
            "release": release,
            "manifest_sha256": sha256_of(Path(release_dir) / MANIFEST),
            "corpus_version": manifest["corpus_version"],
            "chunking": manifest.get("chunking", old_version.chunking),
            "min_overlap": min_overlap,
            "judge": judge,
            "mapping": counts,
        }
        result = create_pool(
            pool_name,
            [Candidate(q, c, [Source(judge, None, None)]) for q, c in sorted(grades)],
            session=session,
            query_set=query_set,
            corpus_version=new_version,
            config={
                "strategy": "carried",
                "size": release,
                "systems_spec": judge,
                "retrieval": RetrievalOptions().to_dict(),  # what `pool topup` retrieves with
                "carried": lineage,
            },
            overlap=overlap,
        )
        pool = get_pool(pool_name, session=session)
        user, _ = annotator_account(judge, "model", session=session)
        queries, new_keys = (
            query_keys(query_set, session=session),
            chunk_keys(new_version, session=session),
        )
        append_judgments(
            user,
            query_set,
            new_version,
            [
                {"query_id": queries[q], "chunk_id": new_keys[c], "grade": grade}
                for (q, c), (grade, _) in sorted(grades.items())
            ],
            session=session,
            # append_judgments fills in the batch's ids
            batch=JudgmentBatch(  # type: ignore[call-arg]
                source=release, format="carried", content_hash=lineage["manifest_sha256"]
            ),
            rubric_version=(manifest.get("rubric_versions") or [current_version()])[-1],
            pool=pool,
        )
        carry_records.record_mappings(pool, old_version, mapping_rows_of(chunks), session=session)
    return CarryResult(result, new_version.name, judge, release, counts, unmapped_documents(chunks))


def _release_versions(manifest: dict, session):
    """The release's query set and corpus version, as this database holds them; raises
    ``LocalizedError`` when one has other content than the release was made from."""
    from storage.catalog import resolve_corpus_version, resolve_query_set

    found = []
    for resolve, key, kind in (
        (resolve_query_set, "query_set", "kind_query_set"),
        (resolve_corpus_version, "corpus_version", "kind_corpus_version"),
    ):
        named = manifest[key]
        version = resolve(named["name"], session=session)
        if version.content_hash != named["content_hash"]:
            raise LocalizedError("carry_version_differs", kind=f"@{kind}", name=named["name"])
        found.append(version)
    return found


def _target(name: str, old_version, release: str, session):
    """The corpus version to carry to: not the release's own, and not one the release was
    carried to before."""
    from storage.catalog import resolve_corpus_version

    new_version = resolve_corpus_version(name, session=session)
    if new_version.id == old_version.id:
        raise LocalizedError("carry_same_version", name=name)
    for pool in carry_records.carried_pools(session=session):
        if (
            pool.config["carried"]["release"] == release
            and pool.corpus_version_id == new_version.id
        ):
            raise LocalizedError("carry_done_before", release=release, name=name, pool=pool.name)
    return new_version


def _check_ids(qrels: Qrels, queries, old: Mapping[str, ChunkPlace], query_set, old_version):
    for query_id, chunk_id, _ in qrels.judgments():
        if query_id not in queries:
            raise NotFound("unknown_query", value=query_id, query_set=query_set.name)
        if chunk_id not in old:
            raise NotFound("unknown_chunk", value=chunk_id, corpus_version=old_version.name)


# -- reading a carried pool ----------------------------------------------------------------


@dataclass(frozen=True)
class ClassRow:
    """One mapping class of a carried pool: the release's judged candidates in it, the
    pool's candidates carrying it, and how many of those people have graded since."""

    mapping: str
    judged: int
    candidates: int
    re_judged: int


@dataclass
class CarryStatus:
    """Where a carried pool came from and how far people have re-judged it."""

    lineage: dict  # the pool's ``carried`` config: release, corpus version, judge, counts
    classes: list[ClassRow]
    documents: dict[str, list[str]]  # per unmapped reason, the judged documents
    chunks: list[CarriedChunk] = field(default_factory=list)


def carry_status(engine: Engine, pool_name: str) -> CarryStatus | None:
    """``CarryStatus`` of pool ``pool_name``; None for a pool not built by ``carry``."""
    from storage.history import candidate_judgments
    from storage.pool_records import get_pool

    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        if "carried" not in pool.config:
            return None
        chunks = carried_chunks(carry_records.mapping_rows(pool, session=session))
        graded = {(row[1], row[2]) for row in candidate_judgments(pool, session=session)}
    grades = carried_grades(chunks)
    offered = Counter(mapping for _, mapping in grades.values())
    re_judged = Counter(mapping for key, (_, mapping) in grades.items() if key in graded)
    judged = class_counts(chunks)
    classes = [ClassRow(name, judged[name], offered[name], re_judged[name]) for name in judged]
    return CarryStatus(pool.config["carried"], classes, unmapped_documents(chunks), chunks)


# -- releases of a carried pool --------------------------------------------------------------


def derived_from(pool) -> dict | None:
    """The ``derived_from`` block of a release of ``pool`` (a ``storage.models.Pool``): the
    release and corpus version it was carried from, the mapping's counts per class; None for
    a pool not built by ``carry``."""
    lineage = pool.config.get("carried")
    if lineage is None:
        return None
    return {**lineage, "accepted_carried": 0, "refused_carried_test_split": 0}


@dataclass
class Accepted:
    """Carried grades published without re-judging (``--accept-carried``)."""

    resolution: Resolution
    records: list[dict]  # for judgments.jsonl, of kind ``pooling.release_format.CARRIED``
    refused_test_split: int


def accept_carried(
    engine: Engine, pool_name: str, resolution: Resolution, splits: Mapping[str, str], judged: set
) -> Accepted:
    """``resolution`` with the carried grades of class ``same_text`` for the unresolved
    candidates nobody has judged, in queries of the ``dev`` split (``splits``: query id ->
    split; ``judged``: (query, chunk) keys some person judged); those of the test split
    are refused and counted. Raises ``LocalizedError`` for a pool not built by ``carry``."""
    status = carry_status(engine, pool_name)
    if status is None:
        raise LocalizedError("carry_accept_not_carried", pool=pool_name)
    sources: dict[tuple[str, str], list[str]] = defaultdict(list)  # the same-text chunks
    for chunk in status.chunks:
        for shared in chunk.overlaps:
            if pair_class(chunk, shared) == ACCEPTED_CLASS:
                sources[(chunk.query_id, shared.chunk_id)].append(chunk.chunk_id)
    waiting = set(resolution.unresolved) - judged
    accepted, refused = {}, 0
    for key, (grade, mapping) in sorted(carried_grades(status.chunks).items()):
        if mapping != ACCEPTED_CLASS or not sources[key] or key not in waiting:
            continue
        if splits.get(key[0]) == "dev":
            accepted[key] = grade
        else:
            refused += 1
    records = [
        record(
            CARRIED,
            judge=status.lineage["judge"],
            query_id=query_id,
            chunk_id=chunk_id,
            grade=grade,
            mapping=ACCEPTED_CLASS,
            from_release=status.lineage["release"],
            from_chunks=sorted(sources[(query_id, chunk_id)]),
        )
        for (query_id, chunk_id), grade in accepted.items()
    ]
    resolved = Resolution(
        # The resolution's grades are the merge of every kind above a carried grade.
        merged(carried=accepted, agreed=resolution.grades),
        [key for key in resolution.unresolved if key not in accepted],
        resolution.adjudicated,
    )
    return Accepted(resolved, records, refused)
