"""``Run``: one system's ranking of chunks for each query, as a plain object.

Like ranx's ``Run``: it owns its data (query id -> chunk id -> score) and its TREC format
(``from_file`` / ``save``). Ranks are derived, never stored: position in the ranking by
score, highest first, as trec_eval ranks a run, so that a run is judged here on the order
trec_eval will score it in. trec_eval ignores the rank column and sorts by score, breaking
ties by doc id in *descending* byte order (``comp_sim_docno`` in trec_eval's
``form_res_rels.c``: ``strcmp(p2->docno, p1->docno)``); Python compares strings by code
point, which for UTF-8 is byte order.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "Run",
]


class Run:
    """Scores of chunks per query, from one system called ``name``."""

    def __init__(self, scores: dict[str, dict[str, float]] | None = None, name: str = "run"):
        self.name = name
        self.scores: dict[str, dict[str, float]] = scores or {}

    def __len__(self) -> int:
        return len(self.scores)

    def __contains__(self, query_id: str) -> bool:
        return query_id in self.scores

    def __repr__(self) -> str:
        return f"Run(name={self.name!r}, queries={len(self.scores)})"

    def ranking(self, query_id: str, k: int | None = None) -> list[tuple[str, float]]:
        """``(chunk_id, score)`` pairs for one query, best first, at most ``k``; equal
        scores in descending chunk id, as trec_eval breaks ties."""
        pairs = sorted(self.scores.get(query_id, {}).items(), key=lambda p: (p[1], p[0]))[::-1]
        return pairs if k is None else pairs[:k]

    def top(self, k: int) -> Run:
        """This run cut to its best ``k`` chunks per query."""
        return Run({q: dict(self.ranking(q, k)) for q in self.scores}, self.name)

    def entries(self, k: int | None = None) -> Iterator[tuple[str, str, int, float]]:
        """``(query_id, chunk_id, rank, score)`` with ranks from 1."""
        for query_id in sorted(self.scores):
            for rank, (chunk_id, score) in enumerate(self.ranking(query_id, k), start=1):
                yield query_id, chunk_id, rank, score

    def to_dict(self) -> dict[str, dict[str, float]]:
        return {q: dict(docs) for q, docs in self.scores.items()}

    @classmethod
    def from_dict(cls, scores: dict[str, dict[str, float]], name: str = "run") -> Run:
        return cls({q: {c: float(s) for c, s in docs.items()} for q, docs in scores.items()}, name)

    @classmethod
    def from_file(cls, path: os.PathLike | str, name: str | None = None) -> Run:
        """A TREC run file (``qid Q0 docid rank score tag``); checked line by line, raising
        ``pooling.readers.InputError`` with file, line and field on bad input. Named
        ``name``, else by its tag column when every line has the same tag, else by the
        file's name without its extension (``str(path)``: an upload's label)."""
        from pooling.readers import read_run  # the one TREC-run reader, with located errors

        scores: dict[str, dict[str, float]] = {}
        tags = set()
        for line in read_run(path):
            scores.setdefault(line.query_id, {})[line.chunk_id] = line.score
            tags.add(line.tag)
        if name is None:
            name = tags.pop() if len(tags) == 1 else Path(str(path)).stem
        return cls(scores, name)

    def save(self, path: Path | str, k: int | None = None) -> None:
        """Write the run in TREC format, ranks from 1, tag = the run's name."""
        with open(path, "w", encoding="utf-8") as handle:
            for query_id, chunk_id, rank, score in self.entries(k):
                handle.write(f"{query_id} Q0 {chunk_id} {rank} {score:.6f} {self.name}\n")
