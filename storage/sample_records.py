"""Query samples of a pool (``storage.sample_tables``): record one, read the one in force
(the newest) with every draw of the pool before it, count the sampled queries people have
judged (what a new draw would throw away), and the sampled queries that still have work
open, for the assignment to hand out first. Every function takes a keyword-only
``session``; only ``record_sample`` writes, and never changes what was recorded."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, select

from pooling.i18n import LocalizedError
from pooling.query_sampling import Member
from pooling.release_format import SAMPLE_FORMAT
from storage.catalog import query_keys
from storage.db import paged
from storage.models import Judgment, Pool, PoolCandidate, Query, QuerySet, QueryTally, User
from storage.sample_tables import QuerySample, QuerySampleMember


@dataclass(frozen=True)
class Draw:
    """One draw of a pool's sample, as a release's ``sample.json`` lists it: its number
    (from 1), design, size asked, seed, time, the acting account (None: the command line),
    how many queries of the sample then in force people had judged (None: not kept then),
    and why it was drawn (None: not said)."""

    number: int
    design: str
    requested: str
    seed: int
    created_at: str
    account: str | None
    judged_before: int | None
    reason: str | None

    def to_dict(self) -> dict:
        return {
            "draw": self.number,
            "design": self.design,
            "requested": self.requested,
            "seed": self.seed,
            "created_at": self.created_at,
            "account": self.account,
            "judged_before": self.judged_before,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class SampleRecord:
    """A recorded sample, with its members as ``Member``s in the order drawn, and every
    draw of its pool up to it (``draws``, oldest first: it is the last)."""

    id: int
    pool: str
    design: str
    requested: str
    size: int
    population: int
    seed: int
    model: str | None
    config: dict
    created_at: str
    members: list[Member]
    draws: list[Draw]

    def to_dict(self) -> dict:
        """The sample as a release's ``sample.json`` holds it."""
        return {
            "format": SAMPLE_FORMAT,
            "design": self.design,
            "requested": self.requested,
            "size": self.size,
            "population": self.population,
            "seed": self.seed,
            "model": self.model,
            "config": self.config,
            "created_at": self.created_at,
            "queries": [
                {"query_id": m.query_id, "probability": m.probability, "stratum": m.stratum}
                for m in self.members
            ],
            "draws": [draw.to_dict() for draw in self.draws],
        }


def record_sample(
    pool: Pool,
    members: Sequence[Member],
    *,
    design: str,
    requested: str,
    population: int,
    seed: int,
    model: str | None = None,
    config: dict | None = None,
    user: User | None = None,
    judged_before: int = 0,
    reason: str | None = None,
    session: Session,
) -> QuerySample:
    """Record a sample of ``pool``'s queries (``members`` in the order drawn), drawn by
    ``user`` when ``judged_before`` queries of the sample in force had been judged, for
    ``reason``. Raises ``LocalizedError`` for a query id the pool's query set does not
    hold."""
    keys = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
    unknown = [m.query_id for m in members if m.query_id not in keys]
    if unknown:
        raise LocalizedError("sample_query_unknown", query=unknown[0])
    sample = QuerySample(
        pool_id=pool.id,
        design=design,
        requested=requested,
        size=len(members),
        population=population,
        seed=seed,
        model=model,
        config=config or {},
        user_id=user.id if user is not None else None,
        judged_before=judged_before,
        reason=reason,
    )
    session.add(sample)
    session.flush()
    session.add_all(
        QuerySampleMember(
            sample_id=sample.id,
            query_id=keys[m.query_id],
            position=position,
            probability=m.probability,
            stratum=m.stratum,
        )
        for position, m in enumerate(members)
    )
    session.flush()
    return sample


def _newest(pool: Pool):
    return select(func.max(QuerySample.id)).where(QuerySample.pool_id == pool.id).scalar_subquery()


def current_sample(pool: Pool, *, session: Session) -> SampleRecord | None:
    """The sample in force in ``pool`` (the newest recorded), or None."""
    sample = session.exec(select(QuerySample).where(QuerySample.id == _newest(pool))).first()
    if sample is None:
        return None
    rows = session.exec(
        select(Query.query_id, QuerySampleMember.probability, QuerySampleMember.stratum)
        .join(Query, Query.id == QuerySampleMember.query_id)
        .where(QuerySampleMember.sample_id == sample.id)
        .order_by(QuerySampleMember.position)
    ).all()
    return SampleRecord(
        id=sample.id,
        pool=pool.name,
        design=sample.design,
        requested=sample.requested,
        size=sample.size,
        population=sample.population,
        seed=sample.seed,
        model=sample.model,
        config=dict(sample.config),
        created_at=sample.created_at.isoformat(),
        members=[Member(query_id, probability, stratum) for query_id, probability, stratum in rows],
        draws=draws_of(pool, session=session),
    )


def draws_of(pool: Pool, *, session: Session) -> list[Draw]:
    """Every draw of ``pool``'s sample, oldest first."""
    rows = session.exec(
        select(QuerySample, User.name)
        .outerjoin(User, User.id == QuerySample.user_id)
        .where(QuerySample.pool_id == pool.id)
        .order_by(QuerySample.id)
    ).all()
    return [
        Draw(
            number=number,
            design=sample.design,
            requested=sample.requested,
            seed=sample.seed,
            created_at=sample.created_at.isoformat(),
            account=account,
            judged_before=sample.judged_before,
            reason=sample.reason,
        )
        for number, (sample, account) in enumerate(rows, start=1)
    ]


def judged_sampled_queries(pool: Pool, *, session: Session) -> int:
    """How many queries of ``pool``'s sample in force people have judged: a person's
    judgment (in the app, any pool, or imported) on one of the pool's candidates for it,
    as a release takes its grades. 0 when the pool has no sample."""
    statement = (
        select(func.count(func.distinct(QuerySampleMember.query_id)))
        .select_from(QuerySampleMember)
        .join(
            PoolCandidate,
            (PoolCandidate.query_id == QuerySampleMember.query_id)
            & (PoolCandidate.pool_id == pool.id),
        )
        .join(
            Judgment,
            (Judgment.query_id == PoolCandidate.query_id)
            & (Judgment.chunk_id == PoolCandidate.chunk_id),
        )
        .join(User, (User.id == Judgment.user_id) & (User.kind == "human"))
        .where(QuerySampleMember.sample_id == _newest(pool))
    )
    return int(session.exec(statement).one())


def sampled_queries_by_coverage(
    pool: Pool, *, session: Session, exclude: int | None, batch: int = 64
) -> Iterator[int]:
    """The keys of the in-force sample's queries that have a candidate open, least covered
    first (the share of their slots held), read ``batch`` at a time: what an annotator is
    handed before any other query. One indexed statement; nothing when the pool has no
    sample."""
    going = (QueryTally.open > 0) & (QueryTally.slots > 0)
    covered = QueryTally.held * 1.0 / QueryTally.slots
    yield from _sampled_queries(pool, going, covered, session, exclude, batch)


def candidates_per_query(pool: Pool, *, session: Session) -> dict[str, int]:
    """Query id -> how many candidates the pool holds for it."""
    rows = session.exec(
        select(Query.query_id, func.count(PoolCandidate.id))
        .join(Query, Query.id == PoolCandidate.query_id)
        .where(PoolCandidate.pool_id == pool.id)
        .group_by(Query.query_id)
    ).all()
    return dict(rows)


def sampled_query_keys(pool: Pool, *, session: Session) -> set[int]:
    """The keys of the queries of ``pool``'s sample in force (empty without a sample)."""
    statement = select(QuerySampleMember.query_id).where(
        QuerySampleMember.sample_id == _newest(pool)
    )
    return set(session.exec(statement))


def is_sampled(pool: Pool, query_key: int, *, session: Session) -> bool:
    """Whether the query is in ``pool``'s sample in force: one indexed statement."""
    statement = select(QuerySampleMember.id).where(
        QuerySampleMember.sample_id == _newest(pool), QuerySampleMember.query_id == query_key
    )
    return session.exec(statement.limit(1)).first() is not None


def sampled_queries_to_choose(
    pool: Pool, *, session: Session, exclude: int | None, batch: int = 64
) -> Iterator[int]:
    """The keys of the in-force sample's queries of an active pool with a candidate not
    asked about yet, least covered first: a sampled query is judged completely, past the
    budget and the stopping rule. One indexed statement, read ``batch`` at a time."""
    going = QueryTally.asked < QueryTally.candidates
    covered = QueryTally.asked * 1.0 / QueryTally.candidates
    yield from _sampled_queries(pool, going, covered, session, exclude, batch)


def _sampled_queries(
    pool: Pool, going, covered, session: Session, exclude: int | None, batch: int
) -> Iterator[int]:
    """The in-force sample's queries of ``pool`` whose tally is ``going``, least
    ``covered`` first, then in the sample's order; one indexed statement."""
    statement = (
        select(QueryTally.query_id)
        .join(
            QuerySampleMember,
            (QuerySampleMember.query_id == QueryTally.query_id)
            & (QuerySampleMember.sample_id == _newest(pool)),
        )
        .where(QueryTally.pool_id == pool.id, going)
        .order_by(covered, QuerySampleMember.position)
    )
    if exclude is not None:
        statement = statement.where(QueryTally.query_id != exclude)
    yield from paged(statement, session=session, batch=batch)
