"""Read what the database holds: find versions by name, map user ids to keys, summarise.

Every function takes a keyword-only ``session`` and only reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import distinct, func
from sqlmodel import Session, select

from pooling.i18n import NotFound
from storage.models import (
    Chunk,
    CorpusVersion,
    Document,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    RunEntry,
    System,
    User,
)


def _resolve(model, name: str | None, *, session: Session, kind: str, option: str):
    rows = session.exec(select(model).order_by(model.name)).all()
    known = ", ".join(r.name for r in rows) or "-"
    if name is None:
        if not rows:
            raise NotFound("version_none", kind=f"@{kind}")
        if len(rows) > 1:
            raise NotFound("version_ambiguous", kind=f"@{kind}", known=known, option=option)
        return rows[0]
    for row in rows:
        if row.name == name:
            return row
    raise NotFound("version_unknown", kind=f"@{kind}", name=name, known=known)


def resolve_query_set(name: str | None, *, session: Session) -> QuerySet:
    """The query set called ``name``; with None, the only one in the database."""
    return _resolve(QuerySet, name, session=session, kind="kind_query_set", option="--query-set")


def resolve_corpus_version(name: str | None, *, session: Session) -> CorpusVersion:
    """The corpus version called ``name``; with None, the only one in the database."""
    return _resolve(
        CorpusVersion, name, session=session, kind="kind_corpus_version", option="--corpus-version"
    )


def version_names(*, session: Session) -> tuple[list[str], list[str]]:
    """The names of all query sets and of all corpus versions."""
    return [q.name for q in _all(QuerySet, session)], [c.name for c in _all(CorpusVersion, session)]


def query_keys(query_set: QuerySet, *, session: Session) -> dict[str, int]:
    """Query id -> primary key, for the queries of one set."""
    rows = session.exec(
        select(Query.query_id, Query.id).where(Query.query_set_id == query_set.id)
    ).all()
    return dict(rows)


def query_key_of(query_set_id: int, query_id: str, *, session: Session) -> int | None:
    """The primary key of one query of a set, or None."""
    return session.exec(
        select(Query.id).where(Query.query_set_id == query_set_id, Query.query_id == query_id)
    ).first()


def chunk_keys(corpus_version: CorpusVersion, *, session: Session) -> dict[str, int]:
    """Chunk id -> primary key, for the chunks of one corpus version."""
    rows = session.exec(
        select(Chunk.chunk_id, Chunk.id).where(Chunk.corpus_version_id == corpus_version.id)
    ).all()
    return dict(rows)


# -- status -----------------------------------------------------------------------------


@dataclass
class CorpusSummary:
    name: str
    documents: int
    chunks: int
    chunking: dict
    content_hash: str


@dataclass
class QuerySetSummary:
    name: str
    queries: int
    dev: int
    test: int
    unanswerable: int
    slices: dict[str, int]
    judgments: int
    judged_queries: int
    judgments_by_annotator: dict[str, int] = field(default_factory=dict)


@dataclass
class PoolSummary:
    name: str
    query_set: str
    corpus_version: str
    candidates: int
    overlap: int
    complete: int  # candidates with `overlap` judgments from distinct human annotators
    systems: str = ""  # the systems it was built from, as given (bm25,vector,rrf,run:NAME)


@dataclass
class Status:
    corpus_versions: list[CorpusSummary]
    query_sets: list[QuerySetSummary]
    systems: list[tuple[str, str, int]]  # name, kind, run entries
    pools: list[PoolSummary]
    users: dict[str, int]  # role -> accounts that can log in


def status(*, session: Session) -> Status:
    """A summary of everything the database holds, for ``qrels status``."""
    return Status(
        corpus_versions=[_corpus_summary(cv, session) for cv in _all(CorpusVersion, session)],
        query_sets=[_query_set_summary(qs, session) for qs in _all(QuerySet, session)],
        systems=_systems(session),
        pools=[pool_summary(pool, session) for pool in _all(Pool, session)],
        users=dict(
            session.exec(
                select(User.role, func.count())
                .where(User.password_hash.is_not(None), User.disabled == False)  # noqa: E712
                .group_by(User.role)
            ).all()
        ),
    )


def _all(model, session: Session) -> list:
    return list(session.exec(select(model).order_by(model.name)).all())


def _count(session: Session, statement) -> int:
    return session.exec(statement).one()


def _corpus_summary(cv: CorpusVersion, session: Session) -> CorpusSummary:
    return CorpusSummary(
        name=cv.name,
        documents=_count(session, select(func.count()).where(Document.corpus_version_id == cv.id)),
        chunks=_count(session, select(func.count()).where(Chunk.corpus_version_id == cv.id)),
        chunking=cv.chunking,
        content_hash=cv.content_hash,
    )


def _query_set_summary(qs: QuerySet, session: Session) -> QuerySetSummary:
    queries = session.exec(select(Query).where(Query.query_set_id == qs.id)).all()
    slices: dict[str, int] = {}
    for query in queries:
        for tag in query.slices:
            slices[tag] = slices.get(tag, 0) + 1
    in_set = select(Query.id).where(Query.query_set_id == qs.id)
    by_annotator = session.exec(
        select(User.name, func.count())
        .join(Judgment, Judgment.user_id == User.id)
        .where(Judgment.query_id.in_(in_set))
        .group_by(User.name)
        .order_by(User.name)
    ).all()
    return QuerySetSummary(
        name=qs.name,
        queries=len(queries),
        dev=sum(q.split == "dev" for q in queries),
        test=sum(q.split == "test" for q in queries),
        unanswerable=sum(not q.answerable for q in queries),
        slices=dict(sorted(slices.items())),
        judgments=sum(n for _, n in by_annotator),
        judged_queries=_count(
            session,
            select(func.count(distinct(Judgment.query_id))).where(Judgment.query_id.in_(in_set)),
        ),
        judgments_by_annotator=dict(by_annotator),
    )


def _systems(session: Session) -> list[tuple[str, str, int]]:
    rows = session.exec(
        select(System.name, System.kind, func.count(RunEntry.id))
        .join(RunEntry, RunEntry.system_id == System.id, isouter=True)
        .group_by(System.id, System.name, System.kind)
        .order_by(System.name)
    ).all()
    return [tuple(row) for row in rows]


def pool_summary(pool: Pool, session: Session, complete: int | None = None) -> PoolSummary:
    """A pool's size and how many candidates have their judgments; ``complete`` when the
    caller counted that already (``storage.counts.completions_by_hour`` adds up to it):
    counting it here looks at every candidate's judges again."""
    judges = (
        select(func.count(distinct(Judgment.user_id)))
        .join(User, User.id == Judgment.user_id)
        .where(
            User.kind == "human",
            Judgment.query_id == PoolCandidate.query_id,
            Judgment.chunk_id == PoolCandidate.chunk_id,
        )
        .scalar_subquery()
    )
    # An active pool's candidates not chosen yet (required 0) are not asked about.
    candidates = select(PoolCandidate.id).where(
        PoolCandidate.pool_id == pool.id, func.coalesce(PoolCandidate.required, 1) != 0
    )
    return PoolSummary(
        name=pool.name,
        query_set=session.get(QuerySet, pool.query_set_id).name,
        corpus_version=session.get(CorpusVersion, pool.corpus_version_id).name,
        candidates=_count(session, select(func.count()).select_from(candidates.subquery())),
        overlap=pool.overlap,
        systems=pool.config.get("systems_spec", ""),
        complete=complete
        if complete is not None
        else _count(
            session,
            select(func.count()).select_from(candidates.where(judges >= pool.overlap).subquery()),
        ),
    )
