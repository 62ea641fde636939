"""How long the ``qrels`` command takes to start: ``qrels --help`` and ``qrels status`` on the
demo database, each the median of fresh processes, beside ``python -c pass`` (the floor any
Python command pays).

    python benchmarks/cli_start.py [--runs 5]

The demo database is made once in a temporary folder (``qrels demo --no-serve``) before
anything is timed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def seconds(command: list[str], runs: int) -> float:
    """The median wall time of ``runs`` fresh processes of ``command``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    qrels = [sys.executable, "-m", "annotator.cli"]
    with tempfile.TemporaryDirectory() as folder:
        demo = Path(folder) / "demo"
        subprocess.run(
            [*qrels, "demo", "--dir", str(demo), "--no-serve"], check=True, capture_output=True
        )
        database = f"sqlite:///{demo / 'qrels.db'}"
        cases = [
            ("python -c pass (baseline)", [sys.executable, "-c", "pass"]),
            ("qrels --help", [*qrels, "--help"]),
            ("qrels status (demo database)", [*qrels, "--db", database, "status"]),
        ]
        results = [(name, seconds(command, args.runs)) for name, command in cases]
    baseline = results[0][1]
    print(f"median of {args.runs} fresh processes")
    print("| command | seconds | vs baseline |")
    print("|---|---:|---:|")
    for name, value in results:
        print(f"| {name} | {value:.2f} | {value / baseline:.1f}x |")


if __name__ == "__main__":
    main()
