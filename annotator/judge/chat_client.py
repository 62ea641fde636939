"""One request to an OpenAI-compatible chat endpoint (``POST {base_url}/chat/completions``:
OpenAI, vLLM, Ollama, llama.cpp's server and the rest), through ``pooling.http_client``
(no redirect followed, a size cap and a total deadline), and what a run needs around it: a
rate limit shared by its workers, and the wait before trying again.

The API key is read from an environment variable the user names, is sent only in the
``Authorization`` header of requests to the base URL the lead gave, and is never stored,
logged or put in a message: every detail from the server passes ``redact``.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pooling.http_client import FATAL_STATUSES, HttpFailure, Limits, backoff, post_json
from pooling.i18n import LocalizedError
from pooling.redaction import redact

__all__ = ["Endpoint", "RateLimit", "Reply", "TransportError", "backoff", "chat"]

# Variables a key may be read from: the API-key variables of providers and one's own
# (OPENAI_API_KEY, QRELS_JUDGE_API_KEY), so that a lead cannot have the app send another of
# the server's secrets (the database URL, say) to a URL of their choosing.
KEY_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]*_API_KEY")
LONGEST_DETAIL = 300  # characters of a failed answer's body kept as its detail
LARGEST_ANSWER = 2 * 1024 * 1024  # bytes: a grade with its reason and logprobs is a few kB


@dataclass(frozen=True)
class Endpoint:
    """Where to ask and how: ``base_url`` up to ``/v1`` (checked by ``check_base_url``),
    the ``model`` to ask for, the key (hidden from ``repr``), and the request's settings."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0  # seconds to connect and for each read
    max_tokens: int = 512
    json_mode: bool = True  # ask for a JSON object (``response_format``)
    logprobs: bool = True  # ask for the tokens' probabilities (how sure the grade is)
    deadline: float | None = None  # seconds for the whole request (None: 3 × timeout)

    @property
    def whole_request(self) -> float:
        """Seconds a request may take from connecting to the answer's last byte."""
        return self.deadline if self.deadline is not None else 3 * self.timeout

    def body(self, messages: list[dict[str, str]]) -> dict:
        """The request's JSON: the messages and fixed settings, nothing else about the
        candidate (temperature 0: the same question gets the same answer where it can)."""
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        if self.logprobs:
            body["logprobs"] = True
        return body


@dataclass(frozen=True)
class Reply:
    """What the server answered: the message's text, the model it reports, the tokens it
    counted (``usage``), why it stopped, the tokens' probabilities when sent, and the
    seconds the request took."""

    content: str | None
    served_model: str
    tokens_in: int | None
    tokens_out: int | None
    finish_reason: str | None
    logprobs: list[dict] | None
    seconds: float


class TransportError(Exception):
    """A request that brought no answer: ``code`` (``answer.TRANSPORT_FAILURES``), the HTTP
    ``status`` where there was one, a short ``detail``, and the server's ``Retry-After``."""

    def __init__(
        self,
        code: str,
        detail: str = "",
        status: int | None = None,
        retry_after: float | None = None,
        seconds: float = 0.0,
    ) -> None:
        super().__init__(code)
        self.code, self.detail, self.status = code, detail, status
        self.retry_after, self.seconds = retry_after, seconds

    @property
    def retryable(self) -> bool:
        return self.code in ("http_429", "http_5xx", "timeout", "connection", "bad_response")

    @property
    def fatal(self) -> bool:
        """The key or the model is wrong: no later request can succeed."""
        return self.status in FATAL_STATUSES or self.code == "redirect"


def check_base_url(url: str) -> str:
    """``url`` without a trailing slash, if it is an http(s) URL with a host and no user,
    password, query or fragment (a key goes in an environment variable, not the URL);
    ``LocalizedError`` otherwise."""
    url = url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a bad port raises here)
    except ValueError:
        raise LocalizedError("judge_base_url", url=url) from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.password is not None
        or parts.query
        or parts.fragment
    ):
        raise LocalizedError("judge_base_url", url=url)
    return url


def api_key(variable: str | None) -> str | None:
    """The key in environment variable ``variable`` (None: no key); ``LocalizedError`` for
    a name that is not an API-key variable's, or a variable that is not set."""
    if variable is None or not variable.strip():
        return None
    variable = variable.strip()
    if not KEY_VARIABLE.fullmatch(variable):
        raise LocalizedError("judge_key_variable_name", variable=variable)
    value = os.environ.get(variable)
    if not value:
        raise LocalizedError("judge_key_variable_unset", variable=variable)
    return value


def chat(endpoint: Endpoint, messages: list[dict[str, str]]) -> Reply:
    """Send ``messages`` and read the answer (``pooling.http_client``: no redirect
    followed, at most ``LARGEST_ANSWER`` bytes, within ``endpoint.whole_request`` seconds);
    raises ``TransportError``, whose detail holds no key."""
    limits = Limits(endpoint.timeout, endpoint.whole_request, LARGEST_ANSWER)
    try:
        answer = post_json(
            f"{endpoint.base_url}/chat/completions",
            endpoint.body(messages),
            api_key=endpoint.api_key,
            limits=limits,
        )
    except HttpFailure as failure:
        raise TransportError(
            failure.code, failure.detail, failure.status, failure.retry_after, failure.seconds
        ) from None
    return _reply(answer.body, answer.seconds, endpoint.api_key)


def _reply(raw: bytes, seconds: float, key: str | None = None) -> Reply:
    """The answer's parts from the response body; ``TransportError("bad_response")`` when
    it is not the shape of a chat completion."""
    try:
        data = json.loads(raw.decode("utf-8"))
        choice = data["choices"][0]
        message = choice.get("message") or {}
        content = message.get("content")
        if message.get("refusal") and not content:
            content = None
            finish = "refusal"
        else:
            finish = choice.get("finish_reason")
        usage = data.get("usage") or {}
        logprobs = (choice.get("logprobs") or {}).get("content")
        return Reply(
            content if isinstance(content, str) else None,
            str(data.get("model") or ""),
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            finish if isinstance(finish, str) else None,
            logprobs if isinstance(logprobs, list) else None,
            seconds,
        )
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
        text = raw[: LONGEST_DETAIL * 4].decode("utf-8", "replace")
        detail = redact(f"{type(error).__name__}: {text}", [key])[:LONGEST_DETAIL]
        raise TransportError("bad_response", detail, seconds=seconds) from None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class RateLimit:
    """At most ``per_second`` requests a second across the threads sharing it (None: no
    limit): each ``wait`` takes the next free moment, spaced evenly."""

    def __init__(self, per_second: float | None) -> None:
        self.gap = 1.0 / per_second if per_second else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.gap:
            return
        with self._lock:
            now = time.monotonic()
            moment = max(now, self._next)
            self._next = moment + self.gap
        time.sleep(max(0.0, moment - now))
