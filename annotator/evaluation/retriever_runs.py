"""A retriever function scored against a release as a run is: a RAG team's pipeline
(query text -> chunk ids, or (id, score) pairs) gated in its own CI without writing a
file. No Streamlit in here."""

from __future__ import annotations

from annotator.evaluation.evaluation import ReleaseData
from annotator.evaluation.run_files import RunFile
from pooling.run import Retriever, Run


def retriever_run(
    release: ReleaseData, retriever: Retriever, name: str = "retriever", k: int | None = 100
) -> RunFile:
    """The run of ``retriever`` (query text -> chunk ids best first, or (id, score) pairs)
    on every query of ``release``, its best ``k`` per query, ready for ``evaluate``.
    Raises what ``Run.from_retriever`` raises; what the retriever raises passes through."""
    queries = dict(zip(release.queries["query_id"], release.queries["text"], strict=True))
    run = Run.from_retriever(queries, retriever, name, k)
    return RunFile(run, f"retriever:{name}")
