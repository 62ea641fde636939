"""How ``qrels import judgments`` holds up at a million lines, against reading the same
file into a ``Qrels`` (the baseline: the file parsed, nothing checked, nothing written).

    python benchmarks/import_scale.py [--lines 1000000] [--backends sqlite,postgres]

The corpus and queries are ``app_scale``'s L (200,000 chunks, 10,000 queries), imported
through the project's own commands; the judgments file is TREC qrels, ``--lines`` of them
spread evenly over the queries, chunks and grades drawn at random (fixed seed). Each command
runs in a fresh process, so its peak memory is its own: the baseline, the import, and the
same import again, which is recognised (the same content by the same annotator) and writes
nothing. An import reads the file twice, to check every line and then to write, and holds
one (query, chunk) key and its line number per judgment meanwhile.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from app_scale import SIZES, database, generate, measured, qrels


def judgments_file(path: Path, lines: int, queries: int, chunks: int) -> None:
    rng = random.Random(lines)
    with open(path, "w") as handle:
        for q in range(queries):
            per_query = lines // queries + (q < lines % queries)
            for chunk in rng.sample(range(chunks), per_query):
                handle.write(f"q{q} 0 d{chunk} {rng.randint(0, 3)}\n")


def run(backend: str, lines: int) -> list[tuple[str, float, float]]:
    size = SIZES["L"]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        url, drop = database(backend, folder)
        try:
            generate(size, folder)
            qrels(url, "init")
            qrels(url, "import", "corpus", str(folder / "corpus.jsonl"), "--corpus-version", "c")
            qrels(url, "import", "queries", str(folder / "queries.jsonl"), "--query-set", "q")
            path = folder / "judgments.trec"
            judgments_file(path, lines, size.queries, size.chunks)
            read = "from pooling.qrels import Qrels; import sys; Qrels.from_file(sys.argv[1])"
            baseline = [sys.executable, "-c", read, str(path)]
            command = [sys.executable, "-m", "annotator.cli", "--db", url, "import", "judgments"]
            command += [str(path), "--annotator", "external"]
            return [
                ("read into a Qrels (baseline)", *measured(baseline)),
                ("qrels import judgments", *measured(command)),
                ("the same import again (nothing new)", *measured(command)),
            ]
        finally:
            drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"| backend | {args.lines:,} lines | seconds | vs baseline | peak MiB |")
    print("|---|---|---:|---:|---:|")
    for backend in args.backends.split(","):
        rows = run(backend, args.lines)
        base = rows[0][1]
        for what, seconds, peak in rows:
            print(f"| {backend} | {what} | {seconds:.1f} | {seconds / base:.1f}x | {peak:.0f} |")


if __name__ == "__main__":
    main()
