"""How long the figures behind the lead's charts take on a large pool, beside the way the
team table was computed before them (every current judgment read into pandas).

Writes a synthetic pool straight into a fresh database (bulk inserts, fixed seed): QUERIES
queries of CANDIDATES candidates each, ANNOTATORS annotators, overlap 2, so that every
candidate judged twice makes JUDGMENTS = 2 x QUERIES x CANDIDATES app judgments, spread over
DAYS days, with one revision in fifty and one unsure in forty, and a lead's decision on one
candidate in five. Then times, each the median of
RUNS runs after a first one (whose time is shown apart: the database's cache is cold):

- ``baseline``: every annotator's current judgment read into a data frame and grouped
  (the team table before the charts);
- ``team``: ``progress.team_figures`` (the whole Team progress page's data);
- ``mine``: ``progress.my_progress`` for one annotator;
- ``pools``: ``pool_figures.pool_figures`` (systems, relevance, combinations).

    python benchmarks/lead_figures.py [--queries 2000] [--candidates 250] [--db URL]

``--db`` takes an empty, migrated database (PostgreSQL: a fresh schema); by default a SQLite
file in a temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SEED = 5
SYSTEMS = ("bm25", "vector", "rrf")
BATCH = 50_000
DECIDED = 5  # one candidate in five has a lead's decision


def insert(session, model, rows: list[dict]) -> None:
    from sqlalchemy import insert as sql_insert

    for start in range(0, len(rows), BATCH):
        session.execute(sql_insert(model), rows[start : start + BATCH])


def fill(engine, queries: int, candidates: int, annotators: int, days: int) -> int:
    """The synthetic pool ``p``; returns how many judgments it holds."""
    from sqlalchemy import text

    from storage import models as m
    from storage.db import session_scope

    rng = np.random.default_rng(SEED)
    start = datetime(2026, 1, 5, 8, tzinfo=UTC)
    with session_scope(engine) as session:
        cv = m.CorpusVersion(name="c", content_hash="c")
        qs = m.QuerySet(name="q", content_hash="q")
        session.add_all([cv, qs])
        session.flush()
        documents = queries * candidates // 2  # half the chunks of one query serve another
        insert(
            session,
            m.Document,
            [
                {"corpus_version_id": cv.id, "doc_id": f"d{i}", "title": "", "meta": {}}
                for i in range(documents)
            ],
        )
        insert(
            session,
            m.Chunk,
            [
                {
                    "corpus_version_id": cv.id,
                    "chunk_id": f"c{i}",
                    "document_id": i + 1,
                    "position": 0,
                    "text": f"chunk {i}",
                    "text_sha256": "",
                }
                for i in range(documents)
            ],
        )
        insert(
            session,
            m.Query,
            [
                {
                    "query_set_id": qs.id,
                    "query_id": f"q{i}",
                    "text": "",
                    "slices": [],
                    "split": "test",
                    "meta": {},
                }
                for i in range(queries)
            ],
        )
        users = [m.User(name=f"ann{i:02}", role="annotator") for i in range(annotators)]
        lead = m.User(name="lead", role="lead")
        pool = m.Pool(name="p", query_set_id=qs.id, corpus_version_id=cv.id, overlap=2)
        session.add_all([*users, lead, pool])
        session.flush()
        chunk = rng.integers(1, documents + 1, size=(queries, candidates * 2))
        pairs = []
        for q in range(queries):
            pairs += [(q + 1, int(c)) for c in dict.fromkeys(chunk[q])][:candidates]
        insert(
            session,
            m.PoolCandidate,
            [
                {
                    "pool_id": pool.id,
                    "query_id": q,
                    "chunk_id": c,
                    "shuffle_key": i,
                    "added_at": start,
                }
                for i, (q, c) in enumerate(pairs)
            ],
        )
        found = rng.random((len(pairs), len(SYSTEMS))) < 0.6
        found[:, 0] |= ~found.any(axis=1)  # every candidate found by some system
        insert(
            session,
            m.CandidateSource,
            [
                {"candidate_id": int(i) + 1, "system": SYSTEMS[int(s)], "rank": 1, "score": 1.0}
                for i, s in zip(*np.nonzero(found), strict=True)
            ],
        )
        judgments = _judgments(rng, pairs, [u.id for u in users], pool.id, start, days)
        insert(session, m.Assignment, judgments[0])
        insert(session, m.Judgment, judgments[1])
        decided = {"pool_id": pool.id, "user_id": lead.id, "rationale": "", "created_at": start}
        insert(
            session,
            m.Adjudication,
            [
                {**decided, "query_id": q, "chunk_id": c, "grade": int(rng.integers(0, 4))}
                for q, c in pairs[::DECIDED]
            ],
        )
        session.execute(text("ANALYZE"))  # the planner's statistics, as a working database has
    return len(judgments[1])


def _judgments(rng, pairs, users, pool_id, start, days):
    """Two annotators per candidate, each an assignment and a judgment (one in fifty a
    second revision), at random times over ``days`` working days (8:00 to 18:00 UTC)."""
    assignments, judgments = [], []
    who = np.array([rng.choice(users, size=2, replace=False) for _ in range(len(pairs))])
    seconds = rng.uniform(0, days * 10 * 3600, size=(len(pairs), 2))
    grades = rng.integers(0, 4, size=(len(pairs), 2))
    for i, (q, c) in enumerate(pairs):
        for k in range(2):
            s = seconds[i, k]
            at = start + timedelta(days=int(s // 36000), seconds=float(s % 36000))
            assignment = len(assignments) + 1
            unsure = rng.random() < 1 / 40
            revisions = 2 if rng.random() < 1 / 50 else 1
            assignments.append(
                {
                    "pool_id": pool_id,
                    "candidate_id": i + 1,
                    "user_id": int(who[i, k]),
                    "slot": k,
                    "revision": revisions,  # as storage.slots keeps it: the latest judgment's
                    "taken_at": at,
                    "expires_at": at,
                    "done_at": at,
                }
            )
            for revision in range(1, revisions + 1):
                judgments.append(
                    {
                        "user_id": int(who[i, k]),
                        "query_id": q,
                        "chunk_id": c,
                        "grade": None if unsure else int(grades[i, k]),
                        "unsure": unsure,
                        "note": "",
                        "rubric_version": "v1",
                        "seconds": float(rng.uniform(5, 90)),
                        "pool_id": pool_id,
                        "assignment_id": assignment,
                        "revision": revision,
                        "created_at": at + timedelta(minutes=revision - 1),
                    }
                )
    return assignments, judgments


def baseline(engine) -> None:
    """The team table as computed before the charts: every current judgment in pandas."""
    import pandas as pd
    from sqlmodel import select

    from storage.db import session_scope
    from storage.history import latest_judgments
    from storage.models import Judgment, Query, User
    from storage.pool_records import get_pool

    with session_scope(engine) as session:
        pool = get_pool("p", session=session)
        latest = latest_judgments(Judgment.pool_id == pool.id, Judgment.assignment_id.is_not(None))
        rows = session.exec(
            select(User.name, Query.query_id, Judgment.grade, Judgment.unsure, Judgment.seconds)
            .join(latest, latest.c.id == Judgment.id)
            .join(User, User.id == Judgment.user_id)
            .join(Query, Query.id == Judgment.query_id)
        ).all()
    frame = pd.DataFrame(rows, columns=["annotator", "query", "grade", "unsure", "seconds"])
    frame.groupby("annotator").agg(
        judged=("grade", "size"), unsure=("unsure", "sum"), seconds=("seconds", "median")
    )


def timed(work, runs: int) -> tuple[float, float]:
    """The first run's seconds, and the median of ``runs`` more."""
    times = []
    for _ in range(runs + 1):
        begin = time.perf_counter()
        work()
        times.append(time.perf_counter() - begin)
    return times[0], statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--candidates", type=int, default=250)
    parser.add_argument("--annotators", type=int, default=40)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()

    from annotator.pools.pool_figures import pool_figures
    from annotator.quality.progress import my_progress, team_figures
    from storage.db import make_engine, upgrade

    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(args.db or f"sqlite:///{Path(folder) / 'lead.db'}")
        upgrade(engine)
        begin = time.perf_counter()
        judgments = fill(engine, args.queries, args.candidates, args.annotators, args.days)
        print(
            f"{engine.dialect.name}: {judgments:,} judgments written in "
            f"{time.perf_counter() - begin:.0f} s"
        )
        cases = {
            "baseline: every judgment into pandas": lambda: baseline(engine),
            "team: progress.team_figures": lambda: team_figures(engine, "p"),
            "mine: progress.my_progress": lambda: my_progress(engine, "p", "ann00"),
            "pools: pool_figures.pool_figures": lambda: pool_figures(engine, "p"),
        }
        print("| figures | first run (s) | then (s) | vs baseline |")
        print("| --- | ---: | ---: | ---: |")
        reference = None
        for name, work in cases.items():
            first, then = timed(work, args.runs)
            reference = reference or then
            print(f"| {name} | {first:.2f} | {then:.2f} | {then / reference:.2f}x |")
        engine.dispose()


if __name__ == "__main__":
    main()
