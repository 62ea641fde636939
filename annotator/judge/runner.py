"""Run the judge on a pool: ask about every candidate that has no valid answer from this
(model, prompt hash), ``concurrency`` requests at a time under a rate limit, retrying what
failed, and write each answer the moment it arrives, in a transaction of its own.

So a rerun asks only what is still open, and Ctrl-C, a crash or a stop from the Judge page
loses nothing already answered. A valid answer is a judgment of the model's account
``judge:<model>@<prompt hash>`` (kind model: never a person's, never shown to annotators,
never in a release's qrels; a release lists it apart for metric estimates), unless the
candidate was flagged (``annotator.judge.injection``): a flagged candidate's grade is kept
with its answer for people to see, never as a judgment.
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import timedelta

from sqlalchemy.engine import Engine

from annotator.judge.asking import Asking, Attempt, work
from annotator.judge.chat_client import Endpoint, RateLimit, api_key, check_base_url
from annotator.judge.prompt import Prompt, default_prompt
from pooling.i18n import LocalizedError
from pooling.readers import CONTROL
from storage import judge_records
from storage.accounts import acting
from storage.db import referenced, session_scope
from storage.imports import annotator_account
from storage.judge_records import CandidateText
from storage.judge_tables import JudgeAnswer, JudgeRun
from storage.models import Judgment, utcnow
from storage.pool_records import get_pool

logger = logging.getLogger(__name__)

JUDGE_PREFIX = "judge:"
# A run not heard from for this long is taken for dead (its process ended mid-run).
STALE_SECONDS = 600
# Candidates failing in a row for want of a server before a run gives up.
IN_A_ROW = 10
BATCH = 100  # candidates whose texts are read at a time


@dataclass(frozen=True)
class JudgeSettings:
    """How a run asks: requests at a time, retries after a failed attempt, seconds before
    a request times out, requests a second at most (None: no limit), candidates to ask at
    most (None: all), tokens an answer may take, JSON mode and token probabilities asked
    for, and the backoff's first wait and cap in seconds."""

    concurrency: int = 4
    retries: int = 2
    timeout: float = 60.0
    rate: float | None = None
    limit: int | None = None
    max_tokens: int = 512
    json_mode: bool = True
    logprobs: bool = True
    backoff: float = 1.0
    backoff_cap: float = 30.0

    def check(self) -> JudgeSettings:
        """These settings, or ``LocalizedError`` naming the first that makes no sense."""
        for name, low in (("concurrency", 1), ("retries", 0), ("max_tokens", 16)):
            if getattr(self, name) < low:
                raise LocalizedError("judge_setting", name=name, value=getattr(self, name))
        for name in ("timeout", "rate", "limit", "backoff_cap"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise LocalizedError("judge_setting", name=name, value=value)
        if self.backoff < 0:
            raise LocalizedError("judge_setting", name="backoff", value=self.backoff)
        return self


def judge_name(model: str, prompt_hash: str) -> str:
    """The account a model's grades under a prompt are judgments of."""
    return f"{JUDGE_PREFIX}{model}@{prompt_hash[:12]}"


def check_model(model: str) -> str:
    """``model`` stripped, if it is a name one can send; ``LocalizedError`` otherwise."""
    model = model.strip()
    if not model or len(model) > 200 or CONTROL.search(model) or "\n" in model:
        raise LocalizedError("judge_model_name", model=model)
    return model


@dataclass
class Started:
    """A run recorded and ready: its id, the judge's account, the candidates to ask about,
    and what it asks with."""

    run_id: int
    judge: str
    candidates: list[int]
    endpoint: Endpoint
    prompt: Prompt
    prompt_hash: str
    settings: JudgeSettings
    rubric_version: str


def start_run(
    engine: Engine,
    pool_name: str,
    model: str,
    base_url: str,
    *,
    key_variable: str | None = None,
    prompt: Prompt | None = None,
    settings: JudgeSettings | None = None,
    by: int | None = None,
) -> Started:
    """Record a run of ``model`` at ``base_url`` on pool ``pool_name`` by the lead ``by``
    (None: the command line), with the key in environment variable ``key_variable``, and
    find the candidates it must ask about. Raises ``Refused`` for an account that is not an
    enabled lead's, ``NotFound`` for an unknown pool, ``LocalizedError`` for a bad model
    name, URL, key variable or setting, or a run of the same model and prompt on the pool
    still going."""
    model, base_url = check_model(model), check_base_url(base_url)
    settings = (settings or JudgeSettings()).check()
    key = api_key(key_variable)
    prompt = prompt or default_prompt()
    digest = prompt.hash
    endpoint = Endpoint(
        base_url, model, key, settings.timeout, settings.max_tokens, settings.json_mode,
        settings.logprobs,
    )  # fmt: skip
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        heard_since = utcnow() - timedelta(seconds=STALE_SECONDS)
        if judge_records.running_runs(
            pool, model, digest, session=session, heard_since=heard_since
        ):
            raise LocalizedError("judge_already_running", pool=pool_name, model=model)
        judge, _ = annotator_account(judge_name(model, digest), "model", session=session)
        candidates = judge_records.candidates_to_ask(
            pool, model, digest, session=session, limit=settings.limit
        )
        run = JudgeRun(
            pool_id=pool.id,
            user_id=judge.id,
            started_by=by,
            model=model,
            base_url=base_url,
            prompt_version=prompt.version,
            prompt_hash=digest,
            rubric_version=prompt.rubric_version,
            prompt={"system": prompt.system, "user": prompt.user},
            settings={**asdict(settings), "key_variable": key_variable or None},
            todo=len(candidates),
        )
        session.add(run)
        session.flush()
        return Started(
            run.id, judge.name, candidates, endpoint, prompt, digest, settings,
            prompt.rubric_version,
        )  # fmt: skip


@dataclass
class RunSummary:
    """How a run ended: ``status`` (done, stopped, failed, with the server's ``error``), the
    candidates graded, failed and flagged, the requests made, and ``failures``: the failed
    candidates by the reason of their last attempt."""

    run_id: int
    judge: str
    status: str
    graded: int = 0
    failed: int = 0
    flagged: int = 0
    requests: int = 0
    error: str = ""
    failures: dict[str, int] = field(default_factory=dict)


def run_judge(
    engine: Engine,
    started: Started,
    *,
    progress: Callable[[Attempt], None] | None = None,
    stop: threading.Event | None = None,
) -> RunSummary:
    """Ask about every candidate of ``started``, writing each attempt as it comes back;
    ``progress`` is called with each candidate's final attempt. Ends when all are answered,
    when ``stop`` is set or the run is asked to stop (``request_stop``), or when the server
    refuses the key or the model or cannot be reached for ``IN_A_ROW`` candidates. On
    KeyboardInterrupt, what already came back is written and the run marked stopped."""
    stop = stop or threading.Event()
    summary = RunSummary(started.run_id, started.judge, "done")
    settings = started.settings
    tasks: queue.Queue = queue.Queue(maxsize=2 * settings.concurrency)
    results: queue.Queue = queue.Queue()
    halt = threading.Event()  # what the threads obey: set on a stop, or by a worker on a fatal
    asking = Asking(
        started.endpoint, started.prompt, settings.retries, settings.backoff,
        settings.backoff_cap, RateLimit(settings.rate), results, halt,
    )  # fmt: skip
    threads = [
        threading.Thread(target=_feed, args=(engine, started, tasks, halt), daemon=True),
        *(
            threading.Thread(target=work, args=(asking, tasks), daemon=True)
            for _ in range(settings.concurrency)
        ),
    ]
    for thread in threads:
        thread.start()
    open_candidates, in_a_row = len(started.candidates), 0
    try:
        while open_candidates and summary.status == "done":
            try:
                attempt = results.get(timeout=0.2)
            except queue.Empty:
                if stop.is_set():
                    summary.status = "stopped"
                elif not any(thread.is_alive() for thread in threads):
                    break  # nothing more will come (a worker died: logged there)
                continue
            stop_asked = _write(engine, started, attempt, summary)
            if attempt.final:
                open_candidates -= 1
                in_a_row = in_a_row + 1 if _unreached(attempt) else 0
                if progress is not None:
                    progress(attempt)
            if attempt.fatal or in_a_row >= IN_A_ROW:
                summary.status, summary.error = "failed", attempt.detail or attempt.failure
            elif stop_asked or stop.is_set():
                summary.status = "stopped"
    except KeyboardInterrupt:
        summary.status = "stopped"
        halt.set()
        _drain(engine, started, results, summary)
        _finish(engine, summary)
        raise
    except BaseException:
        halt.set()
        summary.status, summary.error = "failed", "internal error"
        _finish(engine, summary)
        raise
    halt.set()
    for thread in threads:  # requests in flight come back, or time out
        thread.join(timeout=started.endpoint.whole_request + 5)
    _drain(engine, started, results, summary)
    _finish(engine, summary)
    return summary


def _unreached(attempt: Attempt) -> bool:
    return attempt.failure in ("connection", "timeout", "http_5xx", "http_429")


def _finish(engine: Engine, summary: RunSummary) -> None:
    with session_scope(engine) as session:
        judge_records.finish_run(
            summary.run_id, summary.status, session=session, error=summary.error
        )


def _drain(engine: Engine, started: Started, results: queue.Queue, summary: RunSummary) -> None:
    """Write what came back and is still waiting, so that an interrupt loses none of it."""
    while True:
        try:
            attempt = results.get_nowait()
        except queue.Empty:
            return
        _write(engine, started, attempt, summary)


def _feed(engine: Engine, started: Started, tasks: queue.Queue, stop: threading.Event) -> None:
    """Put the candidates' texts on ``tasks``, ``BATCH`` at a time, then one end mark per
    worker."""
    try:
        ids = started.candidates
        for start in range(0, len(ids), BATCH):
            with session_scope(engine) as session:
                texts = judge_records.candidate_texts(ids[start : start + BATCH], session=session)
            for text in texts:
                if not _put(tasks, text, stop):
                    return
    except Exception:
        logger.exception("judge run %s: reading candidates failed", started.run_id)
    finally:
        for _ in range(started.settings.concurrency):
            _put(tasks, None, stop)


def _put(tasks: queue.Queue, item: CandidateText | None, stop: threading.Event) -> bool:
    """Put ``item`` on ``tasks`` once there is room; False if the run stopped first."""
    while not stop.is_set():
        try:
            tasks.put(item, timeout=0.2)
            return True
        except queue.Full:
            continue
    return False


def _write(engine: Engine, started: Started, attempt: Attempt, summary: RunSummary) -> bool:
    """Record ``attempt`` (and the judgment it makes); returns whether the run was asked to
    stop."""
    candidate = attempt.candidate
    answer = JudgeAnswer(
        run_id=started.run_id,
        candidate_id=candidate.candidate_id,
        model=started.endpoint.model,
        prompt_hash=started.prompt_hash,
        attempt=attempt.number,
        status="graded" if attempt.graded else "failed",
        grade=attempt.grade,
        reason=attempt.reason,
        evidence=attempt.evidence,
        failure=attempt.failure,
        detail=attempt.detail,
        content=attempt.content,
        flags=attempt.flags,
        probability=attempt.probability,
        served_model=attempt.served_model,
        tokens_in=attempt.tokens_in,
        tokens_out=attempt.tokens_out,
        seconds=attempt.seconds,
    )
    with session_scope(engine) as session:
        run = referenced(JudgeRun, started.run_id, session=session)
        judgment = None
        if attempt.graded and not attempt.flags:
            judgment = Judgment(
                user_id=run.user_id,
                query_id=candidate.query_key,
                chunk_id=candidate.chunk_key,
                grade=attempt.grade,
                note=attempt.reason,
                rubric_version=started.rubric_version,
                seconds=attempt.seconds,
                pool_id=run.pool_id,
            )
        stop_asked = judge_records.record_answer(
            run, answer, session=session, judgment=judgment, final=attempt.final
        )
    summary.requests += 1
    if attempt.final:
        if attempt.graded:
            summary.graded += 1
        else:
            summary.failed += 1
            assert attempt.failure is not None  # an attempt without a grade says why
            summary.failures[attempt.failure] = summary.failures.get(attempt.failure, 0) + 1
        summary.flagged += bool(attempt.flags)
    return stop_asked


def judge_pool(
    engine: Engine,
    pool_name: str,
    model: str,
    base_url: str,
    *,
    progress: Callable[[Attempt], None] | None = None,
    **options,
) -> RunSummary:
    """``start_run`` then ``run_judge``: the whole of ``qrels judge``."""
    return run_judge(
        engine, start_run(engine, pool_name, model, base_url, **options), progress=progress
    )


def start_in_background(
    engine: Engine, pool_name: str, model: str, base_url: str, **options
) -> int:
    """``start_run``, then ``run_judge`` in a thread of this process (the Judge page: the
    run outlives the page's script, which reads its progress from the database). Returns
    the run's id; errors in the thread are logged under an incident id and end the run as
    failed."""
    started = start_run(engine, pool_name, model, base_url, **options)

    def background() -> None:
        try:
            run_judge(engine, started)
        except Exception:
            incident = secrets.token_hex(4)
            logger.exception("judge run %s: incident %s", started.run_id, incident)

    threading.Thread(target=background, name=f"judge-run-{started.run_id}", daemon=True).start()
    return started.run_id


def request_stop(engine: Engine, run_id: int, by: int | None = None) -> None:
    """Ask run ``run_id`` to stop after the answers in flight, by the lead ``by``."""
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        judge_records.request_stop(run_id, session=session)
