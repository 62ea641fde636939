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

import math
import numbers
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from pooling.i18n import LocalizedError

# A retriever as a RAG pipeline has one: query text in, its chunk ids out, best first, or
# (chunk id, score) pairs.
Retriever = Callable[[str], Iterable[str | tuple[str, float]]]

__all__ = [
    "Retriever",
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
        """A run file: TREC (``qid Q0 docid rank score tag``), JSONL or CSV, told from the
        content (``pooling.run_formats``); checked line by line, raising
        ``pooling.readers.InputError`` with file, line and field on bad input. Named
        ``name``, else by its tag when every line has the same one, else by the file's name
        without its extension (``str(path)``: an upload's label)."""
        from pooling.run_formats import read_run  # the one run reader, with located errors

        scores: dict[str, dict[str, float]] = {}
        tags: set[str | None] = set()
        for line in read_run(path):
            scores.setdefault(line.query_id, {})[line.chunk_id] = line.score
            tags.add(line.tag or None)
        if name is None:
            tag = tags.pop() if len(tags) == 1 else None
            name = tag or Path(str(path)).stem
        return cls(scores, name)

    @classmethod
    def from_retriever(
        cls,
        queries: Mapping[str, str],
        retriever: Retriever,
        name: str = "retriever",
        k: int | None = None,
    ) -> Run:
        """The run of ``retriever`` on ``queries`` (query id -> text), called once per query
        in id order. It returns chunk ids best first (scored k, k-1, ..., 1 so that the order
        is kept), ``(chunk_id, score)`` pairs or a mapping chunk id -> score (the scores order
        them, as in a run file);
        ``k`` keeps the best ``k`` of each. A score is any real number (numpy's too), not a
        bool. Raises ``LocalizedError`` naming the query when the answer is not a sequence
        of results (None, a number, a single string), when a result is neither form,
        repeats an id or holds a score that is not a finite number; what the retriever
        raises passes through."""
        scores: dict[str, dict[str, float]] = {}
        for query_id in sorted(queries):
            answer = retriever(queries[query_id])
            scores[query_id] = _ranking(query_id, _results(query_id, answer))
        run = cls(scores, name)
        return run if k is None else run.top(k)

    def save(self, path: Path | str, k: int | None = None) -> None:
        """Write the run in TREC format, ranks from 1, tag = the run's name."""
        with open(path, "w", encoding="utf-8") as handle:
            for query_id, chunk_id, rank, score in self.entries(k):
                handle.write(f"{query_id} Q0 {chunk_id} {rank} {score:.6f} {self.name}\n")


def _results(query_id: str, answer: object) -> list:
    """A retriever's answer for one query as its list of results; a mapping is chunk id ->
    score (iterated, it gave its ids alone, their scores dropped); a string (one id, whose
    characters would be taken for ids) or what cannot be iterated is refused."""
    if isinstance(answer, Mapping):
        return list(answer.items())
    if not isinstance(answer, str | bytes | bytearray):
        try:
            return list(answer)  # type: ignore[call-overload]
        except TypeError:
            pass
    found = repr(answer)
    found = found if len(found) <= 80 else found[:77] + "..."
    raise LocalizedError(
        "retriever_not_a_list", query=query_id, found=found, kind=type(answer).__name__
    )


def _score(value: object) -> bool:
    """Whether ``value`` is a score: a real number (int, float, numpy's), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _as_float(value: numbers.Real) -> float:
    """``value`` as a float; an integer too large for one is infinite (refused as such)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _ranking(query_id: str, results: list) -> dict[str, float]:
    """A retriever's results for one query as chunk id -> score."""
    ranking: dict[str, float] = {}
    for position, item in enumerate(results):
        if isinstance(item, str):
            chunk_id, score = item, float(len(results) - position)
        elif (
            isinstance(item, tuple | list)
            and len(item) == 2
            and isinstance(item[0], str)
            and _score(item[1])
        ):
            chunk_id, score = item[0], _as_float(item[1])
        else:
            raise LocalizedError(
                "retriever_bad_result", query=query_id, position=position + 1, found=repr(item)
            )
        if not math.isfinite(score):
            raise LocalizedError("retriever_bad_score", query=query_id, chunk=chunk_id, value=score)
        if not chunk_id.strip() or any(c.isspace() for c in chunk_id):
            raise LocalizedError("retriever_bad_id", query=query_id, value=chunk_id)
        if chunk_id in ranking:
            raise LocalizedError("retriever_repeated", query=query_id, chunk=chunk_id)
        ranking[chunk_id] = score
    return ranking
