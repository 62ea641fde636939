"""Runs imported into the database (``qrels import run``): their names and their entries,
for a query set and corpus version (pools are built from them; Evaluate offers them)."""

from __future__ import annotations

from sqlmodel import Session, select

from pooling.i18n import NotFound
from pooling.run import Run
from storage.models import Chunk, CorpusVersion, Query, QuerySet, RunEntry, System


def imported_run_names(
    query_set: QuerySet, corpus_version: CorpusVersion, *, session: Session
) -> list[str]:
    """The names of the runs imported for this query set and corpus version, sorted."""
    return sorted(
        session.exec(
            select(System.name).where(
                System.kind == "external_run",
                System.query_set_id == query_set.id,
                System.corpus_version_id == corpus_version.id,
            )
        ).all()
    )


def imported_runs(
    names: list[str], query_set: QuerySet, corpus_version: CorpusVersion, *, session: Session
) -> dict[str, Run]:
    """The runs imported under ``names`` for this query set and corpus version; raises
    ``NotFound`` naming the runs there are when one is missing."""
    systems = session.exec(
        select(System).where(
            System.kind == "external_run",
            System.query_set_id == query_set.id,
            System.corpus_version_id == corpus_version.id,
        )
    ).all()
    by_name = {s.name: s for s in systems}
    for name in names:
        if name not in by_name:
            known = ", ".join(sorted(by_name)) or "-"
            raise NotFound("run_unknown", name=name, known=known)
    runs = {}
    for name in names:
        rows = session.exec(
            select(Query.query_id, Chunk.chunk_id, RunEntry.score)
            .join(Query, Query.id == RunEntry.query_id)
            .join(Chunk, Chunk.id == RunEntry.chunk_id)
            .where(RunEntry.system_id == by_name[name].id)
        ).all()
        scores: dict[str, dict[str, float]] = {}
        for query_id, chunk_id, score in rows:
            scores.setdefault(query_id, {})[chunk_id] = score
        runs[name] = Run(scores, name)
    return runs
