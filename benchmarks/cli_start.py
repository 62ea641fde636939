"""How long the ``qrels`` command takes to start: ``qrels --help`` and ``qrels status`` on the
demo database, each the median of fresh processes, beside ``python -c pass`` (the floor any
Python command pays).

    python benchmarks/cli_start.py [--runs 5] [--db URL] [--baseline DIR]

The demo database is made once in a temporary folder (``qrels demo --no-serve``) before
anything is timed; ``--db`` times ``status`` on another database as well (one of
``benchmarks/app_scale.py``'s sizes, say). ``--baseline DIR``, another checkout of the
project (``git archive main | tar -x -C DIR``), times the same commands on its code, in this
virtualenv, beside this checkout's. Each row gives the wall time and the CPU time (user and
system) of the process: on a loaded machine the first says more about the neighbours.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--db", metavar="URL", help="also time status on this database")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another checkout")
    args = parser.parse_args()
    qrels = [sys.executable, "-m", "annotator.cli"]
    checkouts = {"": ROOT} | ({" (baseline)": args.baseline.resolve()} if args.baseline else {})
    with tempfile.TemporaryDirectory() as folder:
        demo = Path(folder) / "demo"
        subprocess.run(
            [*qrels, "demo", "--dir", str(demo), "--no-serve"], check=True, capture_output=True
        )
        database = f"sqlite:///{demo / 'qrels.db'}"
        cases = [
            ("python -c pass (baseline)", [sys.executable, "-c", "pass"], {"": ROOT}),
            ("qrels --help", [*qrels, "--help"], checkouts),
            ("qrels status (demo database)", [*qrels, "--db", database, "status"], checkouts),
        ]
        if args.db:
            cases.append(("qrels status (--db)", [*qrels, "--db", args.db, "status"], checkouts))
        results = [
            (name + label, seconds(command, args.runs, code))
            for name, command, where in cases
            for label, code in where.items()
        ]
    wall_floor, cpu_floor = results[0][1]
    print(f"median of {args.runs} fresh processes")
    print("| command | wall s | over baseline s | CPU s | over baseline CPU s |")
    print("|---|---:|---:|---:|---:|")
    for name, (wall, cpu) in results:
        over = f"{wall - wall_floor:+.2f} | {cpu:.2f} | {cpu - cpu_floor:+.2f}"
        print(f"| {name} | {wall:.2f} | {over} |")


if __name__ == "__main__":
    main()
