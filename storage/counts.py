"""Grouped counts behind the lead's charts, each one or two SQL statements.

A lead page must stay quick on a pool with a million judgments, so nothing here reads
judgments one by one into Python: the database groups and counts, and returns a row per
group (per annotator, hour and grade; per system; per combination of systems). Times are
grouped by the hour, in UTC, as whole seconds since 1970 (``hour_start``); callers turn
them into dates and group hours into days as they need. Every function takes a
keyword-only ``session`` and only reads.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, ColumnElement, Integer, String, case, cast, func, null, union_all
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import aliased
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import Session, select

from pooling.grades import GRADES, RELEVANT, lower_median_reaches
from storage.history import newest_first
from storage.models import (
    Adjudication,
    Assignment,
    CandidateSource,
    GoldItem,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    Release,
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
    with its current grade (a grade changed later counts at its new grade and hour, from
    whichever pool it was changed). Grouped by keys, then named: grouping by number reads
    no names for a million rows."""
    keys = {
        "annotator": unindexed(Judgment.user_id),
        "query": unindexed(Judgment.query_id),
        "hour": hour_start(NEWEST.created_at),
        "grade": NEWEST.grade,
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


def unindexed(column) -> ColumnElement:
    """``column`` + 0: the same value, which SQLite cannot read from an index. Grouped by
    the column itself, SQLite walks the judgments in the order of an index on it and looks
    each row up (three times slower at a million than reading the table in order)."""
    return column + 0


# A person's current grade of an item: their newest judgment of its (query, chunk), which
# may have been made in another pool holding the pair (``storage.one_grade``).
NEWEST = aliased(Judgment, name="newest")
_EARLIER = aliased(Judgment, name="earlier")


def _current(pool: Pool, annotator: str | None, *columns):
    """``columns`` of each annotator's current judgment (``NEWEST``) on each item judged
    in the pool's app (only ``annotator``'s when given). The items are the judgments at
    their assignment's revision: ``storage.slots`` counts an assignment's revisions as it
    writes them, so no grouping of the history is needed. The judgments are read in the
    order they are stored, each looking up its assignment (on SQLite three times faster at
    a million than finding each assignment's judgment from the pool's assignments), then
    the person's newest judgment of the pair, one indexed look (the person's grade changed
    from another pool, or imported since, is the one shown, as a release holds it)."""
    newest = (
        select(func.max(_EARLIER.id))
        .where(
            _EARLIER.user_id == Judgment.user_id,
            _EARLIER.query_id == Judgment.query_id,
            _EARLIER.chunk_id == Judgment.chunk_id,
        )
        .correlate(Judgment)
        .scalar_subquery()
    )
    statement = (
        select(*columns)
        .select_from(Judgment)
        .join(
            Assignment,
            (Assignment.id == Judgment.assignment_id) & (Assignment.revision == Judgment.revision),
        )
        .join(NEWEST, NEWEST.id == newest)
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
    user = unindexed(Judgment.user_id)
    ranked = (
        _current(
            pool,
            None,
            user.label("user"),
            NEWEST.seconds.label("seconds"),
            func.row_number().over(partition_by=user, order_by=NEWEST.seconds).label("position"),
            func.count().over(partition_by=user).label("total"),
        )
        .where(NEWEST.seconds.is_not(None))
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
    Judgments count from anywhere (app or import), those of people with a judged row of
    the candidate in the pool (its judges, ``storage.tallies``: a grade under another
    rubric version than the pool counted is none), so the counts add up to
    ``catalog.pool_summary``'s ``complete``; an active pool's candidates not chosen yet are
    left out."""
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
            select(Assignment.id)
            .where(
                Assignment.candidate_id == PoolCandidate.id,
                Assignment.user_id == Judgment.user_id,
                Assignment.done_at.is_not(None),
            )
            .exists(),
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
    sources = candidate_sources(pool)
    rows = session.exec(select(sources.c.systems, func.count()).group_by(sources.c.systems))
    return {systems: n for systems, (n,) in _combined(rows.all()).items()}


def candidate_sources(pool: Pool):
    """Per candidate of the pool (``candidate``): the names of the systems that found it,
    joined (``systems``)."""
    return (
        select(
            CandidateSource.candidate_id.label("candidate"),
            joined_names(CandidateSource.system).label("systems"),
        )
        .join(PoolCandidate, PoolCandidate.id == CandidateSource.candidate_id)
        .where(PoolCandidate.pool_id == pool.id)
        .group_by(CandidateSource.candidate_id)
        .subquery()
    )


def _combined(rows) -> dict[tuple[str, ...], tuple[int, ...]]:
    """Rows of joined system names and counts, by set of systems (names sorted; the order
    within a joined group is arbitrary), the counts of one set added up."""
    combined: dict[tuple[str, ...], tuple[int, ...]] = {}
    for systems, *counts in rows:
        key = tuple(sorted(systems.split(SEPARATOR)))
        before = combined.get(key, (0,) * len(counts))
        combined[key] = tuple(a + int(b or 0) for a, b in zip(before, counts, strict=True))
    return combined


def combination_relevance(
    pool: Pool, *, session: Session, threshold: int = RELEVANT
) -> dict[tuple[str, ...], tuple[int, ...]]:
    """Each set of systems that found the same candidates (as in ``system_combinations``)
    -> ``(candidates, judged, relevant)``: of the candidates exactly that set found, how
    many are judged, and how many of those are relevant (grade >= ``threshold``); every
    system's and the whole pool's figures are sums of these. A candidate's grade is, in
    ``pooling.resolution.merged``'s order, the lead's latest adjudication, else its gold
    grade (a gold item), else the median (rounded down) of the humans' current grades,
    which is what a release resolves an agreed candidate to: relevant when fewer than half
    of them are below ``threshold``. Unsure judgments carry no grade. A grade carried from an
    earlier release (``qrels carry``) stands only in a release that accepts it
    (``release create --accept-carried``), so it is not counted here."""
    sources, graded = candidate_sources(pool), _graded_candidates(pool, threshold)
    decided, golden = graded.c.decision.is_not(None), graded.c.gold.is_not(None)
    judged = decided | golden | (graded.c.grades > 0)
    relevant = case(
        (decided, graded.c.decision % DECISION_SCALE >= threshold),
        (golden, graded.c.gold >= threshold),
        else_=lower_median_reaches(graded.c.low, graded.c.grades),
    )
    rows = session.exec(
        select(
            sources.c.systems,
            func.count(),
            func.sum(case((judged, 1), else_=0)),
            func.sum(case((judged & relevant, 1), else_=0)),
        )
        .join(graded, graded.c.candidate == sources.c.candidate)
        .group_by(sources.c.systems)
    ).all()
    return _combined(rows)


# A decision's grade rides on its id (id * 4 + grade), so that the largest tells both the
# latest decision and its grade in one grouped count (grades are 0-3).
DECISION_SCALE = len(GRADES)


def _graded_candidates(pool: Pool, threshold: int = RELEVANT):
    """Per candidate of the pool: ``grades`` (human grades given, each human's current
    one), ``low`` (of them below ``threshold``), ``decision`` (the latest decision as
    ``id * DECISION_SCALE + grade``, or NULL) and ``gold`` (its gold grade, or NULL).
    Judgments and decisions are counted in one grouping by (query, chunk), then joined to
    the candidates once."""
    on_candidate = (PoolCandidate.query_id == Judgment.query_id) & (
        PoolCandidate.chunk_id == Judgment.chunk_id
    )
    # Each human's current judgment of each candidate, numbered in one pass: at most one
    # read of the pool's judgments.
    newest = newest_first()
    judgments = (
        select(Judgment.query_id, Judgment.chunk_id, Judgment.grade, newest.label("newest"))
        .join(User, User.id == Judgment.user_id)
        .join(PoolCandidate, on_candidate)
        .where(User.kind == "human", PoolCandidate.pool_id == pool.id)
        .subquery()
    )
    nothing = cast(null(), BigInteger)
    both = union_all(
        select(
            judgments.c.query_id, judgments.c.chunk_id, judgments.c.grade, nothing.label("decision")
        ).where(judgments.c.newest == 1),
        select(
            Adjudication.query_id,
            Adjudication.chunk_id,
            cast(null(), Integer),
            cast(Adjudication.id, BigInteger) * DECISION_SCALE + Adjudication.grade,
        ).where(Adjudication.pool_id == pool.id),
    ).subquery()
    per_pair = (
        select(
            both.c.query_id,
            both.c.chunk_id,
            func.count(both.c.grade).label("grades"),
            func.sum(case((both.c.grade < threshold, 1), else_=0)).label("low"),
            func.max(both.c.decision).label("decision"),
        )
        .group_by(both.c.query_id, both.c.chunk_id)
        .subquery()
    )
    return (
        select(
            PoolCandidate.id.label("candidate"),
            func.coalesce(per_pair.c.grades, 0).label("grades"),
            func.coalesce(per_pair.c.low, 0).label("low"),
            per_pair.c.decision,
            GoldItem.grade.label("gold"),
        )
        .join(
            per_pair,
            (per_pair.c.query_id == PoolCandidate.query_id)
            & (per_pair.c.chunk_id == PoolCandidate.chunk_id),
            isouter=True,
        )
        .join(
            GoldItem,
            (GoldItem.pool_id == PoolCandidate.pool_id)
            & (GoldItem.query_id == PoolCandidate.query_id)
            & (GoldItem.chunk_id == PoolCandidate.chunk_id),
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


def data_version(*, session: Session) -> tuple[int, ...]:
    """What the lead's figures are counted from, as the newest id of each table they read
    (judgments, decisions, candidates, gold items, releases): figures counted at one
    version hold until it changes. One statement of primary-key lookups, whatever the size."""
    newest = [
        select(func.coalesce(func.max(model.id), 0)).scalar_subquery()
        for model in (Judgment, Adjudication, PoolCandidate, GoldItem, Release)
    ]
    return tuple(session.execute(select(*newest)).one())
