"""How the app holds up at a real campaign's size: a keypress, a release and the lead's
pages at S, M and L, on SQLite and PostgreSQL.

    python benchmarks/app_scale.py [--sizes S,M,L] [--backends sqlite,postgres] [--json FILE]
    python benchmarks/app_scale.py --sizes L --db URL [--working-only] [--json FILE]
    python benchmarks/app_scale.py --report FILE [FILE ...]

| size | chunks | queries | candidates per query | judgments |
|---|---:|---:|---:|---:|
| S | 2,000 | 100 | 20 | ~3,600 |
| M | 50,000 | 2,000 | 25 | ~90,000 |
| L | 200,000 | 10,000 | 50 | ~1,000,000 |

Each size is built through the project's own commands: ``qrels import corpus``, ``import
queries``, ``import run`` (a generated run, so that every query has its candidates) and
``pool build --systems run:gen``. The judgments of twelve annotators are then bulk-written
in exactly the shape the app writes them (an assignment holding a slot, judged, with one
judgment of revision 1 on it), nine tenths of the queries fully judged, and the tallies are
filled as the migration that introduced them does: writing a million judgments one keypress
at a time would take days. One annotator has judged far more than the others (1,000 at S,
20,000 at L).

A keypress is what one render of the labeling page does after a key: the grade written,
the next item (or an earlier one) fetched, the progress bars counted. Its server time is
measured in three cases, 40 keypresses each: ``mid-query`` (an annotator inside a query),
``query ran out`` (the key that finishes a query, so the next one is chosen) and ``long
history`` (the annotator with the long history). The table gives the median and 95th
percentile, the SQL statements per keypress, and the ratio of each p95 to S's.

``qrels release create`` runs in a fresh process (time and peak memory); each lead page is
rendered with Streamlit's AppTest twice, the second time from the cache.

The working team: annotators press keys in another process (``--press``: the label page's
functions, a key every ``PRESS_EVERY`` seconds in turn from ``PRESSERS`` annotators, each
revising an earlier item when nothing is left to judge) while each lead page is rendered
after a restart (the app's caches and kept figures dropped: what a new process has) and
again a second later, when more judgments have arrived. The keys' times during that phase
are reported beside the quiet ones.

``--db URL`` measures an already built database of the one size given (an L build takes
20-40 minutes) instead of building one; the measuring writes judgments and a release
into it, so give it a copy. ``--working-only`` measures the working team alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pooling.settings import ONE_BLAS_THREAD  # noqa: E402  (no numpy yet)

# Pages render in this process as ``qrels serve`` runs the app: one BLAS thread (set before
# numpy is imported, as the app's environment sets it before the app starts).
for _name, _value in ONE_BLAS_THREAD.items():
    os.environ.setdefault(_name, _value)

POSTGRES_URL = os.environ.get("QRELS_TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test")
PAGES = [
    "team_progress_page.py",
    "pools_page.py",
    "adjudication_page.py",
    "agreement_page.py",
    "releases_page.py",
]
KEYPRESSES = 40
PRESSERS = [f"a{i:02d}" for i in range(1, 5)]
PRESS_EVERY = 0.25  # seconds between keys, the pressers taking turns
ANNOTATORS = 12
OPEN_AT_LEAST = 50  # queries with candidates left to judge: each keeps its last two open


@dataclass(frozen=True)
class Size:
    name: str
    chunks: int
    queries: int
    per_query: int
    heavy: int  # judgments of the annotator with the long history


SIZES = {
    "S": Size("S", 2_000, 100, 20, 1_000),
    "M": Size("M", 50_000, 2_000, 25, 5_000),
    "L": Size("L", 200_000, 10_000, 50, 20_000),
}


def qrels(url: str, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "annotator.cli", "--db", url, *args],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"qrels {' '.join(args)} failed:\n{done.stderr[-3000:]}")


def generate(size: Size, folder: Path) -> None:
    """The corpus, queries and run files of ``size`` (words drawn from a small vocabulary,
    queries with slices, splits and some unanswerable)."""
    rng = random.Random(size.name)
    words = [f"w{i}" for i in range(5_000)]
    with open(folder / "corpus.jsonl", "w") as handle:
        for i in range(size.chunks):
            text = " ".join(rng.choices(words, k=40))
            handle.write(json.dumps({"_id": f"d{i}", "title": f"doc {i}", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as handle:
        for q in range(size.queries):
            record = {
                "_id": f"q{q}",
                "text": " ".join(rng.choices(words, k=6)),
                "slices": [rng.choice(["faq", "manual", "policy"])],
                "split": "dev" if q % 5 == 0 else "test",
                "answerable": q % 17 != 0,
            }
            handle.write(json.dumps(record) + "\n")
    with open(folder / "run.trec", "w") as handle:
        for q in range(size.queries):
            for rank, chunk in enumerate(rng.sample(range(size.chunks), size.per_query), 1):
                handle.write(f"q{q} Q0 d{chunk} {rank} {100 - rank} gen\n")


def build(size: Size, url: str, folder: Path) -> dict[str, int]:
    """The database of ``size`` at ``url``; returns the annotators' ids by name."""
    started = time.perf_counter()
    generate(size, folder)
    qrels(url, "init")
    qrels(url, "import", "corpus", str(folder / "corpus.jsonl"), "--corpus-version", "c")
    qrels(url, "import", "queries", str(folder / "queries.jsonl"), "--query-set", "q")
    qrels(url, "import", "run", str(folder / "run.trec"), "--system", "gen")
    qrels(url, "pool", "build", "p", "--systems", "run:gen", "--depth", str(size.per_query))
    password = folder / "password.txt"
    password.write_text("benchmark-password\n")
    names = [f"a{i:02d}" for i in range(ANNOTATORS)] + ["fresh"]
    for name in names:
        qrels(url, "user", "add", name, "--role", "annotator", "--password-file", str(password))
    qrels(url, "user", "add", "lead", "--role", "lead", "--password-file", str(password))
    users = bulk_judgments(size, url)
    print(f"  built {size.name} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return users


def bulk_judgments(size: Size, url: str) -> dict[str, int]:
    """Judge every candidate as the app would have (two annotators each hold a slot,
    judged, revision 1, with one judgment on it) but the last two of a tenth of the queries
    (at least ``OPEN_AT_LEAST``): what is left to judge. The heavy annotator takes a slot of
    every candidate until they have ``size.heavy``."""
    from sqlalchemy import insert, select, text

    from storage import tallies
    from storage.db import make_engine, session_scope
    from storage.models import Assignment, Judgment, PoolCandidate, Query, User, utcnow
    from storage.pool_records import get_pool

    engine = make_engine(url)
    rng = random.Random(1)
    with session_scope(engine) as session:
        users = dict(session.exec(select(User.name, User.id)).all())
        pool = get_pool("p", session=session)
        candidates = session.exec(
            select(PoolCandidate.id, PoolCandidate.query_id, PoolCandidate.chunk_id)
            .join(Query, Query.id == PoolCandidate.query_id)
            .order_by(PoolCandidate.query_id, PoolCandidate.id)
        ).all()
    queries = sorted({q for _, q, _ in candidates})
    open_queries = set(queries[-max(OPEN_AT_LEAST, len(queries) // 10) :])
    left_open, seen = set(), {}
    for candidate, query, _ in candidates:  # the last two candidates of each open query
        seen[query] = seen.get(query, 0) + 1
        if query in open_queries and seen[query] > size.per_query - 2:
            left_open.add(candidate)
    others = [users[f"a{i:02d}"] for i in range(1, ANNOTATORS)]
    heavy, heavy_left = users["a00"], size.heavy
    now, rows, judgments = utcnow(), [], []
    next_id = 1
    for candidate, query, chunk in candidates:
        if candidate in left_open:
            continue
        judges = rng.sample(others, 2)
        if heavy_left > 0:
            judges[0], heavy_left = heavy, heavy_left - 1
        for slot, user in enumerate(judges):
            rows.append(
                dict(
                    id=next_id,
                    pool_id=pool.id,
                    candidate_id=candidate,
                    user_id=user,
                    slot=slot,
                    revision=1,
                    taken_at=now - timedelta(minutes=5),
                    expires_at=now + timedelta(minutes=15),
                    done_at=now - timedelta(seconds=next_id % 3600),
                )
            )
            grade = rng.choices([0, 1, 2, 3], [5, 2, 2, 1])[0]
            judgments.append(
                dict(
                    user_id=user,
                    query_id=query,
                    chunk_id=chunk,
                    grade=grade,
                    unsure=False,
                    note="",
                    rubric_version="v1",
                    seconds=float(rng.randint(5, 60)),
                    pool_id=pool.id,
                    assignment_id=next_id,
                    revision=1,
                    created_at=now - timedelta(seconds=next_id % 86_400),
                )
            )
            next_id += 1
    with session_scope(engine) as session:
        for start in range(0, len(rows), 20_000):
            session.execute(insert(Assignment), rows[start : start + 20_000])
            session.execute(insert(Judgment), judgments[start : start + 20_000])
        if engine.dialect.name == "postgresql":  # ids given here do not move the sequence
            session.execute(
                text("SELECT setval(pg_get_serial_sequence('assignment', 'id'), :last)"),
                {"last": next_id - 1},
            )
    with session_scope(engine) as session:
        tallies.refill(get_pool("p", session=session), session=session)
    if engine.dialect.name == "postgresql":
        # The planner's statistics, as autovacuum keeps them in a working database; without
        # them, after a bulk load, one of the Pools page's counts ran for over ten minutes.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE"))
    engine.dispose()
    print(f"  {len(judgments):,} judgments written", file=sys.stderr)
    assert heavy_left == 0, "the heavy annotator has fewer judgments than asked"
    return users


# -- keypresses -----------------------------------------------------------------------------


def keypress(engine, user: int, item, position: int | None = None):
    """What one render of the labeling page does after a key (tests/annotator/labeling/test_keypress
    counts the same)."""
    from annotator.labeling import assignment, page_position

    assert assignment.submit(engine, item, user, grade=1)
    return page_position.view(engine, "p", user, position)


def timed(engine, work) -> tuple[object, float, int]:
    from sqlalchemy import event

    statements = []

    def count(*_):
        statements.append(1)

    event.listen(engine, "before_cursor_execute", count)
    started = time.perf_counter()
    try:
        result = work()
    finally:
        elapsed = time.perf_counter() - started
        event.remove(engine, "before_cursor_execute", count)
    return result, elapsed * 1000, len(statements)


def keypress_cases(url: str, users: dict[str, int]) -> dict[str, tuple[list[float], list[int]]]:
    from annotator.labeling import assignment, page_position
    from storage.db import make_engine

    engine = make_engine(url)
    cases: dict[str, tuple[list[float], list[int]]] = {}

    def record(case: str, work):
        result, ms, count = timed(engine, work)
        times, counts = cases.setdefault(case, ([], []))
        times.append(ms)
        counts.append(count)
        return result

    fresh = users["fresh"]
    view = page_position.view(engine, "p", fresh, None)
    while min(len(cases.get(c, ([],))[0]) for c in ("mid-query", "query ran out")) < KEYPRESSES:
        standing = assignment.progress(engine, "p", fresh, view.item.query_id)
        case = "query ran out" if standing.query_total - standing.query_done == 1 else "mid-query"
        view = record(case, lambda v=view: keypress(engine, fresh, v.item))
    heavy = users["a00"]
    view = page_position.view(engine, "p", heavy, None)
    for _ in range(KEYPRESSES):
        view = record("long history", lambda v=view: keypress(engine, heavy, v.item))
    engine.dispose()
    return cases


# -- the rest ---------------------------------------------------------------------------


# Runs a command and prints its peak memory (KiB). A process forked from this one, large
# after the bulk load, keeps the parent's peak as its own even after exec; this small one
# stands between.
PEAK_OF = (
    "import resource, subprocess, sys;"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL);"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
    "sys.exit(done.returncode)"
)


def measured(command: list[str]) -> tuple[float, float]:
    """Seconds and peak memory (MiB) of ``command`` in a fresh process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK_OF, *command], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode:
        shown = ["<url>" if before == "--db" else part for before, part in pairwise(["", *command])]
        raise RuntimeError(f"{' '.join(shown)} failed:\n{done.stderr[-3000:]}")
    return elapsed, int(done.stdout.split()[-1]) / 1024


def release(url: str, folder: Path) -> tuple[float, float]:
    """Seconds and peak memory (MiB) of ``qrels release create`` in a fresh process."""
    command = [sys.executable, "-m", "annotator.cli", "--db", url, "release", "create", "v1"]
    command += ["--pool", "p", "--out", str(folder), "--allow-unresolved"]  # folder/v1
    return measured(command)


def render(name: str, lead: int) -> float:
    """Seconds to render page ``name`` for ``lead`` with AppTest."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "annotator" / "app" / "pages" / name), default_timeout=900)
    at.session_state["user_id"] = lead
    started = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - started
    if at.exception:
        raise RuntimeError(f"{name}: {at.exception}")
    return elapsed


def restart() -> None:
    """Drop what an app process keeps (as a new process would start)."""
    import streamlit as st

    from annotator.pools import pool_figures
    from annotator.quality.kept import figures as kept_figures

    st.cache_resource.clear()
    st.cache_data.clear()
    kept_figures.forget()
    pool_figures.forget()


def counted_once(url: str) -> None:
    """Count the kept figures once, saving their grades: what a running app's earlier
    views leave behind (``pages`` does it when the quiet views are measured)."""
    from annotator.quality.kept import figures as kept_figures
    from storage.db import make_engine

    engine = make_engine(url)
    kept_figures.kept_grades(engine, "p")
    engine.dispose()


def pages(url: str, lead: int) -> dict[str, tuple[float, float]]:
    """Each lead page's render time with AppTest, the first view and the next one."""
    os.environ["QRELS_DATABASE_URL"] = url
    restart()
    return {
        name.removesuffix("_page.py"): (render(name, lead), render(name, lead)) for name in PAGES
    }


def working_pages(
    url: str, lead: int, folder: Path
) -> tuple[dict[str, tuple[float, float]], list[float]]:
    """Each lead page while annotators press keys in another process: the first view after
    a restart and the next one a second later; and the keys' milliseconds meanwhile."""
    os.environ["QRELS_DATABASE_URL"] = url
    stop, times = folder / "stop", folder / "keys.json"
    command = [sys.executable, __file__, "--press", url, str(stop), str(times)]
    presser = subprocess.Popen(command)
    try:
        time.sleep(3)  # the keys under way
        shown = {}
        for name in PAGES:
            restart()
            first = render(name, lead)
            time.sleep(1)
            shown[name.removesuffix("_page.py")] = (first, render(name, lead))
    finally:
        stop.touch()
        presser.wait(timeout=120)
    if presser.returncode:
        raise RuntimeError("the keys pressed meanwhile failed")
    return shown, [ms for _, ms in json.loads(times.read_text())]


def press(url: str, stop: Path, out: Path) -> None:
    """Press keys as ``PRESSERS`` until ``stop`` exists; write to ``out`` when each began
    (epoch seconds) and its milliseconds. Each presser judges their next item, or revises
    an earlier one."""
    from annotator.labeling import page_position
    from storage.db import make_engine

    users = known_users(url)
    engine = make_engine(url)
    rng = random.Random(7)
    views = {name: page_position.view(engine, "p", users[name], None) for name in PRESSERS}
    times: list[tuple[float, float]] = []
    turn = 0
    while not stop.exists():
        name = PRESSERS[turn % len(PRESSERS)]
        turn += 1
        user, view = users[name], views[name]
        if view.item is None:  # nothing left: an earlier item, graded again
            view = page_position.view(engine, "p", user, rng.randrange(max(view.judged, 1)))
        began, started = time.time(), time.perf_counter()
        views[name] = keypress(engine, user, view.item)
        times.append((began, (time.perf_counter() - started) * 1000))
        time.sleep(PRESS_EVERY)
    out.write_text(json.dumps(times))
    engine.dispose()


def backend_of(url: str) -> str:
    """``sqlite`` or ``postgres``: the backend of database ``url``."""
    return "sqlite" if url.startswith("sqlite") else "postgres"


def known_users(url: str) -> dict[str, int]:
    """The accounts' ids by name in an already built database."""
    from sqlalchemy import select

    from storage.db import make_engine, session_scope
    from storage.models import User

    engine = make_engine(url)
    with session_scope(engine) as session:
        users = dict(session.exec(select(User.name, User.id)).all())
    engine.dispose()
    return users


def database(backend: str, folder: Path):
    """A fresh database URL on ``backend`` and a function that removes it."""
    if backend == "sqlite":
        return f"sqlite:///{folder / 'qrels.db'}", lambda: None
    from sqlalchemy import create_engine, text

    from storage.db import database_url

    schema = f"bench_{os.getpid()}_{int(time.time())}"
    admin = create_engine(database_url(POSTGRES_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))

    def drop():
        with admin.connect() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))

    from sqlalchemy.engine import make_url

    url = make_url(database_url(POSTGRES_URL)).update_query_dict(
        {"options": f"-csearch_path={schema}"}
    )
    return url.render_as_string(hide_password=False), drop


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="S,M,L")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument(
        "--report", nargs="+", metavar="FILE", help="print the tables of earlier --json files"
    )
    parser.add_argument("--db", help="an already built database of the one size given (a copy)")
    parser.add_argument("--working-only", action="store_true", help="only the working team")
    parser.add_argument("--press", nargs=3, metavar=("URL", "STOP", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.press:
        press(args.press[0], Path(args.press[1]), Path(args.press[2]))
        return
    if args.report:
        report([r for file in args.report for r in json.loads(Path(file).read_text())])
        return
    if args.db and "," in args.sizes:
        parser.error("--db holds one size: give it with --sizes")
    backends = [backend_of(args.db)] if args.db else args.backends.split(",")
    results = []
    for backend in backends:
        for name in args.sizes.split(","):
            size = SIZES[name]
            cases: dict[str, tuple[list[float], list[int]]] = {}
            seconds = peak = None
            shown: dict[str, tuple[float, float]] = {}
            with tempfile.TemporaryDirectory() as folder:
                folder = Path(folder)
                os.environ["QRELS_CACHE_DIR"] = str(folder / "cache")
                url, drop = (args.db, lambda: None) if args.db else database(backend, folder)
                try:
                    users = known_users(url) if args.db else build(size, url, folder)
                    if not args.working_only:
                        cases = keypress_cases(url, users)
                        seconds, peak = release(url, folder)
                        shown = pages(url, users["lead"])
                    else:
                        counted_once(url)
                    working, keys = working_pages(url, users["lead"], folder)
                finally:
                    drop()
            for case, (times, counts) in cases.items():
                results.append(
                    {
                        "size": name,
                        "backend": backend,
                        "case": case,
                        "p50_ms": statistics.median(times),
                        "p95_ms": p95(times),
                        "statements": max(counts),
                    }
                )
            if seconds is not None:
                results.append(
                    {
                        "size": name,
                        "backend": backend,
                        "case": "release create",
                        "release_s": seconds,
                        "peak_mib": peak,
                    }
                )
            results.append(
                {
                    "size": name,
                    "backend": backend,
                    "case": "keys while lead pages render",
                    "keys": len(keys),
                    "working_p50_ms": statistics.median(keys),
                    "working_p95_ms": p95(keys),
                }
            )
            for page in working:
                first, again = shown.get(page, (None, None))
                results.append(
                    {
                        "size": name,
                        "backend": backend,
                        "case": f"page {page}",
                        "page": page,
                        "first_s": first,
                        "next_s": again,
                        "working_first_s": working[page][0],
                        "working_next_s": working[page][1],
                    }
                )
            print(f"{backend} {name} done", file=sys.stderr)
            if args.json_path:  # after each size: a long run that fails keeps what it measured
                Path(args.json_path).write_text(json.dumps(results, indent=2))
    report(results)


def report(results: list[dict]) -> None:
    keypresses = [r for r in results if "p95_ms" in r]
    base = {(r["backend"], r["case"]): r["p95_ms"] for r in keypresses if r["size"] == "S"}
    print("| size | backend | case | p50 ms | p95 ms | statements | p95 vs S |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in keypresses:
        ratio = r["p95_ms"] / base[(r["backend"], r["case"])] if base else float("nan")
        print(
            f"| {r['size']} | {r['backend']} | {r['case']} | {r['p50_ms']:.0f} | "
            f"{r['p95_ms']:.0f} | {r['statements']} | {ratio:.2f}x |"
        )
    print()
    print("| size | backend | release create s | peak MiB |")
    print("|---|---|---:|---:|")
    for r in results:
        if "release_s" in r:
            print(f"| {r['size']} | {r['backend']} | {r['release_s']:.1f} | {r['peak_mib']:.0f} |")
    print()
    quiet = {(r["size"], r["backend"]): r["p95_ms"] for r in keypresses if r["case"] == "mid-query"}
    print()
    print("| size | backend | keys | p50 ms | p95 ms | quiet mid-query p95 ms |")
    print("|---|---|---:|---:|---:|---:|")
    for r in results:
        if "working_p95_ms" in r:
            before = quiet.get((r["size"], r["backend"]), float("nan"))
            print(
                f"| {r['size']} | {r['backend']} | {r['keys']} | {r['working_p50_ms']:.0f} | "
                f"{r['working_p95_ms']:.0f} | {before:.0f} |"
            )
    print()
    print(
        "| size | backend | page | first view s | next view s | working: first view after "
        "a restart s | working: next view s |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    for r in results:
        if "first_s" in r:
            working = [r.get("working_first_s"), r.get("working_next_s")]
            quiet = [r["first_s"], r.get("next_s", r.get("cached_s"))]
            shown = " | ".join("" if w is None else f"{w:.2f}" for w in quiet + working)
            print(f"| {r['size']} | {r['backend']} | {r.get('page', r['case'][5:])} | {shown} |")


if __name__ == "__main__":
    main()
