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
with the class of that pair: only a same-text pair may ever be published unreviewed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from annotator.quality.adjudication import Resolution
from pooling.i18n import LocalizedError, NotFound
from pooling.pool import Candidate, Source
from pooling.qrels import Qrels
from pooling.release_folder import MANIFEST, read_qrels, sha256_of
from pooling.resolution import merged
from pooling.spans import (
    DEFAULT_MIN_OVERLAP,
    LOST,
    MAPPED,
    Overlap,
    check_min_overlap,
    classify,
    map_span,
)
from storage import carry_records
from storage.carry_records import MappingRow
from storage.chunk_spans import ChunkPlace, chunk_places, document_hashes
from storage.db import referenced, session_scope, snapshot_scope
from storage.release_records import recorded_release

if TYPE_CHECKING:  # the retrievers behind pool_records load only when a pool is built
    from storage.pool_records import PoolResult

JUDGE_PREFIX = "carried:"
# Mapping classes in the order the issue names them, then why a judged chunk was not mapped.
CLASSES = ("same_text", "split", "merged", "partial", LOST)
UNMAPPED = ("document_changed", "document_missing", "document_unknown", "span_unknown")
ACCEPTED_CLASS = "same_text"  # the only class --accept-carried publishes, for dev queries


@dataclass(frozen=True)
class CarriedChunk:
    """A judged candidate of the release: the old chunk and its document, the released
    grade, the mapping class (``CLASSES``) or why it was not mapped (``UNMAPPED``), and the
    new chunks it maps onto."""

    query_id: str
    chunk_id: str
    doc_id: str
    grade: int
    mapping: str
    overlaps: tuple[Overlap, ...] = ()


def plan(
    qrels: Qrels,
    old: Mapping[str, ChunkPlace],
    new: Iterable[ChunkPlace],
    old_hashes: Mapping[str, str | None],
    new_hashes: Mapping[str, str | None],
    min_overlap: float = DEFAULT_MIN_OVERLAP,
) -> list[CarriedChunk]:
    """Every judgment of ``qrels`` mapped from the chunks ``old`` (chunk id -> place) onto
    the chunks ``new`` of another version; ``*_hashes`` are each version's document text
    hashes. Raises ``LocalizedError`` for a ``min_overlap`` outside (0, 1]."""
    check_min_overlap(min_overlap)
    by_document: dict[str, list[ChunkPlace]] = defaultdict(list)
    for place in new:
        by_document[place.doc_id].append(place)
    mapped: dict[str, tuple[str, list[Overlap]]] = {}
    carried = []
    for query_id, chunk_id, grade in qrels.judgments():
        place = old[chunk_id]
        if chunk_id not in mapped:
            mapped[chunk_id] = _map(
                place, by_document[place.doc_id], old_hashes, new_hashes, min_overlap
            )
        mapping, overlaps = mapped[chunk_id]
        carried.append(
            CarriedChunk(query_id, chunk_id, place.doc_id, grade, mapping, tuple(overlaps))
        )
    return carried


def _map(
    place: ChunkPlace,
    new: list[ChunkPlace],
    old_hashes: Mapping[str, str | None],
    new_hashes: Mapping[str, str | None],
    min_overlap: float,
) -> tuple[str, list[Overlap]]:
    if place.doc_id not in new_hashes:
        return "document_missing", []
    before, after = old_hashes.get(place.doc_id), new_hashes[place.doc_id]
    if before is None or after is None:
        return "document_unknown", []
    if before != after:
        return "document_changed", []
    spans = [
        (chunk.chunk_id, chunk.start, chunk.end)
        for chunk in new
        if chunk.start is not None and chunk.end is not None
    ]
    if place.start is None or place.end is None or len(spans) < len(new):
        return "span_unknown", []
    return map_span((place.start, place.end), spans, min_overlap)


def carried_grades(chunks: Iterable[CarriedChunk]) -> dict[tuple[str, str], tuple[int, str]]:
    """(query id, new chunk id) -> the grade carried onto it and its mapping class. The
    class is that of the pair (old chunk, new chunk), not of the old chunk: a new chunk is
    ``same_text`` only when its span is the judged chunk's, in a document whose text hash
    is the same (``plan`` maps nothing else), so a neighbour that merely overlaps a
    same-text chunk is not "same text". A new chunk with a same-text judged chunk carries
    that chunk's grade; else the highest grade of the judged chunks mapping onto it, and
    among those the most faithful class (``pooling.spans.MAPPED`` order)."""
    best: dict[tuple[str, str], tuple[int, str]] = {}
    for chunk in chunks:
        for shared in chunk.overlaps:
            key = (chunk.query_id, shared.chunk_id)
            offer = (chunk.grade, pair_class(chunk, shared))
            if key not in best or _rank(offer) > _rank(best[key]):
                best[key] = offer
    return best


def pair_class(chunk: CarriedChunk, shared: Overlap) -> str:
    """The mapping class of one judged chunk and one new chunk it maps onto."""
    return classify([shared]) if chunk.mapping in MAPPED else chunk.mapping


def _rank(offer: tuple[int, str]) -> tuple[bool, int, int]:
    grade, mapping = offer
    return mapping == ACCEPTED_CLASS, grade, -MAPPED.index(mapping)


def class_counts(chunks: Iterable[CarriedChunk]) -> dict[str, int]:
    """How many judged candidates fall in each mapping class and each unmapped reason."""
    found = Counter(chunk.mapping for chunk in chunks)
    return {name: found[name] for name in (*CLASSES, *UNMAPPED)}


def unmapped_documents(chunks: Iterable[CarriedChunk]) -> dict[str, list[str]]:
    """Per reason a judged document was not mapped (``UNMAPPED``), its documents."""
    found: dict[str, set[str]] = {reason: set() for reason in UNMAPPED}
    for chunk in chunks:
        if chunk.mapping in found:
            found[chunk.mapping].add(chunk.doc_id)
    return {reason: sorted(docs) for reason, docs in found.items()}


def _rows(chunks: Iterable[CarriedChunk]) -> list[MappingRow]:
    rows = []
    for chunk in chunks:
        old = (chunk.query_id, chunk.chunk_id, chunk.doc_id, chunk.grade, chunk.mapping)
        rows += [
            MappingRow(*old, o.chunk_id, o.shared, o.share_old, o.share_new) for o in chunk.overlaps
        ]
        if not chunk.overlaps:
            rows.append(MappingRow(*old))
    return rows


def _chunks(rows: Iterable[MappingRow]) -> list[CarriedChunk]:
    grouped: dict[tuple[str, str], tuple[MappingRow, list[Overlap]]] = {}
    for row in rows:
        _, overlaps = grouped.setdefault((row.query_id, row.old_chunk_id), (row, []))
        # A mapped row (a new chunk) has its overlap; an unmapped one has none of these.
        shared, share_old, share_new = row.shared, row.share_old, row.share_new
        if row.new_chunk_id is not None and (
            shared is not None and share_old is not None and share_new is not None
        ):
            overlaps.append(Overlap(row.new_chunk_id, shared, share_old, share_new))
    return [
        CarriedChunk(r.query_id, r.old_chunk_id, r.old_doc_id, r.grade, r.mapping, tuple(o))
        for r, o in grouped.values()
    ]


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
        carry_records.record_mappings(pool, old_version, _rows(chunks), session=session)
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
        chunks = _chunks(carry_records.mapping_rows(pool, session=session))
        graded = {(row[1], row[2]) for row in candidate_judgments(pool, session=session)}
    grades = carried_grades(chunks)
    offered = Counter(mapping for _, mapping in grades.values())
    re_judged = Counter(mapping for key, (_, mapping) in grades.items() if key in graded)
    judged = class_counts(chunks)
    classes = [ClassRow(name, judged[name], offered[name], re_judged[name]) for name in judged]
    return CarryStatus(pool.config["carried"], classes, unmapped_documents(chunks), chunks)


def judge_classes(engine: Engine, judge: str, corpus_version: str) -> dict[tuple[str, str], str]:
    """(query id, chunk id) -> mapping class of the grades ``judge`` carried onto
    ``corpus_version``; empty for a judge that carried nothing there."""
    from storage.models import CorpusVersion

    classes: dict[tuple[str, str], str] = {}
    with snapshot_scope(engine) as session:
        for pool in carry_records.carried_pools(session=session):
            version = referenced(CorpusVersion, pool.corpus_version_id, session=session)
            if pool.config["carried"]["judge"] == judge and version.name == corpus_version:
                rows = carry_records.mapping_rows(pool, session=session)
                classes.update(
                    {key: mapping for key, (_, mapping) in carried_grades(_chunks(rows)).items()}
                )
    return classes


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
    records: list[dict]  # for judgments.jsonl, marked ``"type": "carried"``
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
        {
            "type": "carried",
            "judge": status.lineage["judge"],
            "query_id": query_id,
            "chunk_id": chunk_id,
            "grade": grade,
            "mapping": ACCEPTED_CLASS,
            "from_release": status.lineage["release"],
            "from_chunks": sorted(sources[(query_id, chunk_id)]),
        }
        for (query_id, chunk_id), grade in accepted.items()
    ]
    resolved = Resolution(
        # The resolution's grades are the merge of every kind above a carried grade.
        merged(carried=accepted, agreed=resolution.grades),
        [key for key in resolution.unresolved if key not in accepted],
        resolution.adjudicated,
    )
    return Accepted(resolved, records, refused)
