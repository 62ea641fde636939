"""A release's judgments.jsonl as it is read from the database: every human judgment of a pool's
candidates and every adjudication made in it, oldest first, people under pseudonyms
(``storage.history.pseudonym``). For each person and candidate the last judgment is the
current one (``storage.history``'s rule), for each candidate the last adjudication the
final word; ``annotator.releases.release_files`` writes the lines and takes the current
grades from their rows."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from itertools import chain, compress, islice
from typing import Any

import numpy as np
import orjson
from sqlalchemy import DateTime, String, case, cast, func, literal, type_coerce
from sqlmodel import Session, select

from pooling.release_format import ADJUDICATION, FIELDS, JUDGMENT, KIND, record
from storage.catalog import chunk_keys, query_keys
from storage.db import driver_rows
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

LINE_END = '"}\n'  # after a judgment's time, the last field of its line
# ',"field":' for each field of a judgment's line: the pieces a line is joined from name the
# format's fields (``pooling.release_format``), so a field renamed there cannot drift here.
_AFTER = {name: ',"' + name + '":' for name in FIELDS[JUDGMENT]}
_LINE_START = "{" + _AFTER[KIND][1:] + orjson.dumps(JUDGMENT).decode() + _AFTER["annotator"]


class Candidates:
    """The pool's candidates as sorted integers (query key × ``span`` + chunk key), to tell
    which of a batch of judgments are of one of them (``storage.history._on_candidates``'s
    rule) on whole columns, and so which candidates no person judged. The database no longer
    checks each judgment: its EXISTS cost SQLite half a second at L, and PostgreSQL a hash
    join whose result it sorted by id (2 s before the first line), where the judgments
    alone come in id order from their primary key."""

    def __init__(self, pool: Pool, span: int, *, session: Session) -> None:
        self.span = span  # above every chunk key of the pool's corpus version
        rows = driver_rows(
            session,
            select(PoolCandidate.query_id, PoolCandidate.chunk_id).where(
                PoolCandidate.pool_id == pool.id
            ),
        )
        pairs = np.fromiter(chain.from_iterable(rows), np.int64, 2 * len(rows))
        self.keys = np.sort(pairs[0::2] * span + pairs[1::2])
        self.judged = np.zeros(len(self.keys), bool)
        self.read = False  # every judgment asked about: ``unjudged`` can be told

    def of(self, queries: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        """For each judgment (its query and chunk keys), whether it is of a candidate (a
        chunk of another corpus version, a key not below ``span``, never is); those
        candidates are judged from then on."""
        if not len(self.keys):
            return np.zeros(len(queries), bool)
        wanted = queries * self.span + chunks
        found = np.searchsorted(self.keys, wanted)
        found[found == len(self.keys)] = 0  # above every key: compared with any, unequal
        kept = (chunks < self.span) & (self.keys[found] == wanted)
        self.judged[found[kept]] = True
        return kept

    def unjudged(self) -> list[tuple[int, int]]:
        """The (query key, chunk key) of the candidates no judgment ``of`` was asked about
        was of, in that order; raises ``RuntimeError`` before every judgment was (``read``):
        a candidate not yet seen is not unjudged."""
        if not self.read:
            raise RuntimeError("the candidates nobody judged are known once every line is read")
        left = self.keys[~self.judged]
        return list(zip((left // self.span).tolist(), (left % self.span).tolist(), strict=True))


def _iso_text(column: Any, dialect: str) -> Any:
    """A stored time as text: on PostgreSQL as ``storage.history.iso_time`` writes it (ISO
    8601 without a zone, the microseconds left out when they are 0), taken in the session's
    zone as the driver's datetime is; on SQLite its stored text (``YYYY-MM-DD
    HH:MM:SS.ffffff``), which ``_line_ends`` rewrites."""
    if dialect == "sqlite":
        return type_coerce(column, String)
    local = cast(column, DateTime(timezone=False))
    micro = func.to_char(local, "US")
    return _joined(
        func.to_char(local, 'YYYY-MM-DD"T"HH24:MI:SS'),
        case((micro == "000000", ""), else_=_joined(".", micro)),
    )


def _line_ends(times: tuple[str, ...], dialect: str) -> list[str]:
    """Each of ``_iso_text``'s ``times`` as ``storage.history.iso_time`` writes it, followed by
    the end of its line. On SQLite its stored text is rewritten (``.000000``, its only
    ``.``, left out; ``T`` for the space): on the batch's times joined, in three calls for
    the batch, where SQLite's ``replace`` took a tenth of its read."""
    ends = _iso(LINE_END.join(times) + LINE_END, dialect).splitlines(keepends=True)
    if len(ends) != len(times):  # a time with a line break (none a database wrote)
        ends = [_iso(time, dialect) + LINE_END for time in times]
    return ends


def _iso(text: str, dialect: str) -> str:
    """``text``'s SQLite times rewritten as ``_line_ends`` says (no ``.`` nor space in its
    line ends, so each is rewritten as it would be alone)."""
    return text.replace(".000000", "").replace(" ", "T") if dialect == "sqlite" else text


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
    candidates: Candidates

    def unjudged(self) -> list[tuple[str, str]]:
        """The (query id, chunk id) of the pool's candidates no person judged (in any pool,
        or imported; a model judge's grade is not a person's), once every batch was read:
        a judged one is graded or unresolved by its judgments, so these are all
        ``annotator.quality.adjudication.resolve`` needs beside them. Found while the lines
        are read, instead of a look in the judgments' index for each candidate."""
        return [
            (self.query_ids[query], self.chunk_ids[chunk])
            for query, chunk in self.candidates.unjudged()
        ]


@dataclass
class JudgmentLines:
    """``text``: judgments.jsonl's lines for a batch of judgments, oldest first; then per
    judgment its person (user id), query and chunk keys, grade (None: unsure) and rubric."""

    text: str
    people: tuple[int, ...]
    queries: np.ndarray  # int64
    chunks: np.ndarray  # int64
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
    candidates = Candidates(pool, max(chunk_ids, default=0) + 1, session=session)
    if not people:
        candidates.read = True  # no person, no judgment of theirs
        return ReleaseHistory(people, query_ids, chunk_ids, iter(()), candidates)
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
    # SQLite: ``+ 0``, not by the index of people, which it then read in its order and
    # sorted a million rows by id. PostgreSQL: the column itself, whose estimate (most
    # judgments) has the planner read them by the primary key, where ``+ 0``'s (a few
    # percent) had it scan in parallel and sort on disk before the first line (1.1 s).
    by_people = Judgment.user_id + 0 if dialect == "sqlite" else Judgment.user_id
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
            Judgment.reason,
            _iso_text(Judgment.created_at, dialect),
        )
        # In their own order as they are stored, no join: which are of a candidate is
        # told batch by batch (``Candidates``), so no sort of a million rows.
        .where(by_people.in_(people))
        .order_by(Judgment.id)
    )
    # Each field's piece holds the text up to the next field's value, so a line is its
    # pieces joined: {"type":"judgment","annotator":…,"query_id":…,"chunk_id":…,"grade":…,
    # "unsure":…,"note":…,"revision":…,"rubric_version":…,"seconds":…,"source":…,
    # ["reason":…,] "created_at":"…"} (``reason`` only where it was recorded: why the
    # judgment was asked for, ``storage.models.ASKED_WHY``; readers that do not know it
    # pass it by)
    annotators = {
        user_id: _LINE_START + _json(name) + _AFTER["query_id"] for user_id, name in people.items()
    }
    queries = {key: _json(name) + _AFTER["chunk_id"] for key, name in query_ids.items()}
    chunks = {key: _json(name) + _AFTER["grade"] for key, name in chunk_ids.items()}
    # A judgment is unsure exactly when it has no grade (the table's check says so).
    grades = _Pieces(
        lambda grade: _json(grade) + _AFTER["unsure"] + _json(grade is None) + _AFTER["note"]
    )
    notes = _Pieces(lambda note: _json(note) + _AFTER["revision"])
    revisions = _Pieces(lambda revision: _json(revision) + _AFTER["rubric_version"])
    rubrics = _Pieces(lambda rubric: _json(rubric) + _AFTER["seconds"])
    made = _Pieces(
        lambda key: (
            _AFTER["source"]
            + _json(sources[key[0]])
            + ("" if key[1] is None else _AFTER["reason"] + _json(key[1]))
            + _AFTER["created_at"]
            + '"'
        )
    )

    def batches() -> Iterator[JudgmentLines]:
        # A batch at a time, turned into columns (``zip``) and joined without a Python
        # step per judgment. Read with the driver's own cursor in the snapshot's
        # transaction (``_read``), as plain tuples: no column needs SQLAlchemy's
        # processing, and its rows took a tenth of a release at L. The few values bound
        # (people's ids) are the tool's own, written in.
        connection = session.connection()
        sql = str(judgments.compile(connection, compile_kwargs={"literal_binds": True}))
        driver = connection.connection.dbapi_connection
        assert driver is not None
        fetched = _read(driver, sql, dialect, batch)
        try:
            for rows in fetched:
                columns = list(zip(*rows, strict=True))
                keys, chunk_keys_ = (np.fromiter(c, np.int64, len(rows)) for c in columns[1:3])
                kept = candidates.of(keys, chunk_keys_)
                if not kept.all():  # judgments of other pools' candidates: left out
                    if not kept.any():
                        continue
                    columns = [tuple(compress(c, kept.tolist())) for c in columns]
                    keys, chunk_keys_ = keys[kept], chunk_keys_[kept]
                users, _, _, graded, said, revised, rubric, seconds, where, why, at = columns
                pieces = (
                    map(annotators.__getitem__, users),
                    map(queries.__getitem__, columns[1]),
                    map(chunks.__getitem__, columns[2]),
                    map(grades.__getitem__, graded),
                    map(notes.__getitem__, said),
                    map(revisions.__getitem__, revised),
                    map(rubrics.__getitem__, rubric),
                    _numbers(seconds),
                    map(made.__getitem__, zip(where, why, strict=True)),
                    _line_ends(at, dialect),
                )
                text = "".join(chain.from_iterable(zip(*pieces, strict=True)))
                yield JudgmentLines(text, users, keys, chunk_keys_, graded, rubric)
            candidates.read = True
        finally:
            fetched.close()

    return ReleaseHistory(people, query_ids, chunk_ids, batches(), candidates)


def _read(driver: Any, sql: str, dialect: str, batch: int) -> Generator[list[tuple], None, None]:
    """The rows of ``sql``, ``batch`` at a time, read with the driver's own cursor. Fetched in
    this thread: a thread reading ahead cost the client CPU in the GIL's hand-overs. On
    PostgreSQL they are streamed (libpq 17 and later: rows sent in chunks), so the server
    reads the next judgments while this process joins the lines, where a server-side
    cursor's ``FETCH`` had it wait for each batch (the whole read at L: 3.7 s → 2-2.8 s
    wall, the client's CPU the same); with an older libpq, a server-side cursor."""
    if dialect == "postgresql":
        from psycopg import pq

        if pq.version() >= 170000:
            cursor = driver.cursor()
            rows = cursor.stream(sql, size=batch)
            try:
                yield from iter(lambda: list(islice(rows, batch)), [])
            finally:
                rows.close()  # a stream left early is cancelled
                cursor.close()
            return
    cursor = driver.cursor(name="release_judgments") if dialect == "postgresql" else driver.cursor()
    try:
        cursor.execute(sql)
        yield from iter(lambda: cursor.fetchmany(batch), [])
    finally:
        cursor.close()


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
        yield record(
            ADJUDICATION,
            lead=pseudonym(user_id, joined),
            query_id=query_id,
            chunk_id=chunk_id,
            grade=grade,
            rationale=rationale,
            policy=policy,
            created_at=iso_time(created_at),
        )
