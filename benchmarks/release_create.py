"""How long ``qrels release create`` takes and how much memory it holds, on a database of
``benchmarks/app_scale.py``'s sizes, this checkout beside a baseline one.

    python benchmarks/release_create.py --size S [--baseline DIR] [--runs 3]
    python benchmarks/release_create.py --db URL [--baseline DIR]   (a database built before)

``--size`` builds that size first (as ``app_scale.py`` does, into a temporary folder; L takes
a long while, hence ``--db`` for one kept from an earlier build). ``--baseline DIR`` is
another checkout of the project, for instance ``git archive main | tar -x -C DIR``: the same
command runs on its code, in this virtualenv, and each figure is printed beside it with the
ratio. Each run is a fresh process writing a new version: wall seconds, CPU seconds (user and
system: on a loaded machine the wall time says more about the neighbours) and peak memory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

# Runs a command; prints its CPU seconds and peak memory (KiB) from the kernel's account.
MEASURE = (
    "import resource, subprocess, sys;"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL);"
    "used = resource.getrusage(resource.RUSAGE_CHILDREN);"
    "print(used.ru_utime + used.ru_stime, used.ru_maxrss);"
    "sys.exit(done.returncode)"
)


def create(url: str, checkout: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MiB of one ``release create`` run on the code of
    ``checkout`` (its folder first on the path: ``python -m`` puts the working folder there)."""
    version = f"bench-{time.time_ns()}"
    command = [sys.executable, "-m", "annotator.cli", "--db", url, "release", "create"]
    command += [version, "--pool", "p", "--out", str(out), "--allow-unresolved"]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command],
        capture_output=True,
        text=True,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    wall = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"release create failed in {checkout}:\n{done.stderr[-3000:]}")
    cpu, peak = done.stdout.split()[-2:]
    return wall, float(cpu), int(peak) / 1024


def median_of(runs: list[tuple[float, float, float]]) -> tuple[float, ...]:
    return tuple(statistics.median(column) for column in zip(*runs, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--size", choices=["S", "M", "L"])
    where.add_argument("--db", metavar="URL", help="a database app_scale.py's build made")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another checkout")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        url = args.db
        if url is None:
            from app_scale import SIZES, build

            os.environ["QRELS_CACHE_DIR"] = str(folder / "cache")
            url = f"sqlite:///{folder / 'qrels.db'}"
            build(SIZES[args.size], url, folder)
        checkouts = {"this checkout": ROOT}
        if args.baseline:
            checkouts["baseline"] = args.baseline.resolve()
        results = {
            name: median_of([create(url, code, folder / "out") for _ in range(args.runs)])
            for name, code in checkouts.items()
        }
    print(f"release create, median of {args.runs} run(s)")
    print("| code | wall s | CPU s | peak MiB |")
    print("|---|---:|---:|---:|")
    for name, (wall, cpu, peak) in results.items():
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {peak:.0f} |")
    if "baseline" in results:
        now, then = results["this checkout"], results["baseline"]
        ratios = " | ".join(f"{a / b:.2f}x" for a, b in zip(now, then, strict=True))
        print(f"| this / baseline | {ratios} |")


if __name__ == "__main__":
    main()
