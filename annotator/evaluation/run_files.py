"""Runs as an evaluation reads them: a run file (TREC, JSONL or CSV) with the sha256 of its
bytes, its ids
checked against the release's chunk map (a document run against chunk qrels is refused
instead of scoring 0; at document level a chunk run is reduced to documents by its best
chunk), and its ties ranked as trec_eval ranks them. No Streamlit in here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from pooling.i18n import LocalizedError, NotFound, check_name
from pooling.release_folder import read_chunk_map, read_manifest, sha256_of
from pooling.run import Run
from storage.catalog import resolve_corpus_version, resolve_query_set
from storage.db import session_scope
from storage.run_records import imported_run_names, imported_runs

LEVELS = ("chunk", "doc")


@dataclass
class RunFile:
    """A run and where it came from: ``source`` (a path or an upload's name) and the
    sha256 of its bytes (None for a run made in memory)."""

    run: Run
    source: str
    sha256: str | None = None


def read_run_file(path: os.PathLike | str, name: str | None = None) -> RunFile:
    """A run file (TREC, JSONL or CSV, told from the content) with its sha256, named
    ``name``, else by its one tag, else by its file name (``Run.from_file``); raises
    ``InputError`` (file, line, field)."""
    run = Run.from_file(path, name)
    return RunFile(run, str(path), sha256_of(Path(os.fspath(path))))


def stored_run_names(engine: Engine, folder: Path | str) -> list[str]:
    """The runs imported into the database (``qrels import run``) for the query set and
    corpus version of the release in ``folder``: those it can score without an upload
    (none when the database no longer holds that query set or corpus version)."""
    manifest = read_manifest(folder)
    with session_scope(engine) as session:
        try:
            qs = resolve_query_set(manifest["query_set"]["name"], session=session)
            cv = resolve_corpus_version(manifest["corpus_version"]["name"], session=session)
        except NotFound:
            return []
        return imported_run_names(qs, cv, session=session)


def stored_runs(engine: Engine, folder: Path | str, names: list[str]) -> list[RunFile]:
    """The runs imported under ``names`` for the release in ``folder`` (its query set and
    corpus version), in that order, each named as imported; raises ``NotFound`` for a
    name not imported there."""
    if not names:  # nothing to look up: a release of a query set no longer held still scores
        return []
    manifest = read_manifest(folder)
    with session_scope(engine) as session:
        qs = resolve_query_set(manifest["query_set"]["name"], session=session)
        cv = resolve_corpus_version(manifest["corpus_version"]["name"], session=session)
        runs = imported_runs(names, qs, cv, session=session)
    return [RunFile(runs[name], f"database:{name}") for name in names]


def check_names(runs: list[RunFile]) -> None:
    """Raises ``LocalizedError`` when two runs have one name: every figure, comparison and
    gate line names its run, so two of one name could not be told apart."""
    first: dict[str, str] = {}
    for source in runs:
        name = source.run.name
        if name in first:
            raise LocalizedError(
                "run_name_repeated", name=name, first=first[name], second=source.source
            )
        first[name] = source.source


def checked_run(
    run: Run, parents: dict[str, str] | None, level: str, corpus: str = "?"
) -> tuple[Run, str]:
    """``run`` as it is scored at ``level`` (``chunk`` or ``doc``) against a release whose
    chunk map is ``parents`` (chunk id -> document id, of corpus version ``corpus``), and
    what its ids are: ``chunk``, ``doc``, or ``unchecked`` without a chunk map. A chunk run
    at document level is reduced to documents by its best chunk. Raises
    ``LocalizedError`` when the ids are document ids against chunk qrels, mix both, or are
    in no corpus version of the release."""
    check_name(level, LEVELS, "what_level")
    if parents is None:
        return run, "unchecked"
    ids = {item for ranking in run.scores.values() for item in ranking}
    chunks, documents = parents.keys(), set(parents.values())
    params = {"run": run.name, "total": len(ids), "corpus": corpus}
    if level == "chunk":
        strangers = ids - chunks
        if not strangers:
            return run, "chunk"
        if strangers <= documents:
            raise LocalizedError(
                "run_ids_documents", count=len(strangers), example=min(strangers), **params
            )
    else:
        if ids <= documents:
            return run, "doc"
        if ids <= chunks:
            return best_chunk(run, parents), "chunk"
        strangers = ids - chunks - documents
        if not strangers:
            raise LocalizedError("run_ids_mixed", **params)
    unknown = strangers - documents
    raise LocalizedError("run_ids_unknown", count=len(unknown), example=min(unknown), **params)


def checked_against(folder: Path | str, run: Run, level: str = "chunk") -> Run:
    """``checked_run`` against the release in ``folder`` (its ``chunks.tsv``)."""
    corpus = read_manifest(folder).get("corpus_version", {}).get("name", "?")
    return checked_run(run, read_chunk_map(folder), level, corpus)[0]


def best_chunk(run: Run, parents: dict[str, str]) -> Run:
    """A chunk run as a document run: each document scored by its best chunk."""
    scores: dict[str, dict[str, float]] = {}
    for query_id, ranking in run.scores.items():
        documents = scores.setdefault(query_id, {})
        for chunk, score in ranking.items():
            document = parents[chunk]
            documents[document] = max(score, documents.get(document, score))
    return Run(scores, run.name)


def trec_order(run: Run) -> Run:
    """The run with each query's scores replaced by n, n-1, ..., 1 in trec_eval's order
    (score descending, ties by id descending), so that every ir_measures provider and
    Judged@k read the ranking trec_eval reads."""
    ranked = {}
    for query_id, ranking in run.scores.items():
        ordered = sorted(ranking.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)
        ranked[query_id] = {item: float(len(ordered) - i) for i, (item, _) in enumerate(ordered)}
    return Run(ranked, run.name)
