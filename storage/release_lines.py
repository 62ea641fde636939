"""A release's judgments.jsonl as the database writes it: every human judgment of a pool's
candidates and every adjudication made in it, oldest first, people under pseudonyms
(``storage.history.pseudonym``). For each person and candidate the last judgment is the
current one (``storage.history``'s rule), for each candidate the last adjudication the
final word; ``annotator.releases.release_files`` writes the lines and takes the current
grades from their rows."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

import orjson
from sqlalchemy import DateTime, String, Text, case, cast, func, literal, type_coerce
from sqlalchemy.orm import aliased
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

# PostgreSQL's memory for sorting a release's judgment lines (``release_history``).
RELEASE_SORT_MEMORY = "512MB"


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


def _joined(*parts: Any) -> Any:
    """SQL text: ``parts`` joined with ``||`` (on both backends; SQLite before 3.44 has no
    ``concat``)."""
    pieces = [literal(p, String) if isinstance(p, str) else p for p in parts]
    text = pieces[0]
    for piece in pieces[1:]:
        text = text.op("||")(piece)
    return text


def _json_text(column: Any, dialect: str) -> Any:
    """``column`` (text) as a JSON string, escaped as orjson escapes it (quote, backslash
    and control characters; everything else as it is, in UTF-8), or ``null`` for NULL: a
    test pins the two equal on both backends."""
    quoted = func.json_quote(column) if dialect == "sqlite" else cast(func.to_json(column), Text)
    return func.coalesce(quoted, "null")


def _json_number(column: Any) -> Any:
    """An integer ``column`` as JSON: its digits, or ``null``."""
    return func.coalesce(cast(column, Text), "null")


def _iso_text(column: Any, dialect: str) -> Any:
    """A stored time as ``_iso`` writes it: ISO 8601 without a zone, the microseconds left
    out when they are 0. SQLite's stored text (``YYYY-MM-DD HH:MM:SS.ffffff``) is rewritten;
    PostgreSQL's time is taken in the session's zone, as the driver's datetime is."""
    if dialect == "sqlite":
        text = type_coerce(column, String)
        whole = func.substr(text, 1, func.length(text) - 7)
        day_time = case(
            (func.substr(text, -7) == ".000000", whole),
            else_=text,
        )
        return func.replace(day_time, " ", "T")
    local = cast(column, DateTime(timezone=False))
    micro = func.to_char(local, "US")
    return _joined(
        func.to_char(local, 'YYYY-MM-DD"T"HH24:MI:SS'),
        case((micro == "000000", ""), else_=_joined(".", micro)),
    )


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


def release_history(
    pool: Pool,
    *,
    session: Session,
    batch: int = 10_000,
    names: tuple[dict[int, str], dict[int, str]] | None = None,
) -> ReleaseHistory:
    """Every human judgment of the pool's candidates, oldest first (earlier revisions too,
    from the app or imported, with where it came from), people under pseudonyms, as
    ``judgments.jsonl``'s lines, read ``batch`` rows at a time. The database writes each
    line but its ``seconds`` (a float, in orjson's form): a million judgments go through
    no Python code of their own, only through column-wise joins and maps. For each person
    and candidate the last judgment is the current one (``current_grades``). ``names``: the
    query and chunk ids by key when the caller read them already (``ReleaseSnapshot``'s)."""
    dialect = session.get_bind().dialect.name
    # People are few: their pseudonyms (already JSON strings) go into the statement.
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
    made_in, imported = aliased(Pool), aliased(JudgmentBatch)
    annotator = case(
        {user_id: orjson.dumps(name).decode() for user_id, name in people.items()},
        value=Judgment.user_id,
    )
    source = case(
        (Judgment.pool_id.is_not(None), _joined("app:", made_in.name)),
        else_=_joined("import:", func.coalesce(imported.source, "None")),
    )
    head = _joined(
        '{"type":"judgment","annotator":',
        annotator,
        ',"query_id":',
        _json_text(Query.query_id, dialect),
        ',"chunk_id":',
    )
    # The chunk id goes in between, from ``chunk_ids``: joining each judgment to its
    # chunk (whose pages hold the texts) took SQLite two seconds at L.
    middle = _joined(
        ',"grade":',
        _json_number(Judgment.grade),
        ',"unsure":',
        case((Judgment.unsure, "true"), else_="false"),
        ',"note":',
        _json_text(Judgment.note, dialect),
        ',"revision":',
        _json_number(Judgment.revision),
        ',"rubric_version":',
        _json_text(Judgment.rubric_version, dialect),
        ',"seconds":',
    )
    tail = _joined(
        ',"source":',
        _json_text(source, dialect),
        ',"created_at":"',
        _iso_text(Judgment.created_at, dialect),
        '"}\n',
    )
    judgments = (
        select(
            head,
            Judgment.chunk_id,
            middle,
            Judgment.seconds,
            tail,
            Judgment.user_id,
            Judgment.query_id,
            Judgment.grade,
            Judgment.rubric_version,
        )
        .join(Query, Query.id == Judgment.query_id)
        .outerjoin(made_in, made_in.id == Judgment.pool_id)
        .outerjoin(imported, imported.id == Judgment.batch_id)
        # EXISTS rather than a join: the judgments are read in their own order as they are
        # stored, each looked up among the candidates, so no sort of a million rows.
        # ``+ 0``: not by the index of people, which SQLite then read in its order and
        # sorted a million rows by id.
        .where((Judgment.user_id + 0).in_(people), _is_candidate(pool))
        .order_by(Judgment.id)
    )
    quoted = {key: orjson.dumps(name).decode() for key, name in chunk_ids.items()}

    def batches() -> Iterator[JudgmentLines]:
        # A batch at a time, turned into columns (``zip``) and joined without a Python
        # step per judgment. Read with the driver's own cursor in the snapshot's
        # transaction (server-side on PostgreSQL), as plain tuples: no column needs
        # SQLAlchemy's processing, and its rows took a tenth of a release at L. The few
        # values bound (pseudonyms, the pool's id) are the tool's own, written in.
        connection = session.connection()
        sql = str(judgments.compile(connection, compile_kwargs={"literal_binds": True}))
        driver = connection.connection.dbapi_connection
        assert driver is not None
        named = {"name": "release_judgments"} if dialect == "postgresql" else {}
        if dialect == "postgresql":
            # The planner expects a few dozen lines (it misjudges the candidates' EXISTS)
            # and, for a cursor, looks a million judgments up one by one among the
            # candidates in id order. Every line is read: plan for all of them (one hash
            # join), and sort them by id in memory (~330 MB at L), not on disk. For this
            # read-only transaction only.
            connection.exec_driver_sql("SET LOCAL cursor_tuple_fraction = 1.0")
            connection.exec_driver_sql(f"SET LOCAL work_mem = '{RELEASE_SORT_MEMORY}'")
        cursor = driver.cursor(**named)
        cursor.execute(sql)
        fetched = (
            _read_ahead(cursor, batch)
            if dialect == "postgresql"
            else iter(lambda: cursor.fetchmany(batch), [])
        )
        try:
            for rows in fetched:
                (heads, chunks, middles, seconds, tails, users, queries, grades, rubrics) = zip(
                    *rows, strict=True
                )
                columns = (
                    heads,
                    map(quoted.__getitem__, chunks),
                    middles,
                    _numbers(seconds),
                    tails,
                )
                text = "".join(chain.from_iterable(zip(*columns, strict=True)))
                yield JudgmentLines(text, users, queries, chunks, grades, rubrics)
        finally:
            if isinstance(fetched, Generator):
                fetched.close()  # its thread done before the cursor closes
            cursor.close()

    return ReleaseHistory(people, query_ids, chunk_ids, batches())


def _read_ahead(cursor: Any, batch: int) -> Iterator[list[tuple]]:
    """``cursor``'s rows, ``batch`` at a time, the next batch fetched by a thread while the
    caller works on this one: PostgreSQL builds the next batch's lines meanwhile, on the
    other core, and the driver waits for them without holding the GIL. (Not for SQLite:
    its driver takes the GIL back for every row, so a thread would only wait for it.) At
    most three batches are held: the caller's, one ready, one being fetched."""
    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def put(item: Any) -> None:
        while not stop.is_set():
            with contextlib.suppress(queue.Full):
                ready.put(item, timeout=0.1)
                return

    def fetch() -> None:
        try:
            while not stop.is_set():
                rows = cursor.fetchmany(batch)
                put(rows)
                if not rows:
                    return
        except BaseException as error:  # raised again in the caller's thread
            put(error)

    worker = threading.Thread(target=fetch, name="release-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item = ready.get()
            if isinstance(item, BaseException):
                raise item
            if not item:
                return
            yield item
    finally:
        stop.set()
        worker.join()


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
