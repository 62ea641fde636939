"""What ``qrels status`` says the database holds, counted in a few grouped statements.

Every command pays for what it imports before it does anything, and ``status`` is the one
people run to see where things stand: so this reads the tables through SQLAlchemy's core
alone (``table``/``column``), without the models (building them costs more than a second
at start) and without loading rows one by one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from sqlalchemy import JSON, Boolean, column, distinct, func, literal, select, table
from sqlalchemy.engine import Connection

corpus_version = table("corpus_version", column("id"), column("name"), column("content_hash"))
corpus_version.append_column(column("chunking", JSON))
document = table("document", column("corpus_version_id"))
chunk = table("chunk", column("corpus_version_id"))
query_set = table("query_set", column("id"), column("name"))
query = table("query", column("id"), column("query_set_id"), column("split"))
query.append_column(column("answerable", Boolean))
query.append_column(column("slices", JSON))
judgment = table("judgment", column("query_id"), column("chunk_id"), column("user_id"))
app_user = table("app_user", column("id"), column("name"), column("role"), column("kind"))
app_user.append_column(column("password_hash"))
app_user.append_column(column("disabled", Boolean))
system = table("system", column("id"), column("name"), column("kind"))
run_entry = table("run_entry", column("id"), column("system_id"))
pool = table("pool", column("id"), column("name"), column("overlap"), column("config", JSON))
pool.append_column(column("query_set_id"))
pool.append_column(column("corpus_version_id"))
pool_candidate = table(
    "pool_candidate", column("pool_id"), column("query_id"), column("chunk_id"), column("required")
)


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


def status(connection: Connection) -> Status:
    """A summary of everything the database holds, for ``qrels status``, read on
    ``connection`` (in a snapshot: ``storage.db.snapshot_scope``)."""
    return Status(
        corpus_versions=_corpora(connection),
        query_sets=_query_sets(connection),
        systems=[
            tuple(row)
            for row in connection.execute(
                select(system.c.name, system.c.kind, func.count(run_entry.c.id))
                .select_from(system.outerjoin(run_entry, run_entry.c.system_id == system.c.id))
                .group_by(system.c.id, system.c.name, system.c.kind)
                .order_by(system.c.name)
            )
        ],
        pools=_pools(connection),
        users=dict(
            connection.execute(
                select(app_user.c.role, func.count())
                .where(app_user.c.password_hash.is_not(None), app_user.c.disabled.is_(False))
                .group_by(app_user.c.role)
            ).all()
        ),
    )


def _per_version(connection: Connection, key) -> dict[int, int]:
    return dict(connection.execute(select(key, func.count()).group_by(key)).all())


def _corpora(connection: Connection) -> list[CorpusSummary]:
    documents = _per_version(connection, document.c.corpus_version_id)
    chunks = _per_version(connection, chunk.c.corpus_version_id)
    versions = connection.execute(select(corpus_version).order_by(corpus_version.c.name))
    return [
        CorpusSummary(
            cv.name, documents.get(cv.id, 0), chunks.get(cv.id, 0), cv.chunking, cv.content_hash
        )
        for cv in versions
    ]


def _query_sets(connection: Connection) -> list[QuerySetSummary]:
    queries: dict[int, list] = {}
    for row in connection.execute(
        select(query.c.query_set_id, query.c.split, query.c.answerable, query.c.slices)
    ):
        queries.setdefault(row.query_set_id, []).append(row)
    names = dict(connection.execute(select(app_user.c.id, app_user.c.name)).all())
    sets = list(connection.execute(select(query_set).order_by(query_set.c.name)))
    per_person = (
        select(query.c.query_set_id, judgment.c.user_id, func.count())
        .join_from(judgment, query, query.c.id == judgment.c.query_id)
        .group_by(query.c.query_set_id, judgment.c.user_id)
    )
    if len(sets) == 1:  # every judgment is on its queries: counted per person from an index
        per_person = select(literal(sets[0].id), judgment.c.user_id, func.count()).group_by(
            judgment.c.user_id
        )
    people: dict[int, dict[str, int]] = {}
    for set_id, user, count in connection.execute(per_person):
        people.setdefault(set_id, {})[names[user]] = count
    # A query is judged when any judgment names it: one indexed look per query.
    judged: dict[int, int] = dict(
        connection.execute(
            select(query.c.query_set_id, func.count())
            .where(select(judgment.c.query_id).where(judgment.c.query_id == query.c.id).exists())
            .group_by(query.c.query_set_id)
        ).all()
    )
    summaries = []
    for qs in sets:
        rows, by_annotator = queries.get(qs.id, []), dict(sorted(people.get(qs.id, {}).items()))
        slices = Counter(tag for row in rows for tag in row.slices)
        summaries.append(
            QuerySetSummary(
                name=qs.name,
                queries=len(rows),
                dev=sum(row.split == "dev" for row in rows),
                test=sum(row.split == "test" for row in rows),
                unanswerable=sum(not row.answerable for row in rows),
                slices=dict(sorted(slices.items())),
                judgments=sum(by_annotator.values()),
                judged_queries=judged.get(qs.id, 0),
                judgments_by_annotator=by_annotator,
            )
        )
    return summaries


def _pools(connection: Connection) -> list[PoolSummary]:
    set_names = dict(connection.execute(select(query_set.c.id, query_set.c.name)).all())
    version_names = dict(
        connection.execute(select(corpus_version.c.id, corpus_version.c.name)).all()
    )
    return [
        replace(
            pool_counts(
                connection,
                p.id,
                p.name,
                set_names[p.query_set_id],
                version_names[p.corpus_version_id],
                p.overlap,
            ),
            systems=(p.config or {}).get("systems_spec", ""),
        )
        for p in connection.execute(select(pool).order_by(pool.c.name))
    ]


def pool_counts(
    connection: Connection,
    pool_id: int,
    name: str,
    query_set_name: str,
    corpus_version_name: str,
    overlap: int,
    complete: int | None = None,
) -> PoolSummary:
    """A pool's size and how many candidates have their judgments; ``complete`` when the
    caller counted that already (``storage.counts.completions_by_hour`` adds up to it):
    counting it here looks at every candidate's judges again."""
    # An active pool's candidates not chosen yet (required 0) are not asked about.
    asked = pool_candidate.c.pool_id == pool_id, func.coalesce(pool_candidate.c.required, 1) != 0
    if complete is None:
        complete = connection.execute(
            select(func.count()).where(*asked, _human_judges() >= overlap)
        ).scalar_one()
    return PoolSummary(
        name=name,
        query_set=query_set_name,
        corpus_version=corpus_version_name,
        candidates=connection.execute(select(func.count()).where(*asked)).scalar_one(),
        overlap=overlap,
        complete=complete,
    )


def _human_judges():
    """How many distinct human annotators judged the candidate of the enclosing query (a
    correlated subquery on ``pool_candidate``): a candidate is complete at its pool's
    overlap. Judgments count from anywhere, the app or an import."""
    return (
        select(func.count(distinct(judgment.c.user_id)))
        .join_from(judgment, app_user, app_user.c.id == judgment.c.user_id)
        .where(
            app_user.c.kind == "human",
            judgment.c.query_id == pool_candidate.c.query_id,
            judgment.c.chunk_id == pool_candidate.c.chunk_id,
        )
        .scalar_subquery()
    )
