"""What counts as a grade from the model: one JSON object with ``grade`` (an integer 0–3),
``reason`` (a short text) and ``evidence`` (a quote found verbatim in the passage once
runs of whitespace are made single spaces; empty only with grade 0). Anything else is a
failure with a reason code (``FAILURES``), recorded and retried, never a grade.

A JSON object alone, or in one Markdown code fence, after an optional ``<think>`` block
(models that reason aloud), is accepted; prose around it is not.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from pooling.grades import is_grade

# Why an attempt gave no grade: what the model said, then what the transport did
# (``annotator.judge.chat_client``). Each has a message ``judge_failure_<code>``.
ANSWER_FAILURES = (
    "invalid_json",
    "not_an_object",
    "grade_missing",
    "grade_out_of_range",
    "reason_missing",
    "evidence_missing",
    "evidence_not_in_passage",
    "empty_answer",
    "truncated",
    "refused_by_model",
)
TRANSPORT_FAILURES = (
    "http_429",
    "http_5xx",
    "http_4xx",
    "timeout",
    "connection",
    "bad_response",
    "redirect",
    "too_large",
)
FAILURES = ANSWER_FAILURES + TRANSPORT_FAILURES
MISQUOTED = "evidence_not_in_passage"
LONGEST_REASON, LONGEST_EVIDENCE = 2000, 4000  # characters kept; longer is cut, not refused

_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)


class Unusable(ValueError):
    """An answer that is not a grade: ``code`` (one of ``FAILURES``) and a short ``detail``."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code, self.detail = code, detail


@dataclass(frozen=True)
class Answer:
    grade: int
    reason: str
    evidence: str


def normalise(text: str) -> str:
    """``text`` with every run of whitespace (any Unicode space, line breaks) one space."""
    return " ".join(text.split())


def quoted(evidence: str, passage: str) -> bool:
    """Whether ``evidence`` occurs in ``passage`` word for word, whitespace aside."""
    return normalise(evidence) in normalise(passage)


def parse(content: str | None, passage: str) -> Answer:
    """The grade in the model's ``content`` about ``passage``; raises ``Unusable``."""
    if content is None or not content.strip():
        raise Unusable("empty_answer")
    text = _THINK.sub("", content, count=1)
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as error:
        raise Unusable("invalid_json", str(error)[:200]) from None
    if not isinstance(data, dict):
        raise Unusable("not_an_object", type(data).__name__)
    if "grade" not in data:
        raise Unusable("grade_missing")
    grade = data["grade"]
    if not is_grade(grade):
        raise Unusable("grade_out_of_range", json.dumps(grade, ensure_ascii=False)[:50])
    reason = data.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise Unusable("reason_missing")
    evidence = data.get("evidence")
    if not isinstance(evidence, str) or (not evidence.strip() and grade > 0):
        raise Unusable("evidence_missing")
    if evidence.strip() and not quoted(evidence, passage):
        raise Unusable(MISQUOTED, evidence[:200])
    return Answer(grade, reason.strip()[:LONGEST_REASON], evidence.strip()[:LONGEST_EVIDENCE])


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


_GRADE_VALUE = re.compile(r'"grade"\s*:\s*([0-3])')


def grade_probability(content: str, tokens: list[dict] | None) -> float | None:
    """The probability the model gave the grade it wrote, from the server's ``logprobs``
    (``choices[0].logprobs.content``: each token with its ``logprob``): that of the token
    holding the grade's digit. None when the server sent none or the token is not found."""
    if not tokens:
        return None
    found = _GRADE_VALUE.search(content)
    if found is None:
        return None
    at, start = found.start(1), 0
    for token in tokens:
        text = token.get("token")
        if not isinstance(text, str):
            return None
        end = start + len(text)
        if start <= at < end:
            if not text.strip() or text.strip()[0] not in "0123":
                return None  # the digit shares a token with other text: no clean figure
            logprob = token.get("logprob")
            if not isinstance(logprob, int | float) or math.isnan(logprob):
                return None
            return min(1.0, math.exp(logprob))
        start = end
    return None
