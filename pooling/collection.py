"""A BEIR collection in a folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels.tsv``), as
the benchmarks and the tests on real collections read it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pooling.qrels import Qrels
from pooling.readers import CorpusRecord, QueryRecord, read_corpus, read_queries
from pooling.retrievers import Corpus, indexed_text


@dataclass
class Collection:
    """A BEIR collection in a folder: corpus, queries, and the relevant chunks per query
    (grade >= 1) from its ``qrels.tsv``."""

    corpus: list[CorpusRecord]
    queries: list[QueryRecord]
    relevant: dict[str, set[str]]

    def retrieval_corpus(self, fingerprint: str) -> Corpus:
        """The corpus as retrievers index it."""
        texts = [indexed_text(d.title, d.text) for d in self.corpus]
        return Corpus(fingerprint, [d.id for d in self.corpus], texts)


def read_collection(folder: Path | str, allow_empty: bool = False) -> Collection:
    """``corpus.jsonl``, ``queries.jsonl`` and ``qrels.tsv`` from ``folder``."""
    folder = Path(folder)
    relevant = Qrels.from_file(folder / "qrels.tsv").relevant()
    return Collection(
        read_corpus(folder / "corpus.jsonl", allow_empty),
        read_queries(folder / "queries.jsonl"),
        relevant,
    )
