"""What ``qrels status`` says the database holds, read from counts kept as it changes.

Every command pays for what it imports before it does anything, and ``status`` is the one
people run to see where things stand: so this is plain SQL on the driver's own connection
(``storage.db.read_connection``: sqlite3 or psycopg), without SQLAlchemy (a third of a
second to import), the models or Alembic, and without loading rows one by one. The SQL is
the same on both databases but for the placeholder, which ``_rows`` sets. What would mean
counting a million rows is kept instead (migrations 0015 and 0017): by the imports, by the
tallies of judgment slots, and by the database's own triggers on ``judgment``.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


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
    # Every candidate of the pool: ``candidates`` (those asked about) and those set apart,
    # gold items and an active pool's not yet chosen. None where not counted.
    pooled: int | None = None


@dataclass
class Status:
    corpus_versions: list[CorpusSummary]
    query_sets: list[QuerySetSummary]
    systems: list[tuple[str, str, int]]  # name, kind, run entries
    pools: list[PoolSummary]
    users: dict[str, int]  # role -> accounts that can log in
    # kind (human, model) -> accounts without a password, who cannot log in: the people
    # whose judgments were imported, and model judges
    without_password: dict[str, int] = field(default_factory=dict)


def status(connection: Any) -> Status:
    """A summary of everything the database holds, for ``qrels status``, read on the
    driver's ``connection`` (in a snapshot: ``storage.db.read_connection``)."""
    return Status(
        corpus_versions=_corpora(connection),
        query_sets=_query_sets(connection),
        # Each run's entries as its import counted them (migration 0017).
        systems=[
            (name, kind, entries)
            for name, kind, entries in _rows(
                connection, "SELECT name, kind, entries FROM system ORDER BY name"
            )
        ],
        pools=_pools(connection),
        users=dict(
            _rows(
                connection,
                "SELECT role, count(*) FROM app_user"
                " WHERE password_hash IS NOT NULL AND NOT disabled GROUP BY role",
            )
        ),
        without_password=dict(
            _rows(
                connection,
                "SELECT kind, count(*) FROM app_user"
                " WHERE password_hash IS NULL AND NOT disabled GROUP BY kind",
            )
        ),
    )


def _rows(connection: Any, sql: str, *params: object) -> list[tuple]:
    """Every row of ``sql`` (``?`` placeholders) on a sqlite3 or psycopg connection."""
    if not isinstance(connection, sqlite3.Connection):
        sql = sql.replace("?", "%s")
    return [tuple(row) for row in connection.execute(sql, params).fetchall()]


def _json(value: Any) -> Any:
    """A JSON column's value: SQLite gives its text, psycopg the parsed value."""
    return json.loads(value) if isinstance(value, str) else value


def _corpora(connection: Any) -> list[CorpusSummary]:
    # Counted by the version's import (migration 0017).
    versions = _rows(
        connection,
        "SELECT name, documents, chunks, chunking, content_hash FROM corpus_version ORDER BY name",
    )
    return [
        CorpusSummary(name, documents, chunks, _json(chunking), content)
        for name, documents, chunks, chunking, content in versions
    ]


def _query_sets(connection: Any) -> list[QuerySetSummary]:
    # Queries alike counted together by the database: a dozen rows for 10,000 queries.
    queries: dict[int, list] = {}
    for set_id, split, answerable, tags, count in _rows(
        connection,
        "SELECT query_set_id, split, answerable, CAST(slices AS TEXT), count(*) FROM query"
        " GROUP BY 1, 2, 3, 4",
    ):
        queries.setdefault(set_id, []).append((split, answerable, json.loads(tags), count))
    names = dict(_rows(connection, "SELECT id, name FROM app_user"))
    sets = _rows(connection, "SELECT id, name FROM query_set ORDER BY name")
    # Judgments per person and the judged queries, as the database keeps them with each
    # judgment (migration 0017): a few rows, not a count of the history.
    people: dict[int, dict[str, int]] = {}
    for set_id, user, count in _rows(
        connection, "SELECT query_set_id, user_id, judgments FROM judgment_tally"
    ):
        people.setdefault(set_id, {})[names[user]] = count
    judged: dict[int, int] = dict(
        _rows(
            connection,
            "SELECT query.query_set_id, count(*) FROM judged_query"
            " JOIN query ON query.id = judged_query.query_id GROUP BY 1",
        )
    )
    summaries = []
    for set_id, name in sets:
        rows, by_annotator = queries.get(set_id, []), dict(sorted(people.get(set_id, {}).items()))
        slices: Counter[str] = Counter()
        for _, _, tags, count in rows:
            slices.update(dict.fromkeys(tags, count))
        summaries.append(
            QuerySetSummary(
                name=name,
                queries=sum(count for *_, count in rows),
                dev=sum(count for split, *_, count in rows if split == "dev"),
                test=sum(count for split, *_, count in rows if split == "test"),
                unanswerable=sum(count for _, answerable, _, count in rows if not answerable),
                slices=dict(sorted(slices.items())),
                judgments=sum(by_annotator.values()),
                judged_queries=judged.get(set_id, 0),
                judgments_by_annotator=by_annotator,
            )
        )
    return summaries


def _pools(connection: Any) -> list[PoolSummary]:
    set_names = dict(_rows(connection, "SELECT id, name FROM query_set"))
    version_names = dict(_rows(connection, "SELECT id, name FROM corpus_version"))
    pools = _rows(
        connection,
        "SELECT id, name, query_set_id, corpus_version_id, overlap, config FROM pool ORDER BY name",
    )
    summaries = []
    for id_, name, set_id, version_id, overlap, config in pools:
        summary = pool_counts(
            connection, id_, name, set_names[set_id], version_names[version_id], overlap
        )
        summary.systems = (_json(config) or {}).get("systems_spec", "")
        summaries.append(summary)
    return summaries


def pool_counts(
    connection: Any,
    pool_id: int,
    name: str,
    query_set_name: str,
    corpus_version_name: str,
    overlap: int,
    complete: int | None = None,
) -> PoolSummary:
    """A pool's size and how many candidates have their judgments, read on the driver's
    ``connection``; ``complete`` when the caller counted that already
    (``storage.counts.completions_by_hour`` adds up to it)."""
    # From the kept tallies (storage.tallies), not from every candidate (a third of a second
    # at half a million): per query the candidates asked about (an active pool's chosen
    # ones) and those complete, with ``overlap`` distinct human judges.
    pooled, asked, kept = _rows(
        connection,
        "SELECT coalesce(sum(candidates), 0), coalesce(sum(asked), 0),"
        " coalesce(sum(complete), 0) FROM query_tally WHERE pool_id = ?",
        pool_id,
    )[0]
    return PoolSummary(
        name=name,
        query_set=query_set_name,
        corpus_version=corpus_version_name,
        candidates=asked,
        overlap=overlap,
        complete=kept if complete is None else complete,
        pooled=pooled,
    )
