"""Pools in the database: create one from candidates, top it up, report on it, export it.

What to pool is decided in ``pooling`` (which knows nothing of the database); this module
feeds it corpus texts, queries and imported runs, and stores what it returns. Every
function takes a keyword-only ``session`` and never commits.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert, update
from sqlmodel import Session, col, select

from pooling.i18n import LocalizedError, NotFound
from pooling.pool import Candidate, Source, shuffle_key
from pooling.readers import typed_name
from pooling.retrievers import Corpus, indexed_text
from storage import annotator_tallies, one_grade, tallies
from storage.catalog import chunk_keys, query_keys
from storage.counts import query_sizes, system_combinations
from storage.models import (
    NOT_ASKED,
    Assignment,
    CandidateSource,
    Chunk,
    CorpusVersion,
    Document,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    User,
    utcnow,
)

MANUAL_PREFIX = "manual:"


def find_pool(name: str, *, session: Session) -> Pool | None:
    """The pool called ``name``, or None."""
    return session.exec(select(Pool).where(Pool.name == name)).first()


def pool_names(*, session: Session) -> list[str]:
    """The names of all pools, oldest first."""
    return list(session.exec(select(Pool.name).order_by(Pool.id)).all())


def get_pool(name: str, *, session: Session) -> Pool:
    """The pool called ``name``; raises ``NotFound`` listing the pools there are."""
    pool = find_pool(name, session=session)
    if pool is None:
        known = ", ".join(session.exec(select(Pool.name).order_by(Pool.name)).all()) or "-"
        raise NotFound("pool_unknown", name=name, known=known)
    return pool


def retrieval_corpus(corpus_version: CorpusVersion, *, session: Session) -> Corpus:
    """The chunks of a corpus version as retrievers index them: the parent document's title,
    then the chunk text."""
    rows = session.exec(
        select(Chunk.chunk_id, Document.title, Chunk.text)
        .join(Document, Document.id == Chunk.document_id)
        .where(Chunk.corpus_version_id == corpus_version.id)
        .order_by(Chunk.id)
    ).all()
    return Corpus(
        fingerprint=corpus_version.content_hash,
        ids=[chunk_id for chunk_id, _, _ in rows],
        texts=[indexed_text(title, text) for _, title, text in rows],
    )


def query_texts(query_set: QuerySet, *, session: Session) -> dict[str, str]:
    """Query id -> text, for the queries of one set."""
    rows = session.exec(
        select(Query.query_id, Query.text)
        .where(Query.query_set_id == query_set.id)
        .order_by(Query.id)
    ).all()
    return dict(rows)


GOLD_PREFIX = "gold:"  # provenance of a candidate put in the pool as gold (leads only)


@dataclass
class PoolResult:
    """What a build or top-up did to a pool."""

    name: str
    added: int
    queries: int
    already_in_pool: int = 0
    already_judged: int = 0
    sources_added: int = 0  # a top-up's new provenance of candidates already in the pool

    @property
    def changed(self) -> bool:
        """Whether the pool holds anything new: candidates, or provenance of its own."""
        return bool(self.added or self.sources_added)


def _insert_candidates(
    pool: Pool,
    candidates: list[Candidate],
    queries: dict[str, int],
    chunks: dict[str, int],
    *,
    session: Session,
    required: int | None = None,
    fresh: bool = False,
    rubric: str | None = None,
) -> None:
    seed = pool.config.get("seed", pool.name)
    now = utcnow()
    session.execute(
        insert(PoolCandidate),
        [
            {
                "pool_id": pool.id,
                "query_id": queries[c.query_id],
                "chunk_id": chunks[c.chunk_id],
                "shuffle_key": shuffle_key(seed, c.query_id, c.chunk_id),
                "required": required,
                "added_at": now,
            }
            for c in candidates
        ],
    )
    added = [(queries[c.query_id], required) for c in candidates]
    tallies.candidates_added(pool, added, session=session)
    # A pair someone graded already (in another pool, an import) is theirs here too.
    keys = {(queries[c.query_id], chunks[c.chunk_id]) for c in candidates}
    # Under the rubric in force (``rubric``, the caller's: None counts any version).
    one_grade.earlier_grades(pool, keys, session=session, now=now, fresh=fresh, rubric=rubric)
    # Their judges: the people with a row judged now (a grade under another rubric is none).
    tallies.judges_counted(pool, session=session)
    _insert_sources(pool, candidates, queries, chunks, session=session)


def _candidate_keys(pool: Pool, *, session: Session) -> dict[tuple[int, int], int]:
    rows = session.exec(
        select(PoolCandidate.query_id, PoolCandidate.chunk_id, PoolCandidate.id).where(
            PoolCandidate.pool_id == pool.id
        )
    ).all()
    return {(q, c): candidate for q, c, candidate in rows}


def _insert_sources(
    pool: Pool,
    candidates: list[Candidate],
    queries: dict[str, int],
    chunks: dict[str, int],
    *,
    session: Session,
) -> int:
    """Add the provenance of ``candidates`` (in the pool already) that the pool lacks;
    returns how many (candidate, system) rows were added."""
    keys = _candidate_keys(pool, session=session)
    existing = set(
        session.exec(
            select(CandidateSource.candidate_id, CandidateSource.system)
            .join(PoolCandidate, PoolCandidate.id == CandidateSource.candidate_id)
            .where(PoolCandidate.pool_id == pool.id)
        ).all()
    )
    rows = []
    for candidate in candidates:
        key = keys[(queries[candidate.query_id], chunks[candidate.chunk_id])]
        for source in candidate.sources:
            if (key, source.system) not in existing:
                rows.append(
                    {
                        "candidate_id": key,
                        "system": source.system,
                        "rank": source.rank,
                        "score": source.score,
                    }
                )
    if rows:
        session.execute(insert(CandidateSource), rows)
    return len(rows)


def create_pool(
    name: str,
    candidates: list[Candidate],
    *,
    session: Session,
    query_set: QuerySet,
    corpus_version: CorpusVersion,
    config: dict,
    overlap: int = 2,
    rubric: str | None = None,
) -> PoolResult:
    """Store a new pool with its candidates, their provenance and its config; grades made
    before under rubric version ``rubric`` (the one in force) count in it
    (``storage.one_grade``).
    Raises ``ValueError`` when the name is taken or ``overlap`` is below 1."""
    typed_name(name, "what_pool_name")
    if overlap < 1:
        raise LocalizedError("overlap_positive", value=overlap)
    if find_pool(name, session=session) is not None:
        raise LocalizedError("pool_exists", name=name)
    pool = Pool(
        name=name,
        query_set_id=query_set.id,
        corpus_version_id=corpus_version.id,
        config={"seed": name, **config},
        overlap=overlap,
    )
    session.add(pool)
    session.flush()
    queries, chunks = (
        query_keys(query_set, session=session),
        chunk_keys(corpus_version, session=session),
    )
    if candidates:
        # An active pool asks about a candidate only once active pooling chooses it.
        required = NOT_ASKED if config.get("strategy") == "active" else None
        _insert_candidates(
            pool,
            candidates,
            queries,
            chunks,
            session=session,
            required=required,
            fresh=True,
            rubric=rubric,
        )
    return PoolResult(name, added=len(candidates), queries=len({c.query_id for c in candidates}))


def _versions_and_keys(pool: Pool, *, session: Session):
    """The pool's query set and corpus version, and their id -> key maps."""
    query_set = session.get(QuerySet, pool.query_set_id)
    corpus_version = session.get(CorpusVersion, pool.corpus_version_id)
    queries = query_keys(query_set, session=session)
    return query_set, corpus_version, queries, chunk_keys(corpus_version, session=session)


def judged_pairs(query_set: QuerySet, *, session: Session) -> set[tuple[int, int]]:
    """(query key, chunk key) pairs that any human has judged, in any pool or import."""
    rows = session.exec(
        select(Judgment.query_id, Judgment.chunk_id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .where(User.kind == "human", Query.query_set_id == query_set.id)
        .distinct()
    ).all()
    return set(rows)


def topup_pool(
    pool: Pool,
    candidates: list[Candidate],
    *,
    session: Session,
    config: dict,
    rubric: str | None = None,
) -> PoolResult:
    """Add the candidates that are neither in ``pool`` nor judged by anyone yet; for those
    already in the pool only the new systems' provenance is added. Judged candidates and
    everything already in the pool stay as they are. ``config`` is appended to the pool's
    record of top-ups when the top-up changed the pool (``PoolResult.changed``); one that
    added nothing is not recorded, since it played no part in how the pool was made."""
    query_set, corpus_version, queries, chunks = _versions_and_keys(pool, session=session)
    in_pool = _candidate_keys(pool, session=session)
    judged = judged_pairs(query_set, session=session)
    new, known, skipped = [], [], 0
    for candidate in candidates:
        key = (queries[candidate.query_id], chunks[candidate.chunk_id])
        if key in in_pool:
            known.append(candidate)
        elif key in judged:
            skipped += 1
        else:
            new.append(candidate)
    if new:
        _insert_candidates(pool, new, queries, chunks, session=session, rubric=rubric)
    sourced = _insert_sources(pool, known, queries, chunks, session=session) if known else 0
    result = PoolResult(
        pool.name,
        added=len(new),
        queries=len({c.query_id for c in new}),
        already_in_pool=len(known),
        already_judged=skipped,
        sources_added=sourced,
    )
    if result.changed:
        pool.config = {**pool.config, "topups": [*pool.config.get("topups", []), config]}
        session.add(pool)
    return result


def ensure_candidates(
    pool: Pool,
    candidates: list[Candidate],
    *,
    session: Session,
    required: int | None = None,
    rubric: str | None = None,
) -> tuple[dict[tuple[int, int], int], set[tuple[int, int]]]:
    """Put ``candidates`` in the pool: those not in it yet as new candidates needing
    ``required`` judgments, every one with its provenance. Returns the candidate ids by
    (query key, chunk key) and the keys that were new."""
    _, _, queries, chunks = _versions_and_keys(pool, session=session)
    keys = [(queries[c.query_id], chunks[c.chunk_id]) for c in candidates]
    before = _candidate_keys(pool, session=session)
    new_keys = {key for key in keys if key not in before}
    new = [c for c, key in zip(candidates, keys, strict=True) if key in new_keys]
    known = [c for c, key in zip(candidates, keys, strict=True) if key not in new_keys]
    if new:
        _insert_candidates(
            pool, new, queries, chunks, session=session, required=required, rubric=rubric
        )
    if known:
        _insert_sources(pool, known, queries, chunks, session=session)
    present = _candidate_keys(pool, session=session) if new else before
    return {key: present[key] for key in keys}, new_keys


def add_manual_candidate(
    pool: Pool,
    query_id: str,
    chunk_id: str,
    user: str,
    *,
    session: Session,
    finder: int | None = None,
    rubric: str | None = None,
) -> bool:
    """Add a chunk an annotator found by searching to a query's pool, with provenance
    ``manual:<user>``. Returns False when it was in the pool already (the provenance is
    still recorded). A new candidate is not offered to its ``finder`` (a user id) nor
    counted in their progress: what is open to them changes the same whether or not the
    chunk was in the pool, so the finder cannot tell (issue 21, item 5). Raises
    ``NotFound`` for an id the pool's versions do not know."""
    query_set, corpus_version, queries, chunks = _versions_and_keys(pool, session=session)
    if query_id not in queries:
        raise NotFound("unknown_query", value=query_id, query_set=query_set.name)
    if chunk_id not in chunks:
        raise NotFound("unknown_chunk", value=chunk_id, corpus_version=corpus_version.name)
    candidate = Candidate(query_id, chunk_id, [Source(f"{MANUAL_PREFIX}{user}", None, None)])
    ids, new = ensure_candidates(pool, [candidate], session=session, rubric=rubric)
    if new:  # a person found it: its judgments say so
        session.execute(
            update(PoolCandidate)
            .where(col(PoolCandidate.id).in_(list(ids.values())))
            .values(reason="search")
        )
    if new and finder is not None and not _has_row(ids, finder, session=session):
        (candidate_id,) = ids.values()
        now = utcnow()
        session.add(
            Assignment(
                pool_id=pool.id,
                candidate_id=candidate_id,
                user_id=finder,
                taken_at=now,
                expires_at=now,
                found_at=now,
            )
        )
        session.flush()
        annotator_tallies.found(pool, finder, session=session)
    return bool(new)


def _has_row(ids: dict[tuple[int, int], int], user_id: int, *, session: Session) -> bool:
    """Whether ``user_id`` has a row for the candidate of ``ids`` (one graded already)."""
    (candidate_id,) = ids.values()
    mine = select(Assignment.id).where(
        Assignment.candidate_id == candidate_id, Assignment.user_id == user_id
    )
    return session.exec(mine).first() is not None


# -- reading a pool ---------------------------------------------------------------------


@dataclass
class PoolReport:
    """Size per query, and per system: candidates found, found by no other system (unique
    contribution), and shared with each other system; and the candidates each combination
    of systems found (an UpSet chart's bars)."""

    name: str
    config: dict
    overlap: int
    sizes: dict[str, int]
    found: dict[str, int] = field(default_factory=dict)
    unique: dict[str, int] = field(default_factory=dict)
    shared: dict[str, dict[str, int]] = field(default_factory=dict)
    # each set of systems (names sorted) -> the candidates exactly that set found
    combinations: dict[tuple[str, ...], int] = field(default_factory=dict)


def pool_candidates(pool: Pool, *, session: Session) -> list[Candidate]:
    """Every candidate of the pool with its provenance, by query then shuffle order."""
    rows = session.exec(
        select(PoolCandidate.id, Query.query_id, Chunk.chunk_id)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(PoolCandidate.pool_id == pool.id)
        .order_by(Query.query_id, PoolCandidate.shuffle_key)
    ).all()
    sources = defaultdict(list)
    for candidate_id, system, rank, score in session.exec(
        select(
            CandidateSource.candidate_id,
            CandidateSource.system,
            CandidateSource.rank,
            CandidateSource.score,
        )
        .join(PoolCandidate, PoolCandidate.id == CandidateSource.candidate_id)
        .where(PoolCandidate.pool_id == pool.id)
        .order_by(CandidateSource.id)
    ).all():
        sources[candidate_id].append((system, rank, score))
    return [
        Candidate(query_id, chunk_id, [Source(*s) for s in sources[key]])
        for key, query_id, chunk_id in rows
    ]


def pool_report(
    pool: Pool, *, session: Session, counted: dict[tuple[str, ...], int] | None = None
) -> PoolReport:
    """How the pool is made up: see ``PoolReport``. Counted by the database (one grouped
    count per query, one per combination of systems), not candidate by candidate;
    ``counted``, the combinations of systems when the caller counted them already (as
    ``storage.counts.system_combinations`` gives them)."""
    if counted is None:
        counted = system_combinations(pool, session=session)
    combinations: dict[tuple[str, ...], int] = {}
    for systems, count in counted.items():
        # A lead's gold item (provenance gold:<source>) was found by no system.
        found = tuple(name for name in systems if not name.startswith(GOLD_PREFIX))
        if found:
            combinations[found] = combinations.get(found, 0) + count
    names = sorted({name for systems in combinations for name in systems})

    def found_by(*wanted: str) -> int:
        return sum(n for systems, n in combinations.items() if set(wanted) <= set(systems))

    return PoolReport(
        name=pool.name,
        config=pool.config,
        overlap=pool.overlap,
        sizes=query_sizes(pool, session=session),
        found={n: found_by(n) for n in names},
        unique={n: combinations.get((n,), 0) for n in names},
        shared={a: {b: found_by(a, b) for b in names if b != a} for a in names},
        combinations=combinations,
    )


def export_pool(pool: Pool, path: Path | str, *, session: Session) -> int:
    """Write the pool as JSONL: ``query_id``, ``chunk_id``, ``provenance`` (a list of
    ``{system, rank, score}``, ranks from 1). Returns the number of candidates written."""
    candidates = pool_candidates(pool, session=session)
    with open(path, "w", encoding="utf-8") as handle:
        for candidate in candidates:
            record = {
                "query_id": candidate.query_id,
                "chunk_id": candidate.chunk_id,
                "provenance": [
                    {"system": s.system, "rank": s.rank, "score": s.score}
                    for s in candidate.sources
                ],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(candidates)
