"""Asking the model about one candidate, in a worker thread of a run: attempt after attempt
until an answer is a grade or the retries are spent, waiting with backoff after a failed
request, and handing every attempt to the run (``annotator.judge.runner``), which writes it.
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass

from annotator.judge.answer import Unusable, grade_probability, parse
from annotator.judge.chat_client import Endpoint, RateLimit, Reply, TransportError, backoff, chat
from annotator.judge.injection import scan
from annotator.judge.prompt import Prompt
from pooling.i18n import LocalizedError
from pooling.readers import CONTROL
from pooling.redaction import redact
from storage.judge_records import CandidateText

logger = logging.getLogger(__name__)

LONGEST_CONTENT = 4000  # characters of an answer kept for people to read
LONGEST_DETAIL = 300


@dataclass
class Attempt:
    """One request about one candidate and what came of it; ``final`` when no other
    attempt follows, ``fatal`` when no later request can succeed either."""

    candidate: CandidateText
    number: int
    flags: list[str]
    grade: int | None = None
    reason: str = ""
    evidence: str = ""
    failure: str | None = None
    detail: str = ""
    told: LocalizedError | None = None  # the detail in any language, where there is one
    content: str = ""
    probability: float | None = None
    served_model: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    seconds: float = 0.0
    final: bool = False
    fatal: bool = False

    @property
    def graded(self) -> bool:
        return self.grade is not None


@dataclass(frozen=True)
class Asking:
    """What a run's workers share: where and what to ask, how often to retry and how long
    to wait between tries (seconds: the first wait, doubling up to the cap), the rate
    limit, where attempts go, and the run's stop signal."""

    endpoint: Endpoint
    prompt: Prompt
    retries: int
    backoff: float
    backoff_cap: float
    limit: RateLimit
    results: queue.Queue
    stop: threading.Event


def work(asking: Asking, tasks: queue.Queue) -> None:
    """Take candidates from ``tasks`` until the end mark (None), asking about each."""
    while not asking.stop.is_set():
        try:
            candidate = tasks.get(timeout=0.2)
        except queue.Empty:
            continue
        if candidate is None:
            return
        try:
            ask(asking, candidate)
        except Exception as error:  # a bug here must not hang the run: count it, go on
            logger.exception("judge: asking about candidate %s failed", candidate.candidate_id)
            detail = clean(repr(error), asking)[:LONGEST_DETAIL]
            failed = Attempt(candidate, 1, [], failure="bad_response", detail=detail, final=True)
            asking.results.put(failed)


def ask(asking: Asking, candidate: CandidateText) -> None:
    """Ask about ``candidate`` until an answer is a grade or the retries are spent; put
    every attempt on ``asking.results``."""
    flags = scan(candidate.query, candidate.passage)
    messages = asking.prompt.messages(candidate.query, candidate.passage)
    last = asking.retries + 1
    for number in range(1, last + 1):
        if asking.stop.is_set():
            return
        asking.limit.wait()
        attempt = Attempt(candidate, number, flags)
        try:
            reply = chat(asking.endpoint, messages)
        except TransportError as error:
            attempt.failure, attempt.detail = error.code, clean(error.detail, asking)
            attempt.told = error.told
            attempt.seconds, attempt.fatal = error.seconds, error.fatal
            attempt.final = number == last or not error.retryable
            if error.fatal:
                asking.stop.set()  # the other workers ask nothing more either
            asking.results.put(attempt)
            if attempt.final:
                return
            asking.stop.wait(backoff(number, asking.backoff, asking.backoff_cap, error.retry_after))
            continue
        read(attempt, reply, asking.endpoint.api_key)
        attempt.final = attempt.graded or number == last
        asking.results.put(attempt)
        if attempt.final:
            return


def read(attempt: Attempt, reply: Reply, key: str | None = None) -> None:
    """Fill ``attempt`` from the server's ``reply``: a grade, or why it is none (the
    request's ``key`` hidden from whatever of the reply is kept)."""
    attempt.served_model = clean(reply.served_model)[:200]
    attempt.tokens_in, attempt.tokens_out = reply.tokens_in, reply.tokens_out
    attempt.seconds = reply.seconds
    attempt.content = redact(clean(reply.content or ""), [key])[:LONGEST_CONTENT]
    try:
        if reply.finish_reason in ("content_filter", "refusal"):
            raise Unusable("refused_by_model", reply.finish_reason)
        try:
            answer = parse(reply.content, attempt.candidate.passage)
        except Unusable as error:
            if reply.finish_reason == "length" and error.code == "invalid_json":
                raise Unusable("truncated", error.detail) from None
            raise
    except Unusable as error:
        attempt.failure, attempt.detail = error.code, redact(clean(error.detail), [key])
        return
    attempt.grade, attempt.reason = answer.grade, clean(answer.reason)
    attempt.evidence = answer.evidence  # found in the passage, which holds no control codes
    attempt.probability = grade_probability(reply.content or "", reply.logprobs)


def clean(text: str, asking: Asking | None = None) -> str:
    """``text`` from a model or a server with control characters replaced (PostgreSQL
    cannot store NUL, and the rest would act on terminals), and with ``asking``, its key
    and anything shaped like a key hidden."""
    text = CONTROL.sub("\ufffd", text)
    return text if asking is None else redact(text, [asking.endpoint.api_key])
