"""How long the ``qrels`` command takes to start: ``qrels --help`` and ``qrels status`` on the
demo database and on ``benchmarks/app_scale.py``'s sizes, each the median of fresh
processes, beside ``python -c pass`` (the floor any Python command pays).

    python benchmarks/cli_start.py [--runs 5] [--sizes S,M] [--backends sqlite,postgres]
                                   [--db [LABEL=]URL ...] [--baseline DIR]

The demo database is made once in a temporary folder (``qrels demo --no-serve``) before
anything is timed; ``--sizes`` builds each of ``app_scale.py``'s sizes on each of
``--backends`` (``app_scale.build``, a temporary folder or PostgreSQL schema, removed
after) and times ``status`` on it; ``--db`` times ``status`` on a database built before
(L takes minutes to build), labelled ``LABEL`` when given (``--db "L sqlite=sqlite:///…"``).
``--baseline DIR``, another checkout of the project (``git archive main | tar -x -C DIR``),
times the same commands on its code, in this virtualenv, beside this checkout's. Each row
gives the wall time and the CPU time (user and system) of the process and each over
``python -c pass``: on a loaded machine the wall time says more about the neighbours. The
target (issue 27): ``status`` at most 0.3 s over ``python -c pass`` at S, 1 s at L.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def seconds(command: list[str], runs: int, checkout: Path = ROOT) -> tuple[float, float]:
    """The median wall and CPU seconds of ``runs`` fresh processes of ``command``, on the
    code of ``checkout`` (its folder first on the path)."""
    walls, cpus = [], []
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=checkout, env=environment)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def labelled(given: str) -> tuple[str, str]:
    """``LABEL=URL`` (or a bare URL, labelled ``--db``) as ``(label, url)``."""
    label, found, url = given.partition("=")
    if found and "://" not in label:
        return label.strip(), url
    return "--db", given


def built(sizes: list[str], backends: list[str], folder: Path, stack: ExitStack) -> list[tuple]:
    """``(label, url)`` of each size on each backend, built by ``app_scale.build``; each
    PostgreSQL schema is dropped when ``stack`` closes."""
    from benchmarks import app_scale

    databases = []
    for size in sizes:
        for backend in backends:
            where = folder / f"{size}-{backend}"
            where.mkdir()
            url, drop = app_scale.database(backend, where)
            stack.callback(drop)
            app_scale.build(app_scale.SIZES[size], url, where)
            databases.append((f"{size} {backend}", url))
    return databases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="", help="app_scale sizes to build, e.g. S,M")
    parser.add_argument("--backends", default="sqlite", help="sqlite,postgres")
    parser.add_argument(
        "--db", metavar="[LABEL=]URL", action="append", default=[], help="also this database"
    )
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another checkout")
    args = parser.parse_args()
    qrels = [sys.executable, "-m", "annotator.cli"]
    checkouts = {"": ROOT} | ({" (baseline)": args.baseline.resolve()} if args.baseline else {})
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        demo = Path(folder) / "demo"
        subprocess.run(
            [*qrels, "demo", "--dir", str(demo), "--no-serve"], check=True, capture_output=True
        )
        databases = [("demo database", f"sqlite:///{demo / 'qrels.db'}")]
        sizes = [size for size in args.sizes.split(",") if size]
        databases += built(sizes, args.backends.split(","), Path(folder), stack)
        databases += [labelled(given) for given in args.db]
        cases = [
            ("python -c pass (baseline)", [sys.executable, "-c", "pass"], {"": ROOT}),
            ("qrels --help", [*qrels, "--help"], checkouts),
        ]
        cases += [
            (f"qrels status ({label})", [*qrels, "--db", url, "status"], checkouts)
            for label, url in databases
        ]
        results = [
            (name + label, seconds(command, args.runs, code))
            for name, command, where in cases
            for label, code in where.items()
        ]
    wall_floor, cpu_floor = results[0][1]
    print(f"median of {args.runs} fresh processes, load {os.getloadavg()[0]:.1f}")
    print("| command | wall s | over baseline s | CPU s | over baseline CPU s |")
    print("|---|---:|---:|---:|---:|")
    for name, (wall, cpu) in results:
        over = f"{wall - wall_floor:+.2f} | {cpu:.2f} | {cpu - cpu_floor:+.2f}"
        print(f"| {name} | {wall:.2f} | {over} |")


if __name__ == "__main__":
    main()
