"""A release's judgments.jsonl as it is read from the database: every human judgment of a pool's
candidates and every adjudication made in it, oldest first, people under pseudonyms
(``storage.history.pseudonym``). For each person and candidate the last judgment is the
current one (``storage.history``'s rule), for each candidate the last adjudication the
final word; ``annotator.releases.release_files`` writes the lines and takes the current
grades from their rows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

import orjson
from sqlalchemy import DateTime, String, case, cast, func, literal, type_coerce
from sqlmodel import Session, select

from storage.catalog import chunk_keys, query_keys
from storage.history import iso_time, pseudonym
from storage.models import (
    Adjudication,
    Chunk,
    CorpusVersion,
    Judgment,
    JudgmentBatch,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    User,
)

# PostgreSQL's memory for sorting a release's judgments by id (``release_history``).
RELEASE_SORT_MEMORY = "512MB"
LINE_END = '"}\n'  # after a judgment's time, the last field of its line


def _is_candidate(pool: Pool):
    """True for a judgment of one of the pool's candidates (``_on_candidates``)."""
    return (
        select(PoolCandidate.id)
        .where(
            PoolCandidate.pool_id == pool.id,
            PoolCandidate.query_id == Judgment.query_id,
            PoolCandidate.chunk_id == Judgment.chunk_id,
        )
        .exists()
    )


def _iso_text(column: Any, dialect: str) -> Any:
    """A stored time as ``storage.history.iso_time`` writes it: ISO 8601 without a zone,
    the microseconds left out when they are 0. SQLite's stored text (``YYYY-MM-DD
    HH:MM:SS.ffffff``, its only ``.``) is rewritten; PostgreSQL's time is taken in the
    session's zone, as the driver's datetime is."""
    if dialect == "sqlite":
        text = type_coerce(column, String)
        return func.replace(func.replace(text, ".000000", ""), " ", "T")
    local = cast(column, DateTime(timezone=False))
    micro = func.to_char(local, "US")
    return _joined(
        func.to_char(local, 'YYYY-MM-DD"T"HH24:MI:SS'),
        case((micro == "000000", ""), else_=_joined(".", micro)),
    )


def _joined(*parts: Any) -> Any:
    """SQL text: ``parts`` joined with ``||`` (on both backends; SQLite before 3.44 has no
    ``concat``)."""
    pieces = [literal(p, String) if isinstance(p, str) else p for p in parts]
    text = pieces[0]
    for piece in pieces[1:]:
        text = text.op("||")(piece)
    return text


@dataclass
class ReleaseHistory:
    """A pool's judgments as a release writes them: ``batches`` of ``judgments.jsonl``'s
    lines, each with the columns that decide the current grades, and the names those
    columns' keys stand for (``current_grades`` makes them the judgments frame)."""

    people: dict[int, str]  # user id -> pseudonym
    query_ids: dict[int, str]  # query key -> query id
    chunk_ids: dict[int, str]  # chunk key -> chunk id
    batches: Iterator[JudgmentLines]


@dataclass
class JudgmentLines:
    """``text``: judgments.jsonl's lines for a batch of judgments, oldest first; then per
    judgment its person (user id), query and chunk keys, grade (None: unsure) and rubric."""

    text: str
    people: tuple[int, ...]
    queries: tuple[int, ...]
    chunks: tuple[int, ...]
    grades: tuple[int | None, ...]
    rubrics: tuple[str, ...]


def _numbers(values: tuple[float | None, ...]) -> list[str]:
    """Each of ``values`` in orjson's form (the shortest that reads back the same, ``null``
    for None; neither database prints a float so), encoded in one call: a float's JSON
    holds no comma."""
    return orjson.dumps(values).decode()[1:-1].split(",")


class _Pieces(dict):
    """Value -> its piece of a line (``make(value)``), made the first time it is asked for:
    a judgment's fields take few values (people, grades, rubrics, sources, mostly empty
    notes), each encoded once by orjson however many lines hold it."""

    def __init__(self, make: Callable[[Any], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, value: Any) -> str:
        piece = self[value] = self.make(value)
        return piece


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def release_history(
    pool: Pool,
    *,
    session: Session,
    batch: int = 10_000,
    names: tuple[dict[int, str], dict[int, str]] | None = None,
) -> ReleaseHistory:
    """Every human judgment of the pool's candidates, oldest first (earlier revisions too,
    from the app or imported, with where it came from), people under pseudonyms, as
    ``judgments.jsonl``'s lines, read ``batch`` rows at a time. The database gives each
    judgment's plain columns (its time as text); each line is joined from pieces looked up
    by value, every distinct value encoded once by orjson (``_Pieces``), so a million
    judgments go through no Python code of their own, only through column-wise maps and
    joins. For each person and candidate the last judgment is the current one
    (``current_grades``). ``names``: the query and chunk ids by key when the caller read
    them already (``ReleaseSnapshot``'s)."""
    dialect = session.get_bind().dialect.name
    people = {
        user_id: pseudonym(user_id, joined)
        for user_id, joined in session.exec(
            select(User.id, User.created_at).where(User.kind == "human")
        )
    }
    if names is None:
        query_set = session.get(QuerySet, pool.query_set_id)
        corpus_version = session.get(CorpusVersion, pool.corpus_version_id)
        names = (
            {key: name for name, key in query_keys(query_set, session=session).items()},
            {key: name for name, key in chunk_keys(corpus_version, session=session).items()},
        )
    query_ids, chunk_ids = names
    if not people:
        return ReleaseHistory(people, query_ids, chunk_ids, iter(()))
    # Where a judgment was made, one key: a pool's id, an import batch's id negated, 0 for
    # an import without a batch. Pools and batches are few: named here, not joined.
    made_in = func.coalesce(Judgment.pool_id, -func.coalesce(Judgment.batch_id, 0))
    sources = {0: "import:None"}
    sources.update({p: f"app:{name}" for p, name in session.exec(select(Pool.id, Pool.name))})
    sources.update(
        {
            -b: f"import:{source}"
            for b, source in session.exec(select(JudgmentBatch.id, JudgmentBatch.source))
        }
    )
    judgments = (
        select(
            Judgment.user_id,
            Judgment.query_id,
            Judgment.chunk_id,
            Judgment.grade,
            Judgment.note,
            Judgment.revision,
            Judgment.rubric_version,
            Judgment.seconds,
            made_in,
            _iso_text(Judgment.created_at, dialect),
        )
        # EXISTS rather than a join: the judgments are read in their own order as they are
        # stored, each looked up among the candidates, so no sort of a million rows.
        # ``+ 0``: not by the index of people, which SQLite then read in its order and
        # sorted a million rows by id.
        .where((Judgment.user_id + 0).in_(people), _is_candidate(pool))
        .order_by(Judgment.id)
    )
    # Each field's piece holds the text up to the next field's value, so a line is its
    # pieces joined: {"type":"judgment","annotator":…,"query_id":…,"chunk_id":…,"grade":…,
    # "unsure":…,"note":…,"revision":…,"rubric_version":…,"seconds":…,"source":…,
    # "created_at":"…"}
    annotators = {
        user_id: '{"type":"judgment","annotator":' + _json(name) + ',"query_id":'
        for user_id, name in people.items()
    }
    queries = {key: _json(name) + ',"chunk_id":' for key, name in query_ids.items()}
    chunks = {key: _json(name) + ',"grade":' for key, name in chunk_ids.items()}
    # A judgment is unsure exactly when it has no grade (the table's check says so).
    grades = _Pieces(lambda grade: f'{_json(grade)},"unsure":{_json(grade is None)},"note":')
    notes = _Pieces(lambda note: _json(note) + ',"revision":')
    revisions = _Pieces(lambda revision: _json(revision) + ',"rubric_version":')
    rubrics = _Pieces(lambda rubric: _json(rubric) + ',"seconds":')
    made = _Pieces(lambda key: ',"source":' + _json(sources[key]) + ',"created_at":"')

    def batches() -> Iterator[JudgmentLines]:
        # A batch at a time, turned into columns (``zip``) and joined without a Python
        # step per judgment. Read with the driver's own cursor in the snapshot's
        # transaction (server-side on PostgreSQL), as plain tuples: no column needs
        # SQLAlchemy's processing, and its rows took a tenth of a release at L. The few
        # values bound (people's and the pool's ids) are the tool's own, written in.
        connection = session.connection()
        sql = str(judgments.compile(connection, compile_kwargs={"literal_binds": True}))
        driver = connection.connection.dbapi_connection
        assert driver is not None
        named = {"name": "release_judgments"} if dialect == "postgresql" else {}
        if dialect == "postgresql":
            # The planner expects a few dozen lines (it misjudges the candidates' EXISTS)
            # and, for a cursor, looks a million judgments up one by one among the
            # candidates in id order. Every line is read: plan for all of them (one hash
            # join), and sort them by id in memory, not on disk. For this read-only
            # transaction only.
            connection.exec_driver_sql("SET LOCAL cursor_tuple_fraction = 1.0")
            connection.exec_driver_sql(f"SET LOCAL work_mem = '{RELEASE_SORT_MEMORY}'")
        cursor = driver.cursor(**named)
        cursor.execute(sql)
        # Fetched in this thread: a thread reading ahead gained nothing once the server
        # gives plain columns (it sorts narrow rows; the client's joins are the work left),
        # and it cost the client CPU in the GIL's hand-overs.
        fetched = iter(lambda: cursor.fetchmany(batch), [])
        try:
            for rows in fetched:
                (
                    users,
                    keys,
                    chunk_keys_,
                    graded,
                    said,
                    revised,
                    rubric,
                    seconds,
                    where,
                    at,
                ) = zip(*rows, strict=True)
                pieces = (
                    map(annotators.__getitem__, users),
                    map(queries.__getitem__, keys),
                    map(chunks.__getitem__, chunk_keys_),
                    map(grades.__getitem__, graded),
                    map(notes.__getitem__, said),
                    map(revisions.__getitem__, revised),
                    map(rubrics.__getitem__, rubric),
                    _numbers(seconds),
                    map(made.__getitem__, where),
                    at,
                    [LINE_END] * len(rows),
                )
                text = "".join(chain.from_iterable(zip(*pieces, strict=True)))
                yield JudgmentLines(text, users, keys, chunk_keys_, graded, rubric)
        finally:
            cursor.close()

    return ReleaseHistory(people, query_ids, chunk_ids, batches())


def release_decisions(pool: Pool, *, session: Session) -> Iterator[dict]:
    """Every adjudication made in the pool, oldest first, leads under pseudonyms: for each
    candidate the last one is the final word. Few beside the judgments: one dict each."""
    decisions = (
        select(
            Adjudication.user_id,
            User.created_at,
            Query.query_id,
            Chunk.chunk_id,
            Adjudication.grade,
            Adjudication.rationale,
            Adjudication.policy,
            Adjudication.created_at,
        )
        .join(User, User.id == Adjudication.user_id)
        .join(Query, Query.id == Adjudication.query_id)
        .join(Chunk, Chunk.id == Adjudication.chunk_id)
        .where(Adjudication.pool_id == pool.id)
        .order_by(Adjudication.id)
    )
    for user_id, joined, query_id, chunk_id, grade, rationale, policy, created_at in session.exec(
        decisions
    ):
        yield {
            "type": "adjudication",
            "lead": pseudonym(user_id, joined),
            "query_id": query_id,
            "chunk_id": chunk_id,
            "grade": grade,
            "rationale": rationale,
            "policy": policy,
            "created_at": iso_time(created_at),
        }
