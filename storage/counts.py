"""Grouped counts behind the lead's charts, each one or two SQL statements.

A lead page must stay quick on a pool with a million judgments, so nothing here reads
judgments one by one into Python: the database groups and counts, and returns a row per
group (per annotator, hour and grade; per system; per combination of systems). Times are
grouped by the hour, in UTC, as whole seconds since 1970 (``hour_start``); callers turn
them into dates and group hours into days as they need. Every function takes a
keyword-only ``session`` and only reads.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, ColumnElement, String, case, func
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import Session, select

from pooling.grades import RELEVANT
from storage.history import latest_judgments
from storage.models import (
    Adjudication,
    Assignment,
    CandidateSource,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    User,
)

HOUR = 3600
SEPARATOR = "\x1f"  # between system names aggregated into one text; no name holds it


def _sql_function(name: str, type_, sqlite: str, postgresql: str) -> type[FunctionElement]:
    """A SQL function of one argument written ``sqlite`` on SQLite and ``postgresql`` on
    PostgreSQL (``{}`` stands for the argument)."""
    function = type(name, (FunctionElement,), {"type": type_, "inherit_cache": True})
    for dialect, template in (("default", sqlite), ("postgresql", postgresql)):

        def compile_(element, compiler, template=template, **kw) -> str:
            return template.format(compiler.process(element.clauses, **kw))

        compiles(function, *([] if dialect == "default" else [dialect]))(compile_)
    return function


# Whole seconds since 1970-01-01 UTC of a timestamp (SQLite holds them as UTC text).
epoch_seconds = _sql_function(
    "epoch_seconds",
    BigInteger(),
    "CAST(strftime('%s', {}) AS INTEGER)",
    "CAST(FLOOR(EXTRACT(EPOCH FROM {})) AS BIGINT)",
)
# The texts of a group joined by SEPARATOR (character 31), in no particular order.
joined_names = _sql_function(
    "joined_names", String(), "group_concat({}, char(31))", "string_agg({}, chr(31))"
)


def hour_start(column) -> ColumnElement:
    """The start of the hour ``column`` falls in, as whole seconds since 1970 (UTC)."""
    return epoch_seconds(column) // HOUR * HOUR


# -- judging: each annotator's current grade on each item judged in the pool's app --------

DIMENSIONS = ("annotator", "query", "hour", "grade")


def current_counts(
    pool: Pool, by: tuple[str, ...], *, session: Session, annotator: str | None = None
) -> list[tuple]:
    """How many items annotators judged in the pool's app, grouped by ``by`` (names from
    ``DIMENSIONS``: ``annotator``, ``query`` id, ``hour`` (``hour_start`` of when the
    current grade was given) and ``grade`` (None for unsure)), each row the values of
    ``by`` then the count; only ``annotator``'s items when given. An item counts once,
    with its current grade (a grade changed later counts at its new grade and hour).
    Grouped by keys, then named: a million rows are grouped faster by number."""
    keys = {
        "annotator": _unindexed(Judgment.user_id),
        "query": _unindexed(Judgment.query_id),
        "hour": hour_start(Judgment.created_at),
        "grade": Judgment.grade,
    }
    grouped = [keys[name].label(name) for name in by]
    counted = (
        _current(pool, annotator, *grouped, func.count().label("n")).group_by(*grouped).subquery()
    )
    names = {"annotator": (User, User.name), "query": (Query, Query.query_id)}
    statement = select(
        *[names[n][1] if n in names else counted.c[n] for n in by], counted.c.n
    ).select_from(counted)
    for name in set(by) & set(names):
        table = names[name][0]
        statement = statement.join(table, table.id == counted.c[name])
    return [tuple(row) for row in session.exec(statement).all()]


def _unindexed(column) -> ColumnElement:
    """``column`` + 0: the same value, which SQLite cannot read from an index. Grouped by
    the column itself, SQLite walks the judgments in the order of an index on it and looks
    each row up (three times slower at a million than reading the table in order)."""
    return column + 0


def _current(pool: Pool, annotator: str | None, *columns):
    """``columns`` of each annotator's current judgment on each item judged in the pool's
    app (only ``annotator``'s when given). The current one is the judgment at its
    assignment's revision: ``storage.slots`` counts an assignment's revisions as it writes
    them, so no grouping of the history is needed. The judgments are read in the order
    they are stored, each looking up its assignment (on SQLite three times faster at a
    million than finding each assignment's judgment from the pool's assignments)."""
    statement = (
        select(*columns)
        .select_from(Judgment)
        .join(
            Assignment,
            (Assignment.id == Judgment.assignment_id) & (Assignment.revision == Judgment.revision),
        )
        .where(Judgment.pool_id == pool.id)
    )
    if annotator is None:
        return statement
    return statement.where(
        Judgment.user_id == select(User.id).where(User.name == annotator).scalar_subquery()
    )


def median_seconds(pool: Pool, *, session: Session) -> dict[str, float]:
    """Annotator -> the median seconds their current judgments in the pool's app took
    (judgments without a time left out). The median of an even count is the mean of the
    middle two, as ``statistics.median`` has it."""
    user = _unindexed(Judgment.user_id)
    ranked = (
        _current(
            pool,
            None,
            user.label("user"),
            Judgment.seconds.label("seconds"),
            func.row_number().over(partition_by=user, order_by=Judgment.seconds).label("position"),
            func.count().over(partition_by=user).label("total"),
        )
        .where(Judgment.seconds.is_not(None))
        .subquery()
    )
    middle = ranked.c.position.in_([(ranked.c.total + 1) // 2, (ranked.c.total + 2) // 2])
    rows = session.exec(
        select(User.name, func.avg(ranked.c.seconds))
        .join(User, User.id == ranked.c.user)
        .where(middle)
        .group_by(User.name)
    ).all()
    return {name: float(value) for name, value in rows}


def completions_by_hour(pool: Pool, *, session: Session) -> list[tuple[int, int]]:
    """``(hour_start, candidates)``: how many of the pool's candidates got their
    ``overlap``-th judgment from a distinct human annotator in each hour, oldest first.
    Judgments count from anywhere (app or import), as in ``catalog.pool_summary``, so the
    counts add up to its ``complete``; an active pool's candidates not chosen yet are left
    out."""
    firsts = (
        select(
            PoolCandidate.id.label("candidate"),
            Judgment.user_id.label("user"),
            func.min(Judgment.created_at).label("at"),
        )
        .join(
            Judgment,
            (Judgment.query_id == PoolCandidate.query_id)
            & (Judgment.chunk_id == PoolCandidate.chunk_id),
        )
        .join(User, User.id == Judgment.user_id)
        .where(
            PoolCandidate.pool_id == pool.id,
            func.coalesce(PoolCandidate.required, 1) != 0,
            User.kind == "human",
        )
        .group_by(PoolCandidate.id, Judgment.user_id)
        .subquery()
    )
    ranked = select(
        firsts.c.at,
        func.row_number()
        .over(partition_by=firsts.c.candidate, order_by=(firsts.c.at, firsts.c.user))
        .label("judge"),
    ).subquery()
    hour = hour_start(ranked.c.at).label("hour")
    rows = session.exec(
        select(hour, func.count())
        .where(ranked.c.judge == pool.overlap)
        .group_by(hour)
        .order_by(hour)
    ).all()
    return [tuple(row) for row in rows]


# -- pools: systems and what they found ----------------------------------------------------


def system_combinations(pool: Pool, *, session: Session) -> dict[tuple[str, ...], int]:
    """Each set of systems that found the same candidates (names sorted) -> how many of
    the pool's candidates exactly that set found: the intersections of an UpSet chart,
    from which every system's total, unique and shared counts follow."""
    per_candidate = (
        select(joined_names(CandidateSource.system).label("systems"))
        .join(PoolCandidate, PoolCandidate.id == CandidateSource.candidate_id)
        .where(PoolCandidate.pool_id == pool.id)
        .group_by(CandidateSource.candidate_id)
        .subquery()
    )
    combinations: dict[tuple[str, ...], int] = {}
    for systems, count in session.exec(
        select(per_candidate.c.systems, func.count()).group_by(per_candidate.c.systems)
    ).all():
        key = tuple(sorted(systems.split(SEPARATOR)))  # the order within a group is arbitrary
        combinations[key] = combinations.get(key, 0) + count
    return combinations


def system_relevance(
    pool: Pool, *, session: Session, threshold: int = RELEVANT
) -> tuple[dict[str, tuple[int, int]], tuple[int, int]]:
    """Per system, ``(judged, relevant)``: how many of the candidates it put in the pool
    are judged, and how many of those are relevant (grade >= ``threshold``); and the same
    two counts over the whole pool. A candidate's grade is the lead's latest adjudication,
    else the median (rounded down) of the humans' current grades, which is what a release
    resolves an agreed candidate to: relevant when fewer than half of them are below
    ``threshold``. Unsure judgments carry no grade and are left out."""
    graded = _graded_candidates(pool, threshold)
    judged = (graded.c.adjudicated.is_not(None)) | (graded.c.grades > 0)
    relevant = case(
        (graded.c.adjudicated.is_not(None), graded.c.adjudicated >= threshold),
        else_=2 * graded.c.low < graded.c.grades,
    )
    judged_n = func.sum(case((judged, 1), else_=0))
    relevant_n = func.sum(case((judged & relevant, 1), else_=0))
    per_system = session.exec(
        select(CandidateSource.system, judged_n, relevant_n)
        .join(graded, graded.c.candidate == CandidateSource.candidate_id)
        .group_by(CandidateSource.system)
        .order_by(CandidateSource.system)
    ).all()
    total = session.exec(select(judged_n, relevant_n).select_from(graded)).one()
    return (
        {system: (int(j or 0), int(r or 0)) for system, j, r in per_system},
        (int(total[0] or 0), int(total[1] or 0)),
    )


def _graded_candidates(pool: Pool, threshold: int):
    """Per candidate of the pool: ``grades`` (human grades given), ``low`` (of them below
    ``threshold``) and ``adjudicated`` (the latest decision's grade, or NULL)."""
    on_candidate = (PoolCandidate.query_id == Judgment.query_id) & (
        PoolCandidate.chunk_id == Judgment.chunk_id
    )
    current = latest_judgments(
        User.kind == "human", PoolCandidate.pool_id == pool.id, join=(PoolCandidate, on_candidate)
    )
    grades = (
        select(
            Judgment.query_id,
            Judgment.chunk_id,
            func.count(Judgment.grade).label("grades"),
            func.sum(case((Judgment.grade < threshold, 1), else_=0)).label("low"),
        )
        .join(current, current.c.id == Judgment.id)
        .group_by(Judgment.query_id, Judgment.chunk_id)
        .subquery()
    )
    # The latest decision, looked up by the index on decisions for each candidate: joined
    # as a grouped subquery instead, it was scanned whole for every candidate.
    decision = (
        select(Adjudication.grade)
        .where(
            Adjudication.pool_id == pool.id,
            Adjudication.query_id == PoolCandidate.query_id,
            Adjudication.chunk_id == PoolCandidate.chunk_id,
        )
        .order_by(Adjudication.id.desc())
        .limit(1)
        .correlate(PoolCandidate)
        .scalar_subquery()
    )
    return (
        select(
            PoolCandidate.id.label("candidate"),
            func.coalesce(grades.c.grades, 0).label("grades"),
            func.coalesce(grades.c.low, 0).label("low"),
            decision.label("adjudicated"),
        )
        .join(
            grades,
            (grades.c.query_id == PoolCandidate.query_id)
            & (grades.c.chunk_id == PoolCandidate.chunk_id),
            isouter=True,
        )
        .where(PoolCandidate.pool_id == pool.id)
        .subquery()
    )


def query_sizes(pool: Pool, *, session: Session) -> dict[str, int]:
    """Query id -> the pool's candidates for it; every query of the pool's set, 0 where it
    has none."""
    counted = (
        select(PoolCandidate.query_id, func.count().label("n"))
        .where(PoolCandidate.pool_id == pool.id)
        .group_by(PoolCandidate.query_id)
        .subquery()
    )
    rows = session.exec(
        select(Query.query_id, func.coalesce(counted.c.n, 0))
        .join(counted, counted.c.query_id == Query.id, isouter=True)
        .where(Query.query_set_id == pool.query_set_id)
        .order_by(Query.id)
    ).all()
    return dict(rows)
