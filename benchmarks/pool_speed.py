"""How fast a pool is built, against the bare bm25s it wraps and rank_bm25.

Generates an English-like corpus (Zipf-distributed made-up words, fixed seed) of CHUNKS
chunks and QUERIES queries, then times, each in a fresh process so that peak memory is its
own:

- ``bm25s``: bare bm25s: ``bm25s.tokenize`` (English stopwords, Snowball stemmer), index,
  tokenize the queries, retrieve the top DEPTH. The baseline.
- ``ours``: ``pooling.systems.build_candidates`` with ``bm25`` at depth DEPTH: our
  tokenizer, the same bm25s index saved to the on-disk cache, retrieval, depth pooling with
  provenance and seeded shuffle keys.
- ``ours-cached``: the same again with the index already cached (what a top-up costs).
- ``rank_bm25``: rank_bm25's BM25Okapi on a SAMPLE-chunk sample with 100 queries; its
  per-query cost is scaled to the full corpus and query set (it scores every chunk for every
  query in Python), so its ratio is an estimate, marked ``~``.

    python benchmarks/pool_speed.py [--chunks 200000] [--queries 1000] [--depth 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

SEED = 13


def corpus(chunks: int, queries: int, words_per_chunk: int = 60) -> tuple[list[str], list[str]]:
    """A deterministic corpus and query set with a Zipfian vocabulary of 50,000 words."""
    rng = np.random.default_rng(SEED)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocabulary = ["".join(rng.choice(letters, size=rng.integers(3, 10))) for _ in range(50_000)]
    vocabulary += ["the", "of", "and", "is", "to", "in"]  # stopwords, frequent
    weights = 1 / np.arange(1, len(vocabulary) + 1) ** 1.1
    weights /= weights.sum()
    lengths = rng.integers(words_per_chunk // 2, words_per_chunk * 3 // 2, size=chunks)
    ids = rng.choice(len(vocabulary), size=int(lengths.sum()), p=weights)
    texts, start = [], 0
    for length in lengths:
        texts.append(" ".join(vocabulary[i] for i in ids[start : start + length]))
        start += length
    query_texts = []
    for _ in range(queries):
        source = texts[rng.integers(chunks)].split()
        picks = rng.choice(
            len(source), size=min(len(source), int(rng.integers(3, 8))), replace=False
        )
        query_texts.append(" ".join(source[i] for i in sorted(picks)))
    return texts, query_texts


def run_bm25s(texts, queries, depth):
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    index = bm25s.BM25()
    index.index(tokens, show_progress=False)
    query_tokens = bm25s.tokenize(queries, stopwords="en", stemmer=stemmer, show_progress=False)
    results, _ = index.retrieve(query_tokens, k=depth, show_progress=False, n_threads=1)
    return int(results.size)


def run_ours(texts, queries, depth):
    from pooling.retrievers import Corpus
    from pooling.systems import build_candidates, parse_systems

    chunks = Corpus("bench", [f"c{i}" for i in range(len(texts))], texts)
    query_map = {f"q{i}": q for i, q in enumerate(queries)}
    candidates, _ = build_candidates(
        parse_systems("bm25"), chunks, query_map, {}, strategy="depth", size=depth
    )
    return len(candidates)


def run_rank_bm25(texts, queries, depth, sample):
    from rank_bm25 import BM25Okapi

    from pooling.tokenize import Tokenizer, TokenizerConfig

    tokenize = Tokenizer(TokenizerConfig(language="en"))
    start = time.perf_counter()
    index = BM25Okapi(tokenize(texts[:sample]))
    built = time.perf_counter()
    for query in queries[:100]:
        scores = index.get_scores(tokenize.tokens(query))
        np.argpartition(-scores, depth)[:depth]
    return {"index_seconds": built - start, "search_seconds": time.perf_counter() - built}


def measure(which: str, args) -> dict:
    """Run one measurement in a child process; returns its seconds and peak RSS."""
    command = [
        sys.executable,
        __file__,
        "--one",
        which,
        "--chunks",
        str(args.chunks),
        "--queries",
        str(args.queries),
        "--depth",
        str(args.depth),
        "--sample",
        str(args.sample),
        "--cache",
        args.cache,
    ]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def child(args) -> None:
    os.environ["QRELS_CACHE_DIR"] = args.cache
    texts, queries = corpus(args.chunks, args.queries)
    start = time.perf_counter()
    if args.one == "bm25s":
        count = run_bm25s(texts, queries, args.depth)
    elif args.one in ("ours", "ours-cached"):
        count = run_ours(texts, queries, args.depth)
    else:
        count = run_rank_bm25(texts, queries, args.depth, args.sample)
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mib": peak_mib, "count": count}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--sample", type=int, default=20_000)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        child(args)
        return
    with tempfile.TemporaryDirectory() as cache:
        args.cache = cache
        print(
            f"corpus: {args.chunks:,} generated chunks, {args.queries:,} queries, "
            f"depth {args.depth}"
        )
        results = {
            name: measure(name, args) for name in ("bm25s", "ours", "ours-cached", "rank_bm25")
        }
    base = results["bm25s"]["seconds"]
    # rank_bm25 ran on a sample: its index time grows with the chunks, its search time with
    # chunks times queries (it scores every chunk for every query).
    sampled = results["rank_bm25"]
    grow = args.chunks / args.sample
    seconds = sampled["count"]["index_seconds"] * grow + sampled["count"][
        "search_seconds"
    ] * grow * (args.queries / 100)
    results["rank_bm25"] = {**sampled, "seconds": seconds, "estimate": True}
    print("\n| build | seconds | vs bare bm25s | peak memory (MiB) |\n|---|---:|---:|---:|")
    labels = {
        "bm25s": "bare bm25s: tokenize, index, retrieve",
        "ours": "qrels-studio pool (bm25, depth pooling, index cached to disk)",
        "ours-cached": "qrels-studio pool again, index from the cache",
        "rank_bm25": f"rank_bm25 (measured on {args.sample:,} chunks × 100 queries, scaled)",
    }
    for name, result in results.items():
        mark = "~" if result.get("estimate") else ""
        print(
            f"| {labels[name]} | {mark}{result['seconds']:.1f} | "
            f"{mark}{result['seconds'] / base:.2f}x | {result['peak_mib']:.0f} |"
        )
    overhead = results["ours"]["seconds"] / base
    print(f"\nour overhead over bare bm25s: {overhead:.2f}x (target: under 1.5x)")


if __name__ == "__main__":
    main()
