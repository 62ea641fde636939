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
from dataclasses import dataclass, field

from pooling.http_client import (
    FATAL_STATUSES,
    HttpFailure,
    Limits,
    RateLimit,
    api_key,
    backoff,
    check_base_url,
    post_json,
)
from pooling.redaction import redact

__all__ = [
    "Endpoint",
    "RateLimit",
    "Reply",
    "TransportError",
    "api_key",
    "backoff",
    "chat",
    "check_base_url",
]

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
    ``status`` where there was one, a short ``detail`` (English, what is stored), the
    server's ``Retry-After``, and ``told``: the client's account in any language, when it
    has one."""

    def __init__(
        self,
        code: str,
        detail: str = "",
        status: int | None = None,
        retry_after: float | None = None,
        seconds: float = 0.0,
        told: HttpFailure | None = None,
    ) -> None:
        super().__init__(code)
        self.code, self.detail, self.status = code, detail, status
        self.retry_after, self.seconds, self.told = retry_after, seconds, told

    @property
    def retryable(self) -> bool:
        return self.code in ("http_429", "http_5xx", "timeout", "connection", "bad_response")

    @property
    def fatal(self) -> bool:
        """The key or the model is wrong: no later request can succeed."""
        return self.status in FATAL_STATUSES or self.code == "redirect"


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
            failure.code,
            failure.detail,
            failure.status,
            failure.retry_after,
            failure.seconds,
            told=failure,
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
