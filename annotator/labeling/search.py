"""Manual search: an annotator looks for evidence the pool missed and adds it.

The app keeps one ``ManualSearch`` per pool (the BM25 index is the pool's own, from the
on-disk cache); results carry the chunk and its document title, never a score or rank that
could hint at what the systems thought.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from annotator.rubric import current_version
from pooling.readers import MAX_SEARCH, refuse_control
from pooling.retrievers import BM25Retriever
from pooling.tokenize import TokenizerConfig
from storage import pool_records
from storage.accounts import acting
from storage.db import referenced, session_scope
from storage.models import CorpusVersion


@dataclass(frozen=True)
class Hit:
    """A chunk found by manual search, as the annotator sees it."""

    chunk_id: str
    text: str


class ManualSearch:
    """Search the corpus of pool ``pool_name`` and add found chunks to the pool."""

    def __init__(self, engine: Engine, pool_name: str) -> None:
        self.engine, self.pool_name = engine, pool_name
        with session_scope(engine) as session:
            pool = pool_records.get_pool(pool_name, session=session)
            corpus = pool_records.retrieval_corpus(
                referenced(CorpusVersion, pool.corpus_version_id, session=session), session=session
            )
            tokenizer = pool.config.get("retrieval", {}).get("tokenizer", {})
        self._texts = dict(zip(corpus.ids, corpus.texts, strict=True))
        self._retriever = BM25Retriever(corpus, TokenizerConfig(**tokenizer), name="manual")

    def search(self, text: str, k: int = 10) -> list[Hit]:
        """The best ``k`` chunks for ``text``, best first; none for an empty search.
        Raises ``LocalizedError`` for a search longer than ``MAX_SEARCH`` characters (each
        word costs a look-up: a megabyte took a second of the server's time) or holding a
        control character."""
        refuse_control(text, "what_search", limit=MAX_SEARCH)
        if not text.strip():
            return []
        ranking = self._retriever.search({"search": text}, k).ranking("search")
        return [Hit(chunk_id, self._texts[chunk_id]) for chunk_id, _ in ranking]

    def add(self, query_id: str, chunk_id: str, user_id: int) -> None:
        """Add ``chunk_id`` to the pool for ``query_id`` with provenance ``manual:<name>``.
        Answers nothing: whether a system had found the chunk already is what an annotator
        must not learn (it would tell them what the systems think), so the app says the
        same either way, and their progress does not move either way: a chunk their search
        puts in the pool is judged by others, never offered to them. Raises ``NotFound``
        for an id the pool's versions do not know, ``Refused`` unless ``user_id`` may
        act."""
        with session_scope(self.engine) as session:
            user = acting(user_id, session=session)
            pool = pool_records.get_pool(self.pool_name, session=session)
            pool_records.add_manual_candidate(
                pool,
                query_id,
                chunk_id,
                user.name,
                session=session,
                finder=user.id,
                rubric=current_version(),
            )
