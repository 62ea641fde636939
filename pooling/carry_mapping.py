"""Carrying judgments across a chunking change, as pure rules: which class each judged chunk
of a release falls in when mapped onto the chunks of another chunking of its document
(``pooling.spans`` maps one span), the grade and class each new chunk carries, and the rows
the database keeps of a mapping. ``annotator.releases.carry`` builds the carried pool from
these, and ``annotator.judge.carried_classes`` reads the classes of a carried judge's grades;
both stand on this module rather than one on the other. No database in here.

A document is carried when the new version holds it under the same id with the same text
(sha256). One that changed or vanished, or whose text or chunk spans are not known, is
reported and never mapped. A new chunk carries the grade of the judged chunk whose span it
has (``same_text``), else the highest grade of those mapping onto it, with the class of that
pair: only a same-text pair may ever be published unreviewed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pooling.qrels import Qrels
from pooling.spans import (
    DEFAULT_MIN_OVERLAP,
    LOST,
    MAPPED,
    Overlap,
    check_min_overlap,
    classify,
    map_span,
)


@dataclass(frozen=True)
class ChunkPlace:
    """A chunk's document and span (``start``/``end`` None where unknown)."""

    chunk_id: str
    doc_id: str
    start: int | None
    end: int | None


@dataclass(frozen=True)
class MappingRow:
    """One judged candidate of the release and one new chunk it maps onto (None, with no
    shares, when it maps onto nothing): the form the database keeps a mapping in
    (``storage.carry_records``)."""

    query_id: str
    old_chunk_id: str
    old_doc_id: str
    grade: int
    mapping: str
    new_chunk_id: str | None = None
    shared: int | None = None
    share_old: float | None = None
    share_new: float | None = None


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
            mapped[chunk_id] = map_place(
                place, by_document[place.doc_id], old_hashes, new_hashes, min_overlap
            )
        mapping, overlaps = mapped[chunk_id]
        carried.append(
            CarriedChunk(query_id, chunk_id, place.doc_id, grade, mapping, tuple(overlaps))
        )
    return carried


def map_place(
    place: ChunkPlace,
    new: list[ChunkPlace],
    old_hashes: Mapping[str, str | None],
    new_hashes: Mapping[str, str | None],
    min_overlap: float,
) -> tuple[str, list[Overlap]]:
    """The class of the judged chunk at ``place`` among the chunks ``new`` of its document in
    the other version, and the new chunks it maps onto (none when it is not mapped)."""
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


def mapping_rows_of(chunks: Iterable[CarriedChunk]) -> list[MappingRow]:
    """``chunks`` as the rows the database keeps (``carried_chunks`` reads them back)."""
    rows = []
    for chunk in chunks:
        old = (chunk.query_id, chunk.chunk_id, chunk.doc_id, chunk.grade, chunk.mapping)
        rows += [
            MappingRow(*old, o.chunk_id, o.shared, o.share_old, o.share_new) for o in chunk.overlaps
        ]
        if not chunk.overlaps:
            rows.append(MappingRow(*old))
    return rows


def carried_chunks(rows: Iterable[MappingRow]) -> list[CarriedChunk]:
    """The judged chunks that kept ``rows`` (``mapping_rows_of``) hold, in their order."""
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
