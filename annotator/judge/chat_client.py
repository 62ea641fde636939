"""One request to an OpenAI-compatible chat endpoint (``POST {base_url}/chat/completions``:
OpenAI, vLLM, Ollama, llama.cpp's server and the rest), over plain HTTP with the standard
library, and what a run needs around it: a rate limit shared by its workers, and the wait
before trying again.

The API key is read from an environment variable the user names, is sent only in the
``Authorization`` header, and is never stored, logged or put in a message.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pooling.i18n import LocalizedError

# Variables a key may be read from: the API-key variables of providers and one's own
# (OPENAI_API_KEY, QRELS_JUDGE_API_KEY), so that a lead cannot have the app send another of
# the server's secrets (the database URL, say) to a URL of their choosing.
KEY_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]*_API_KEY")
FATAL_STATUSES = (401, 403, 404)  # every later request would fail the same way
LONGEST_DETAIL = 300  # characters of a failed answer's body kept as its detail


@dataclass(frozen=True)
class Endpoint:
    """Where to ask and how: ``base_url`` up to ``/v1`` (checked by ``check_base_url``),
    the ``model`` to ask for, the key (hidden from ``repr``), and the request's settings."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_tokens: int = 512
    json_mode: bool = True  # ask for a JSON object (``response_format``)
    logprobs: bool = True  # ask for the tokens' probabilities (how sure the grade is)

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
        return self.status in FATAL_STATUSES


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
    """Send ``messages`` and read the answer; raises ``TransportError``."""
    data = json.dumps(endpoint.body(messages), ensure_ascii=False).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    request = urllib.request.Request(
        f"{endpoint.base_url}/chat/completions", data=data, headers=headers, method="POST"
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        seconds = time.monotonic() - started
        raise _http_error(error, seconds) from None
    except TimeoutError as error:
        raise TransportError("timeout", str(error), seconds=_since(started)) from None
    except urllib.error.URLError as error:
        code = "timeout" if isinstance(error.reason, TimeoutError) else "connection"
        detail = str(error.reason)[:LONGEST_DETAIL]
        raise TransportError(code, detail, seconds=_since(started)) from None
    except (ConnectionError, OSError) as error:
        detail = str(error)[:LONGEST_DETAIL]
        raise TransportError("connection", detail, seconds=_since(started)) from None
    return _reply(raw, _since(started))


def _since(started: float) -> float:
    return time.monotonic() - started


def _http_error(error: urllib.error.HTTPError, seconds: float) -> TransportError:
    try:
        body = error.read().decode("utf-8", "replace")
    except OSError:
        body = ""
    status = error.code
    code = "http_429" if status == 429 else "http_5xx" if status >= 500 else "http_4xx"
    detail = f"HTTP {status}: {' '.join(body.split())}"[:LONGEST_DETAIL]
    return TransportError(code, detail, status, _retry_after(error.headers), seconds)


def _retry_after(headers) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: the backoff decides


def _reply(raw: bytes, seconds: float) -> Reply:
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
        detail = f"{type(error).__name__}: {raw[:LONGEST_DETAIL].decode('utf-8', 'replace')}"
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


def backoff(attempt: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before attempt ``attempt + 1``: the server's ``Retry-After`` when it
    sent one (up to ``cap``), else ``base * 2**(attempt - 1)`` up to ``cap``, with up to a
    quarter of it added at random so that workers do not come back together."""
    if retry_after is not None:
        return min(cap, retry_after)
    delay = min(cap, base * 2 ** (attempt - 1))
    return delay + random.uniform(0, delay / 4)
