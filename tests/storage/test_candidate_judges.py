"""Each candidate's kept count of distinct human judges (``pool_candidate.judges``, which
``qrels status`` reads) equals a count from scratch, whatever wrote the judgments: the
app's keypresses and changes of grade, imports (human and model), carried grades, a pool
built after judgments exist, and a database that upgraded from before the count existed."""

from __future__ import annotations

import random

from alembic import command

from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from storage import tallies
from storage.catalog import chunk_keys, query_keys, resolve_corpus_version, resolve_query_set
from storage.db import _alembic_config, read_connection, session_scope, upgrade
from storage.history import append_judgments
from storage.imports import annotator_account, import_judgments
from storage.models import JudgmentBatch, Pool
from storage.pool_records import get_pool
from storage.status import status
from tests.conftest import N_CHUNKS, N_QUERIES, write
from tests.storage.test_tallies import work


def assert_judges_agree(engine, *pools: str) -> None:
    """Each candidate's judges, and each query's tally (its complete candidates too), as
    kept and from scratch."""
    with session_scope(engine) as session:
        for name in pools:
            pool = get_pool(name, session=session)
            kept = tallies.judges(pool, session=session)
            assert kept == tallies.judges(pool, session=session, recount=True), name
            assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)


def revise(engine, user_id: int, rng: random.Random) -> None:
    """Change the grade of one item ``user_id`` judged: the same judge again."""
    count = assignment.judged_count(engine, "p", user_id)
    if count:
        item = assignment.judged_item(engine, "p", user_id, rng.randrange(count))
        assert item is not None
        assert assignment.submit(engine, item, user_id, grade=rng.randint(0, 3))


def pairs(rng: random.Random) -> list[tuple[str, str]]:
    every = [(f"q{q}", f"c{c}") for q in range(N_QUERIES) for c in range(N_CHUNKS)]
    return rng.sample(every, rng.randint(1, len(every)))


def imported(
    engine,
    tmp_path,
    annotator: str,
    kind: str,
    rng: random.Random,
    n: int,
    query_set: str | None = None,
) -> None:
    """A judgments file of random pairs imported into ``query_set`` (the one there is when
    None)."""
    text = "".join(f"{q} 0 {c} {rng.randint(0, 3)}\n" for q, c in pairs(rng))
    with session_scope(engine) as session:
        import_judgments(
            write(tmp_path, f"import{n}.qrels", text),
            session=session,
            annotator=annotator,
            rubric_version="v1",
            kind=kind,
            query_set=query_set,
        )


def carried(
    engine, annotator: str, kind: str, rng: random.Random, n: int, query_set: str | None = None
) -> None:
    """Grades appended as a carry appends them (``annotator.releases.carry``), to
    ``query_set`` (the one there is when None)."""
    with session_scope(engine) as session:
        user, _ = annotator_account(annotator, kind, session=session)
        query_set = resolve_query_set(query_set, session=session)
        version = resolve_corpus_version(None, session=session)
        queries = query_keys(query_set, session=session)
        chunks = chunk_keys(version, session=session)
        append_judgments(
            user,
            query_set,
            version,
            [{"query_id": queries[q], "chunk_id": chunks[c], "grade": 2} for q, c in pairs(rng)],
            session=session,
            batch=JudgmentBatch(  # type: ignore[call-arg]
                source="r1", format="carried", content_hash=f"carry{n}"
            ),
            rubric_version="v1",
            pool=get_pool("p", session=session),
        )


def test_kept_judges_equal_a_recount_after_random_interleavings(engine, pool, tmp_path):
    rng = random.Random(27)
    users = list(pool.values())
    pools = ["p"]
    for step in range(24):
        action = rng.choice(["app", "app", "revise", "import", "carry", "pool"])
        if action == "app":
            work(engine, rng.choice(users), seed=step, grades=rng.randint(1, 4))
        elif action == "revise":
            revise(engine, rng.choice(users), rng)
        elif action == "import":  # an annotator of the app, a newcomer, or a model
            annotator, kind = rng.choice(
                [("a1", "human"), ("a5", "human"), ("imp", "human")] + [("llm", "model")]
            )
            imported(engine, tmp_path, annotator, kind, rng, step)
        elif action == "carry":
            annotator, kind = rng.choice([("judge", "model"), ("a2", "human")])
            carried(engine, annotator, kind, rng, step)
        elif len(pools) < 3:  # a pool built after judgments exist counts them at once
            pools.append(f"p{step}")
            build_pool(engine, pools[-1], systems="run:r", depth=rng.randint(1, N_CHUNKS))
        assert_judges_agree(engine, *pools)
    with session_scope(engine) as session:
        pool_row = get_pool("p", session=session)
        assert any(tallies.judges(pool_row, session=session).values())
        assert any(t["complete"] for t in tallies.kept(pool_row, session=session)[1].values())


def test_status_counts_complete_candidates_from_the_kept_judges(engine, pool, tmp_path):
    """Two judges complete a candidate of an overlap-2 pool; the same person twice, a model,
    or an app judgment and an import by the same person do not."""
    rng = random.Random(3)
    a1, a2 = pool["a1"], pool["a2"]
    work(engine, a1, seed=1, grades=N_QUERIES * N_CHUNKS)
    revise(engine, a1, rng)
    text = "".join(f"q{q} 0 c{c} 1\n" for q in range(N_QUERIES) for c in range(N_CHUNKS))
    for annotator, kind in (("a1", "human"), ("llm", "model")):
        with session_scope(engine) as session:
            import_judgments(
                write(tmp_path, f"{annotator}.qrels", text),
                session=session,
                annotator=annotator,
                rubric_version="v1",
                kind=kind,
            )
    url = engine.url.render_as_string(hide_password=False)
    with read_connection(url) as connection:
        assert status(connection).pools[0].complete == 0
    work(engine, a2, seed=2, grades=3)
    with read_connection(url) as connection:
        assert status(connection).pools[0].complete == 3
    assert_judges_agree(engine, "p")


def test_an_upgrade_counts_the_judges_of_existing_candidates(engine, pool, tmp_path):
    for name in ("a1", "a2", "a3"):
        work(engine, pool[name], seed=5, grades=7)
    imported(engine, tmp_path, "imp", "human", random.Random(1), 0)
    # As a database made before the counts: before 0014 (judges) and 0015 (complete).
    command.downgrade(_alembic_config(engine), "0010")
    upgrade(engine)
    assert_judges_agree(engine, "p")
    with session_scope(engine) as session:
        pool_row = session.get(Pool, get_pool("p", session=session).id)
        assert sum(tallies.judges(pool_row, session=session).values()) > 21
