"""What a model judge came to on a pool (``qrels judge report``, the Judge page): per run and
in all, the requests, tokens (the server's ``usage``), seconds and failures by reason; how
far its grades agree with the people's grades of the pool where there are any
(``annotator.judge.calibration.calibrate``, the function ``qrels calibrate`` uses); and the
candidates people must see: failed, misquoted (evidence not in the passage), flagged
(instruction-like text), and those the model was least sure of.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd
from sqlalchemy.engine import Engine

from annotator.judge.answer import MISQUOTED
from annotator.judge.calibration import Calibration, calibrate, judge_labels
from annotator.judge.liveness import abandoned
from annotator.judge.runner import judge_name
from pooling.grades import DEFAULT_POLICY, GRADES
from pooling.i18n import NotFound
from pooling.redaction import redact
from storage import judge_records
from storage.db import referenced, snapshot_scope
from storage.judge_records import ANSWER_COLUMNS
from storage.models import utcnow
from storage.pool_records import get_pool

UNCERTAIN = 20  # graded candidates listed as the least sure, at most
SURE = 0.8  # a grade the model gave a lower probability than this is one it was unsure of
WORST = 20  # differences from the people listed
REVIEW_REASONS = ("failed", "misquoted", "flagged", "uncertain")  # in the order listed


@dataclass
class JudgeReport:
    """A model's work on a pool under one prompt. Candidates: ``graded`` (a valid answer),
    ``failed`` (asked, no valid answer yet), ``not_asked``; ``flagged`` counts those whose
    query or passage reads like instructions (graded or not). ``failures`` counts attempts
    by reason, ``failed_by_reason`` candidates by the reason of their last attempt.
    ``calibration`` is None while people have graded none of the model's candidates."""

    pool: str
    model: str
    judge: str
    prompt_version: str
    prompt_hash: str
    rubric_version: str
    served_models: list[str]
    candidates: int
    graded: int
    failed: int
    not_asked: int
    flagged: int
    requests: int
    tokens_in: int
    tokens_out: int
    request_seconds: float
    seconds: float
    failures: dict[str, int]
    failed_by_reason: dict[str, int]
    grades: dict[int, int]
    runs: list[dict] = field(default_factory=list)
    calibration: Calibration | None = None
    review: list[dict] = field(default_factory=list)
    probabilities: bool = False  # whether the server sent the tokens' probabilities


def judge_report(
    engine: Engine,
    pool_name: str,
    model: str,
    prompt_hash: str | None = None,
    *,
    policy: str = DEFAULT_POLICY,
    uncertain: int = UNCERTAIN,
) -> JudgeReport:
    """The report of ``model`` on pool ``pool_name`` under ``prompt_hash`` (default: the
    prompt of the model's newest run there), calibrated against the pool's final grades
    under ``policy``. Raises ``NotFound`` for an unknown pool or a model never run on it."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        runs = judge_records.runs_of(pool, session=session, model=model, prompt_hash=prompt_hash)
        if not runs:
            raise NotFound("judge_no_runs", pool=pool_name, model=model)
        prompt_hash = runs[0].prompt_hash
        runs = [r for r in runs if r.prompt_hash == prompt_hash]
        rows = judge_records.answers_of(pool, model, prompt_hash, session=session)
        size = judge_records.pool_size(pool, session=session)
    answers = pd.DataFrame(rows, columns=ANSWER_COLUMNS)
    # Rows written before keys were hidden are shown without them too.
    answers["detail"] = answers["detail"].map(lambda d: redact(d) if isinstance(d, str) else d)
    last = _last_per_candidate(answers)
    judge = judge_name(model, prompt_hash)
    graded = last[last["status"] == "graded"]
    failed = last[last["status"] == "failed"]
    per_run = {run_id: part for run_id, part in answers.groupby("run")}
    return JudgeReport(
        pool=pool_name,
        model=model,
        judge=judge,
        prompt_version=runs[0].prompt_version,
        prompt_hash=prompt_hash,
        rubric_version=runs[0].rubric_version,
        served_models=sorted({m for m in answers["served_model"] if m}),
        candidates=size,
        graded=len(graded),
        failed=len(failed),
        not_asked=size - len(last),
        flagged=int(last["flags"].map(bool).sum()),
        requests=len(answers),
        tokens_in=int(answers["tokens_in"].fillna(0).sum()),
        tokens_out=int(answers["tokens_out"].fillna(0).sum()),
        request_seconds=float(answers["seconds"].sum()),
        seconds=sum(_seconds(run) for run in runs),
        failures=_counts(answers["failure"]),
        failed_by_reason=_counts(failed["failure"]),
        grades={g: int((graded["grade"] == g).sum()) for g in GRADES},
        runs=[_run_row(r, per_run.get(r.id)) for r in runs],
        calibration=_calibration(engine, pool_name, judge, policy),
        review=_review(last, uncertain),
        probabilities=bool(graded["probability"].notna().any()),
    )


def _last_per_candidate(answers: pd.DataFrame) -> pd.DataFrame:
    """Each candidate's valid answer if it has one, else its latest attempt."""
    if answers.empty:
        return answers
    ordered = answers.assign(valid=answers["status"] == "graded").sort_values(["valid", "answer"])
    return ordered.drop_duplicates(["query_id", "chunk_id"], keep="last").drop(columns="valid")


def _counts(values: pd.Series) -> dict[str, int]:
    return dict(sorted(Counter(v for v in values if isinstance(v, str)).items()))


def _seconds(run) -> float:
    """How long a run took (so far, while it runs)."""
    return ((run.finished_at or run.updated_at) - run.created_at).total_seconds()


def _run_row(run, answers: pd.DataFrame | None) -> dict:
    """One run as the report lists it."""
    failures = {} if answers is None else _counts(answers["failure"])
    return {
        "run": run.id,
        "status": run.status,
        "served_model": run.served_model,
        "started": run.created_at.isoformat(timespec="seconds"),
        "seconds": round(_seconds(run), 3),
        "todo": run.todo,
        "requests": run.asked,
        "graded": run.graded,
        "failed": run.failed,
        "flagged": run.flagged,
        "reused": run.reused,  # answers from another pool, not asked again
        "tokens_in": run.tokens_in,
        "tokens_out": run.tokens_out,
        "failures": failures,
        "error": redact(run.error or ""),
    }


def _review(last: pd.DataFrame, uncertain: int) -> list[dict]:
    """The candidates people must see, each with why: failed (and misquoted apart),
    flagged, and (of the others) at most ``uncertain`` graded ones whose grade had a
    probability under ``SURE``, the lowest first; each part by query and passage."""
    if last.empty:
        return []
    # By query and passage, not by when each answer came back (requests run in parallel).
    last = last.sort_values(["query_id", "chunk_id"])
    failed = last[last["status"] == "failed"]
    graded = last[last["status"] == "graded"]
    parts = [
        ("failed", failed[failed["failure"] != MISQUOTED]),
        ("misquoted", failed[failed["failure"] == MISQUOTED]),
        ("flagged", last[last["flags"].map(bool)]),
        (
            "uncertain",
            graded[(graded["probability"] < SURE) & ~graded["flags"].map(bool)]
            .sort_values(["probability", "query_id", "chunk_id"])
            .head(uncertain),
        ),
    ]
    keep = ["query_id", "chunk_id", "grade", "probability", "failure", "flags", "reason"]
    keep += ["evidence", "detail"]
    review = []
    for why, part in parts:
        for row in part[keep].to_dict("records"):
            grade = row["grade"]
            probability = row["probability"]
            review.append(
                {
                    "why": why,
                    **row,
                    "grade": None if pd.isna(grade) else int(grade),
                    "probability": None if pd.isna(probability) else float(probability),
                    "failure": row["failure"] if isinstance(row["failure"], str) else None,
                }
            )
    return review


def pool_grades(
    engine: Engine, pool_name: str, policy: str = DEFAULT_POLICY
) -> tuple[dict[str, dict[str, int]], dict[str, list[str]], str, str]:
    """The pool's final grades as a release of it made now would have them
    (``annotator.quality.adjudication.resolve``: agreed, adjudicated, gold), as qrels; each query's
    slices; and the pool's corpus version and query set names."""
    from annotator.quality.adjudication import resolve
    from annotator.quality.pool_quality import judgments_frame
    from storage import gold_records
    from storage.history import latest_adjudications
    from storage.models import CorpusVersion, QuerySet
    from storage.release_records import queries_of

    frame = judgments_frame(engine, pool_name)
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        decisions = latest_adjudications(pool, session=session)
        gold = {
            (g.query_id, g.chunk_id): g.grade for g in gold_records.items(pool, session=session)
        }
        query_set = referenced(QuerySet, pool.query_set_id, session=session)
        slices = {q.query_id: list(q.slices) for q in queries_of(query_set, session=session)}
        versions = (
            referenced(CorpusVersion, pool.corpus_version_id, session=session).name,
            query_set.name,
        )
        overlap = pool.overlap
    resolution = resolve(frame, decisions, [], set(), policy=policy, overlap=overlap, gold=gold)
    qrels: dict[str, dict[str, int]] = {}
    for (query_id, chunk_id), grade in resolution.grades.items():
        qrels.setdefault(query_id, {})[chunk_id] = int(grade)
    return qrels, slices, *versions


def _calibration(engine: Engine, pool_name: str, judge: str, policy: str) -> Calibration | None:
    """``calibrate`` of the judge against the pool's final grades; None without any."""
    qrels, slices, corpus_version, query_set = pool_grades(engine, pool_name, policy)
    if not qrels:
        return None
    labels = judge_labels(engine, judge, corpus_version, query_set)
    result = calibrate(judge, labels, qrels, slices, WORST)
    return result if result.shared else None


def to_json(report: JudgeReport) -> dict:
    """The report as plain data (``--json``): the layout is stable whatever the language."""
    return dataclasses.asdict(report)


def failures_frame(report: JudgeReport) -> pd.DataFrame:
    """Failures by reason: ``failure`` (its code), ``attempts`` (requests that failed so)
    and ``candidates`` (left without a grade so)."""
    reasons = sorted(set(report.failures) | set(report.failed_by_reason))
    return pd.DataFrame(
        {
            "failure": reasons,
            "attempts": [report.failures.get(r, 0) for r in reasons],
            "candidates": [report.failed_by_reason.get(r, 0) for r in reasons],
        }
    )


def confusion_cells(calibration: Calibration) -> pd.DataFrame:
    """The calibration's confusion as rows: ``people`` (the people's grade), ``model``
    (the model's) and ``count``."""
    cells = [(h, m, calibration.confusion[h][m]) for h in GRADES for m in GRADES]
    return pd.DataFrame(cells, columns=["people", "model", "count"])


@dataclass(frozen=True)
class RunView:
    """A run as the Judge page follows it: candidates done (graded or failed) of ``todo``;
    ``silent`` when it is still marked running but is no longer run
    (``liveness.abandoned``: its process ended)."""

    run: int
    model: str
    prompt_hash: str
    served_model: str
    status: str
    started: datetime
    heard: datetime
    todo: int
    done: int
    failed: int
    flagged: int
    requests: int
    tokens_in: int
    tokens_out: int
    error: str
    silent: bool
    reused: int = 0  # candidates given this judge's answer from another pool, not asked


def pool_runs(engine: Engine, pool_name: str) -> list[RunView]:
    """The runs of the judge on pool ``pool_name``, newest first: two indexed reads, so
    that the page can follow a run every few seconds."""
    with snapshot_scope(engine) as session:
        runs = judge_records.runs_of(get_pool(pool_name, session=session), session=session)
    now = utcnow()
    return [
        RunView(
            r.id, r.model, r.prompt_hash, r.served_model, r.status, r.created_at, r.updated_at,
            r.todo, r.graded + r.failed, r.failed, r.flagged, r.asked, r.tokens_in, r.tokens_out,
            redact(r.error or ""),
            r.status == "running" and bool(abandoned(r.owner, r.updated_at, now)),
            r.reused,
        )
        for r in runs
    ]  # fmt: skip
