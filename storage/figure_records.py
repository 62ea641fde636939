"""Reads behind the lead's kept figures (``annotator.quality.kept.figures``) and their
checkpoint (``storage.figure_tables``). Every function takes a keyword-only ``session``;
only ``save_checkpoint`` writes.

The figures are kept up to date by reading the judgments with ids above a mark. Ids are
given out when a row is written and become visible when its transaction commits: on
SQLite writers take turns, so no id appears below one already seen; on PostgreSQL a
transaction can commit after a later one. So a count reads back ``LAG`` ids below its mark
(applying a judgment twice changes nothing: a person's current grade is their highest id),
and checks that no judgment appeared further below (``judgments_up_to``): over every id
after a restart and, on PostgreSQL, at a view after a transaction that was open at the last
one committed (``in_flight``: only such a one can add a judgment there); on SQLite, where
only a restored copy can do that, over the ``CHECKED`` ids below the lag at each view (a
million at L cost most of a view that found nothing new).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import false, func, text, true, union_all
from sqlmodel import Session, select

from storage.counts import candidate_sources, epoch_seconds, unindexed
from storage.db import upsert_insert
from storage.figure_tables import FigureCheckpoint
from storage.history import adjudications
from storage.models import (
    Assignment,
    CandidateSource,
    Chunk,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QueryTally,
    User,
)

LAG = 5_000  # ids read again below the mark: transactions still open when it was set
CHECKED = 20 * LAG  # ids below the lag whose judgments each view counts again (SQLite)


def checked_from(top: int, *, session: Session) -> int:
    """Where a view's check for judgments that appeared below the lag's ``top`` starts. On
    PostgreSQL at 0: a large import's ids, given out before others' keys, can commit far
    below the mark. On SQLite writers take turns, so the ``CHECKED`` ids below suffice."""
    return 0 if session.get_bind().dialect.name == "postgresql" else top - CHECKED


def pool_candidates(pool: Pool, *, session: Session) -> list[tuple[int, int, str, str]]:
    """Every candidate of the pool: ``(candidate id, query key, query id, chunk id)``."""
    statement = (
        select(PoolCandidate.id, PoolCandidate.query_id, Query.query_id, Chunk.chunk_id)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(PoolCandidate.pool_id == pool.id)
    )
    return [tuple(row) for row in session.exec(statement)]


def candidate_count(pool: Pool, *, session: Session) -> int:
    """How many candidates the pool has (a top-up adds some), from its per-query tallies
    (``storage.tallies``, kept in the transaction that adds them): ten thousand rows at L,
    not half a million candidates."""
    total = select(func.coalesce(func.sum(QueryTally.candidates), 0)).where(
        QueryTally.pool_id == pool.id
    )
    return int(session.exec(total).one())


def candidate_mark(pool: Pool, *, session: Session) -> tuple[int, int]:
    """How many candidates the pool has and its highest candidate id (0 before the
    first): what tells that the candidates a checkpoint was saved with are still the
    pool's (candidates are only ever added)."""
    mark = select(func.count(), func.coalesce(func.max(PoolCandidate.id), 0)).where(
        PoolCandidate.pool_id == pool.id
    )
    count, newest = session.exec(mark).one()
    return count, newest


def pool_queries(pool: Pool, *, session: Session) -> list[tuple[str, list[str], str | None]]:
    """``(query id, slices, split)`` of every query of the pool's query set."""
    statement = select(Query.query_id, Query.slices, Query.split).where(
        Query.query_set_id == pool.query_set_id
    )
    rows = session.connection().execute(statement)  # no ORM rows: ten thousand at L
    return [(q, list(s or []), split) for q, s, split in rows]


def people(*, session: Session) -> dict[int, str]:
    """Human accounts by id: whose grades count in agreement and adjudication."""
    return dict(session.exec(select(User.id, User.name).where(User.kind == "human")).all())


def newest_judgment(*, session: Session) -> int:
    """The highest judgment id (0 before the first)."""
    return session.exec(select(func.coalesce(func.max(Judgment.id), 0))).one()


def judgments_up_to(mark: int, *, session: Session, after: int = 0) -> int:
    """How many judgments have an id up to ``mark`` (and above ``after``)."""
    return session.exec(select(func.count()).where(Judgment.id <= mark, Judgment.id > after)).one()


def in_flight(*, session: Session) -> list[int] | None:
    """The transactions in progress in this snapshot (PostgreSQL): the only ones whose
    judgments can still appear below the lag, their ids given out before it was read.
    None on SQLite, whose writers take turns."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    xip = text("SELECT pg_snapshot_xip(pg_current_snapshot())::text::bigint")
    return [int(x) for x in session.connection().execute(xip).scalars()]


def any_committed(transactions: list[int], *, session: Session) -> bool:
    """Whether any of ``transactions`` (``in_flight``'s) committed since, or is too old for
    PostgreSQL to tell (then it may have)."""
    if not transactions:
        return False
    status = text(
        "SELECT coalesce(bool_or(coalesce(pg_xact_status(x::text::xid8) = 'committed', true)),"
        " false) FROM unnest(CAST(:ids AS bigint[])) AS x"
    )
    return bool(session.connection().execute(status, {"ids": transactions}).scalar_one())


def _on_candidates(pool: Pool, *columns, recent: bool = False):
    """``columns`` of people's judgments of the pool's candidates. ``recent``: the caller
    asks for ids above a mark, so the judgments are read from that id on, each looking up
    its candidate; otherwise SQLite walks the pool's half a million candidates looking
    up each one's judgments (0.2 s for the few thousand since a mark at L, 20 times
    the time)."""
    query = unindexed(Judgment.query_id) if recent else Judgment.query_id
    return (
        select(*columns)
        .select_from(Judgment)
        .join(
            PoolCandidate,
            (PoolCandidate.query_id == query)
            & (PoolCandidate.chunk_id == Judgment.chunk_id)
            & (PoolCandidate.pool_id == pool.id),
        )
        .join(User, User.id == Judgment.user_id)
        .where(User.kind == "human")
    )


JUDGMENT_FIELDS = (
    Judgment.id,
    PoolCandidate.id,
    Judgment.user_id,
    Judgment.grade,
    Judgment.note,
    epoch_seconds(Judgment.created_at),
    # A judge of the candidate in the pool: a judged row of theirs there (``storage.tallies``).
    select(Assignment.id)
    .where(
        Assignment.candidate_id == PoolCandidate.id,
        Assignment.user_id == Judgment.user_id,
        Assignment.done_at.is_not(None),
    )
    .exists(),
)


def judgments_since(pool: Pool, after: int, *, session: Session) -> list[tuple]:
    """People's judgments of the pool's candidates (wherever made) with ids above
    ``after``: ``(judgment id, candidate id, user id, grade or None when unsure, note,
    seconds since 1970 when it was made)``."""
    statement = _on_candidates(pool, *JUDGMENT_FIELDS, recent=True).where(Judgment.id > after)
    return [tuple(row) for row in session.connection().execute(statement)]


def judgments_of(pool: Pool, candidates: Iterable[int], *, session: Session) -> list[tuple]:
    """People's judgments of the given candidates, all of them, as ``judgments_since``."""
    ids, rows = sorted(candidates), []
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        statement = _on_candidates(pool, *JUDGMENT_FIELDS).where(PoolCandidate.id.in_(part))
        rows += [tuple(row) for row in session.connection().execute(statement)]
    return rows


def app_judgments_since(pool: Pool, after: int, *, session: Session) -> list[tuple]:
    """Judgments with ids above ``after`` that the Team progress figures count
    (``storage.counts.current_counts``): ``(judgment id, assignment id, revision, user id,
    query key, seconds since 1970 when made, grade or None when unsure, seconds taken or
    None, elsewhere)``. Those made in the pool's app, on their assignment at their
    revision (``elsewhere`` False); and those of a pair the person has a row of in the
    pool made anywhere else (another pool, an import: ``elsewhere`` True), on that row at
    its revision now: the person's newer grade of an item they judged in the pool's app
    (``storage.one_grade``), which ``AppRows.apply`` takes only for such items."""
    made = epoch_seconds(Judgment.created_at)
    fields = (Judgment.user_id, Judgment.query_id, made, Judgment.grade, Judgment.seconds)
    here = (Judgment.pool_id == pool.id) & Judgment.assignment_id.is_not(None)
    own = select(Judgment.id, Judgment.assignment_id, Judgment.revision, *fields, false()).where(
        Judgment.id > after, here
    )
    # The judgments above ``after`` first, then their pool rows: SQLite, knowing nothing of
    # how few ids lie above ``after``, went through the pool's candidates instead (0.2 s a
    # view at L, with nothing found). MATERIALIZED keeps the order (SQLite, PostgreSQL).
    above = (
        select(Judgment.id, Judgment.chunk_id, *fields[:2], made.label("made"), *fields[3:])
        .where(
            Judgment.id > after,
            (func.coalesce(Judgment.pool_id, 0) != pool.id) | Judgment.assignment_id.is_(None),
        )
        .cte("above")
        .prefix_with("MATERIALIZED")
    )
    elsewhere = (
        select(
            above.c.id,
            Assignment.id,
            Assignment.revision,
            above.c.user_id,
            above.c.query_id,
            above.c.made,
            above.c.grade,
            above.c.seconds,
            true(),
        )
        .join(
            PoolCandidate,
            (PoolCandidate.pool_id == pool.id)
            & (PoolCandidate.query_id == above.c.query_id)
            & (PoolCandidate.chunk_id == above.c.chunk_id),
        )
        .join(
            Assignment,
            (Assignment.candidate_id == PoolCandidate.id) & (Assignment.user_id == above.c.user_id),
        )
    )
    statement = union_all(own, elsewhere)
    return [(*row[:8], bool(row[8])) for row in session.connection().execute(statement)]


def user_names(*, session: Session) -> dict[int, str]:
    """Every account's name by id (the Team progress figures name whoever judged)."""
    return dict(session.exec(select(User.id, User.name)).all())


def unasked(pool: Pool, *, session: Session) -> list[int]:
    """The ids of the pool's candidates nobody is asked to judge (``required`` 0): an
    active pool's not chosen yet, and gold items."""
    statement = select(PoolCandidate.id).where(
        PoolCandidate.pool_id == pool.id, PoolCandidate.required == 0
    )
    return list(session.exec(statement).all())


def newest_source(*, session: Session) -> int:
    """The highest candidate source id: a pool's systems per candidate hold until it moves."""
    return session.exec(select(func.coalesce(func.max(CandidateSource.id), 0))).one()


def candidate_systems(pool: Pool, *, session: Session) -> list[tuple[int, str]]:
    """``(candidate id, the names of the systems that found it joined by
    ``storage.counts.SEPARATOR``)`` for every candidate of the pool with a source."""
    sources = candidate_sources(pool)
    statement = select(sources.c.candidate, sources.c.systems)
    return [tuple(row) for row in session.connection().execute(statement)]


def decisions_since(pool: Pool, after: int, *, session: Session) -> list[tuple]:
    """The pool's adjudications with ids above ``after``, oldest first: ``(id, query id,
    chunk id, grade, rationale, lead name, created time)``."""
    return [tuple(row) for row in session.exec(adjudications(pool, after))]


CHECKPOINT_COLUMNS = ("judgment_mark", "judgments_seen", "adjudication_mark", "payload", "saved_at")
CHECKPOINT_READ = (
    f"SELECT {', '.join(CHECKPOINT_COLUMNS)} FROM figure_checkpoint WHERE pool_id = %s"
)


def checkpoint(pool: Pool, *, session: Session) -> FigureCheckpoint | None:
    """The pool's saved figures, if any, read in the session's transaction."""
    if session.get_bind().dialect.name != "postgresql":
        return session.get(FigureCheckpoint, pool.id)
    # In binary: as text, a payload of a hundred megabytes comes hex-encoded and is decoded
    # here (three times the time of a restart's read at L).
    driver = session.connection().connection.driver_connection
    with driver.cursor(binary=True) as cursor:
        cursor.execute(CHECKPOINT_READ, (pool.id,))
        row = cursor.fetchone()
    if row is None:
        return None
    return FigureCheckpoint(pool_id=pool.id, **dict(zip(CHECKPOINT_COLUMNS, row, strict=True)))


def save_checkpoint(
    pool: Pool,
    *,
    session: Session,
    judgment_mark: int,
    seen: int,
    adjudication_mark: int,
    payload: bytes,
) -> None:
    """Keep the pool's figures as they stand at ``judgment_mark`` (replacing earlier ones)."""
    values = dict(
        pool_id=pool.id,
        judgment_mark=judgment_mark,
        judgments_seen=seen,
        adjudication_mark=adjudication_mark,
        payload=payload,
        saved_at=datetime.now(UTC),
    )
    statement = upsert_insert(FigureCheckpoint, session=session).values(**values)
    kept = {k: statement.excluded[k] for k in values if k != "pool_id"}
    session.execute(statement.on_conflict_do_update(index_elements=["pool_id"], set_=kept))
