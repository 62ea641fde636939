"""Writing a release's folder (``pooling.release_folder`` reads it): the files written from a
snapshot and its resolution, and the manifest that says what they belong to."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import orjson
import pandas as pd

from annotator.quality import agreement
from annotator.quality.adjudication import Resolution
from pooling.document_places import Place
from pooling.grades import EVIDENCE
from pooling.qrels import Qrels
from pooling.release_folder import (
    ADDED_LATER,
    CHUNK_MAP,
    CHUNK_MAP_HEADER,
    CHUNK_PLACES,
    CHUNK_PLACES_HEADER,
    FILES,
    MANIFEST,
    MODEL_JUDGMENTS,
    POOL_UNJUDGED,
    POOL_UNJUDGED_HEADER,
    SAMPLE,
    Tally,
    sha256_of,
)
from pooling.release_format import JUDGMENTS, MODEL_FIELDS
from pooling.resolution import frame_of
from storage.release_lines import ReleaseHistory
from storage.release_records import ReleaseSnapshot

NO_EVIDENCE = "no chunk graded 2 or more"


def _write_jsonl(path: Path, records: Iterable[dict]) -> None:
    """``records`` appended to ``path`` as they come, one JSON object a line, in UTF-8.
    orjson: a release writes a million judgments, each encoded once without Python's
    standard encoder."""
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    with open(path, "ab") as handle:
        handle.writelines(dumps(record, option=newline) for record in records)


def write_judgments(folder: Path, records: Iterable[dict]) -> Tally:
    """``records`` (judgments, adjudications, gold items, carried grades) appended to the
    ``judgments.jsonl`` of ``folder`` as they come; returns the ``Tally`` of what they
    said. A release decides its grades from this tally, so its files say exactly what
    decided them."""
    seen = Tally()
    _write_jsonl(folder / JUDGMENTS, seen.noting(records))
    return seen


def write_history(folder: Path, judged: ReleaseHistory) -> tuple[pd.DataFrame, set[str]]:
    """The judgments of ``judged`` (``storage.release_lines.release_history``) appended to the
    ``judgments.jsonl`` of ``folder`` a batch at a time; returns the judgments frame of
    the current grades (each person's last judgment of a candidate, in the order ``Tally``
    gives them, which ``pooling.release_folder.recompute`` reads back from the lines; its
    query and chunk ids categorical, ``_named``) and the rubric versions they were made
    under. Held meanwhile: four numbers a judgment."""
    people, queries, chunks, grades = [], [], [], []
    rubrics: set[str] = set()
    with open(folder / JUDGMENTS, "a", encoding="utf-8", newline="") as handle:
        for lines in judged.batches:
            handle.write(lines.text)
            people.append(np.array(lines.people, dtype=np.int64))
            queries.append(lines.queries)
            chunks.append(lines.chunks)
            grades.append(np.array(lines.grades, dtype=float))  # unsure (None): NaN
            rubrics.update(lines.rubrics)
    rubrics.discard("")
    columns = ["annotator", "query_id", "chunk_id", "grade"]
    if not people:
        return frame_of([], columns), rubrics
    people_, queries_, chunks_ = (np.concatenate(parts) for parts in (people, queries, chunks))
    grade = np.concatenate(grades)
    # One integer per (person, query, chunk), numbered in the order of its first judgment
    # (as a dict keyed by them keeps them): whole columns hashed, never grouped by three.
    pair = pd.factorize(people_ * (queries_.max() + 1) + queries_)[0].astype(np.int64)
    codes, uniques = pd.factorize(pair * (chunks_.max() + 1) + chunks_)
    # A person's current grade of a candidate is their last; its place is their first
    # judgment of it: where the numbering reaches a new number.
    numbered = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.r_[True, numbered[1:] > numbered[:-1]])
    last = ~pd.Series(codes).duplicated(keep="last").to_numpy()
    current = np.empty(len(uniques))
    current[codes[last]] = grade[last]
    frame = pd.DataFrame(
        {
            "annotator": pd.Series(people_[first]).map(judged.people),
            "query_id": _named(queries_[first], judged.query_ids),
            "chunk_id": _named(chunks_[first], judged.chunk_ids),
            "grade": pd.Series(current).astype("Int64"),
        }
    )
    return frame, rubrics


def _named(keys: np.ndarray, names: dict[int, str]) -> pd.Categorical:
    """``keys`` by their ``names``, as categories in the names' sorted order: what is grouped
    by them (``pooling.resolution.statuses``, the alpha's units) is grouped by integer codes
    in the order the names would give, where a million names as text took a quarter of
    the resolve and the alpha at L."""
    found, codes = np.unique(keys, return_inverse=True)
    labels = [names[key] for key in found.tolist()]
    order = sorted(range(len(labels)), key=labels.__getitem__)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return pd.Categorical.from_codes(rank[codes], [labels[i] for i in order])


def write_model_judgments(
    folder: Path, rows: Iterable[tuple[str, str, str, int, str | None]]
) -> None:
    """``model_judgments.jsonl`` from ``(model, query_id, chunk_id, grade, prompt_hash)``
    rows (the model judges' current grades, ``storage.history.model_candidate_judgments``;
    the prompt hash None where the grade was imported rather than asked by ``qrels
    judge``)."""
    (folder / MODEL_JUDGMENTS).touch()
    _write_jsonl(
        folder / MODEL_JUDGMENTS,
        (dict(zip(MODEL_FIELDS, (m, h, q, c, g), strict=True)) for m, q, c, g, h in rows),
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


def _write_pool_unjudged(path: Path, snapshot: ReleaseSnapshot, resolution: Resolution) -> int:
    """The pool's candidates without a grade in the release, each with why; returns how many."""
    unjudged = {key: "unresolved" for key in resolution.unresolved}
    unjudged.update(dict.fromkeys(snapshot.not_chosen, "not_chosen"))
    rows = sorted((*key, why) for key, why in unjudged.items() if key not in resolution.grades)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\t".join(POOL_UNJUDGED_HEADER) + "\n")
        handle.writelines("\t".join(row) + "\n" for row in rows)
    return len(rows)


def _write_chunk_places(path: Path, places: dict[str, Place]) -> None:
    """Each chunk's pages and section, where any chunk has one (no file otherwise: a
    manifest lists what was written)."""
    rows = [(chunk, place) for chunk, place in sorted(places.items()) if place != Place()]
    if not rows:
        return
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\t".join(CHUNK_PLACES_HEADER) + "\n")
        handle.writelines(
            f"{chunk}\t{place.pages()}\t{' '.join(place.section.split())}\n"
            for chunk, place in rows
        )


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
    places: dict[str, Place] | None = None,
) -> tuple[dict, str]:
    """Write the release's files and manifest into ``folder`` (which holds nothing but
    the ``judgments.jsonl`` of ``write_judgments``) from the snapshot, its ``resolution``,
    the current judgments ``frame`` (for agreement), chunk -> document ``parents`` and the
    ``rubrics`` the judgments were made under; returns the manifest and its sha256.
    ``derived_from`` (a pool carried from another release:
    ``annotator.releases.carry.derived_from``) goes into the manifest as it is; ``places``
    (chunk id -> page and section) into ``chunk-places.tsv``."""
    qrels = Qrels.from_dict({}, version)
    # Unsorted: every file sorts what it writes (``Qrels.save``), and the counts need none.
    for (query_id, chunk_id), grade in resolution.grades.items():
        qrels.grades.setdefault(query_id, {})[chunk_id] = grade
    qrels.save(folder / "qrels.trec")
    qrels.save(folder / "qrels.tsv", "beir")
    qrels.documents(parents).save(folder / "qrels-doc.trec")
    queries = _query_records(snapshot, qrels)
    _write_jsonl(folder / "queries.jsonl", queries)
    _write_chunk_map(folder / CHUNK_MAP, parents)
    _write_chunk_places(folder / CHUNK_PLACES, places or {})
    pooled_unjudged = _write_pool_unjudged(folder / POOL_UNJUDGED, snapshot, resolution)
    gold = {(g.query_id, g.chunk_id) for g in snapshot.gold}
    graded = agreement.without_gold(frame, gold).dropna(subset=["grade"])
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
            "pooled_unjudged": pooled_unjudged,
            # The queries with no chunk graded 2 or more; not the queries evaluate leaves
            # out, which have nothing graded --threshold.
            "queries_without_grade_2": sum(1 for q in queries if q["flags"]),
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
