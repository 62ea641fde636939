"""One JSON request to an HTTP API, with the guards a key and a stranger's server need:
``POST`` a JSON body to an OpenAI-compatible endpoint (``/v1/chat/completions`` for the
model judge, ``/v1/embeddings`` for an encoder) and read its answer.

What it refuses, and why:

- **Redirects.** A 3xx is a failure naming the status and the target, never followed: a
  redirect to another host, port or scheme would carry the request, and its key, where the
  lead did not point it, and that host's answer would be read as the model's.
- **Answers over a size** (``Limits.largest``, 4 MiB unless told): the body is read in
  chunks and the request dropped at the first byte over, so a 60 MB answer is never held
  whole; a ``Content-Length`` over it is refused before reading. Compressed answers are
  refused (``Accept-Encoding: identity`` is asked), so that no small body inflates.
- **Answers over a time** (``Limits.deadline``, the whole request from connecting to the
  last byte), besides ``Limits.timeout`` for connecting and for each read: a server that
  drips a byte a second never times a read out, so at the deadline a timer shuts the
  connection's socket down, which ends the read under way.

The key is read from an environment variable whose name ends in ``_API_KEY``
(``api_key``), sent only in the ``Authorization`` header of the one request to the URL
given (``check_base_url``: http(s), no user, password, query or fragment), and never put in
a failure: every detail taken from a server passes ``pooling.redaction.redact``.

Built on httpx, a maintained client (redirects off by default and refusable per request,
streamed bodies, typed errors, HTTPS proxies and certificates from the usual variables)
rather than urllib, whose default opener follows redirects with the headers and reads a
body whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from pooling.i18n import LocalizedError
from pooling.redaction import redact

LARGEST_ANSWER = 4 * 1024 * 1024  # bytes: a chat answer is a few kB, 1,000 embeddings ~20 MB
LONGEST_DETAIL = 300  # characters of a failed answer's body kept as its detail
RETRYABLE = ("http_429", "http_5xx", "timeout", "connection")
# Variables a key may be read from: the API-key variables of providers and one's own
# (OPENAI_API_KEY, QRELS_JUDGE_API_KEY), so that a lead cannot have the app send another of
# the server's secrets (the database URL, say) to a URL of their choosing.
KEY_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]*_API_KEY")
FATAL_STATUSES = (401, 403, 404)  # every later request would fail the same way


@dataclass(frozen=True)
class Limits:
    """Seconds to connect and for each read (``timeout``), seconds for the whole request
    (``deadline``), and the largest answer in bytes (``largest``)."""

    timeout: float = 60.0
    deadline: float = 120.0
    largest: int = LARGEST_ANSWER


@dataclass(frozen=True)
class HttpReply:
    """A 2xx answer: its ``status``, its ``body`` (at most ``Limits.largest`` bytes) and the
    seconds the request took."""

    status: int
    body: bytes
    seconds: float

    def json(self) -> object:
        """The body as JSON; ``ValueError`` when it is not."""
        return json.loads(self.body.decode("utf-8"))


class HttpFailure(LocalizedError):
    """A request that brought no usable answer. ``code`` says what happened (``http_429``,
    ``http_5xx``, ``http_4xx``, ``redirect``, ``too_large``, ``timeout``, ``connection``),
    ``status`` the HTTP status where there was one, ``detail`` a short English account with
    no key in it (what is stored), ``retry_after`` the server's ``Retry-After`` in seconds;
    ``str()`` is the account in the user's language."""

    def __init__(
        self,
        code: str,
        key: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        seconds: float = 0.0,
        **params: object,
    ) -> None:
        super().__init__(key, status=status, **params)
        self.code, self.status = code, status
        self.retry_after, self.seconds = retry_after, seconds
        self.detail = self.message("en")[:LONGEST_DETAIL]

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE

    @property
    def fatal(self) -> bool:
        """The key or the address is wrong (refused, or sent elsewhere): no later request
        can succeed."""
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
        raise LocalizedError("api_base_url", url=url) from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.password is not None
        or parts.query
        or parts.fragment
    ):
        raise LocalizedError("api_base_url", url=url)
    return url


def api_key(variable: str | None) -> str | None:
    """The key in environment variable ``variable`` (None: no key); ``LocalizedError`` for
    a name that is not an API-key variable's, or a variable that is not set."""
    if variable is None or not variable.strip():
        return None
    variable = variable.strip()
    if not KEY_VARIABLE.fullmatch(variable):
        raise LocalizedError("api_key_variable_name", variable=variable)
    value = os.environ.get(variable)
    if not value:
        raise LocalizedError("api_key_variable_unset", variable=variable)
    return value


def post_json(
    url: str, body: object, *, api_key: str | None = None, limits: Limits = Limits()
) -> HttpReply:
    """``POST`` ``body`` as JSON to ``url`` (with ``Authorization: Bearer api_key`` when
    given) and return the 2xx answer; raises ``HttpFailure`` for anything else."""
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "identity",
    }
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    started = time.monotonic()
    watch = _Deadline(limits.deadline)
    timeout = min(limits.timeout, limits.deadline)
    try:
        request = _client().build_request(
            "POST",
            url,
            content=data,
            headers=headers,
            timeout=timeout,
            extensions={"trace": watch.trace},
        )
        response = _client().send(request, stream=True, follow_redirects=False)
        try:
            raw = _read(response, limits, started, api_key)
        finally:
            response.close()
    except httpx.TimeoutException:
        raise _timeout(limits, started) from None
    except (httpx.TransportError, OSError) as error:
        if watch.fired:
            raise _timeout(limits, started) from None
        detail = redact(str(error), [api_key])[:LONGEST_DETAIL]
        raise HttpFailure(
            "connection", "http_connection", detail=detail, seconds=_since(started)
        ) from None
    finally:
        watch.cancel()
    if response.status_code >= 400:
        status = response.status_code
        code = "http_429" if status == 429 else "http_5xx" if status >= 500 else "http_4xx"
        text = " ".join(raw[: LONGEST_DETAIL * 4].decode("utf-8", "replace").split())
        raise HttpFailure(
            code,
            "http_status",
            status=status,
            detail=redact(text, [api_key])[:LONGEST_DETAIL],
            retry_after=_retry_after(response.headers.get("Retry-After")),
            seconds=_since(started),
        )
    return HttpReply(response.status_code, raw, _since(started))


def post_json_retrying(
    url: str,
    body: object,
    *,
    api_key: str | None = None,
    limits: Limits = Limits(),
    retries: int = 3,
    first_wait: float = 1.0,
    longest_wait: float = 30.0,
    sleep: Callable[[float], object] = time.sleep,
) -> HttpReply:
    """``post_json``, tried again up to ``retries`` times after a retryable failure (429,
    5xx, time-out, no connection), waiting ``backoff`` between tries; the last failure
    is raised."""
    for attempt in range(1, retries + 2):
        try:
            return post_json(url, body, api_key=api_key, limits=limits)
        except HttpFailure as failure:
            if not failure.retryable or attempt > retries:
                raise
            sleep(backoff(attempt, first_wait, longest_wait, failure.retry_after))
    raise AssertionError("unreachable")  # the loop returns or raises


def backoff(attempt: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before attempt ``attempt + 1``: the server's ``Retry-After`` when it
    sent one (up to ``cap``), else ``base * 2**(attempt - 1)`` up to ``cap``, with up to a
    quarter of it added at random so that workers do not come back together."""
    if retry_after is not None:
        return min(cap, retry_after)
    delay = min(cap, base * 2 ** (attempt - 1))
    return delay + random.uniform(0, delay / 4)


class RateLimit:
    """At most ``per_second`` requests a second across the threads sharing it (None: no
    limit): each ``wait`` takes the next free moment, spaced evenly. The judge's workers
    share one, and so do an encoder's batches."""

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


def _read(response: httpx.Response, limits: Limits, started: float, api_key: str | None) -> bytes:
    """The body of ``response``, read in chunks up to ``limits.largest``; ``HttpFailure``
    for a redirect, a compressed body or a body over the size."""
    if 300 <= response.status_code < 400:
        target = response.headers.get("Location", "")
        raise HttpFailure(
            "redirect",
            "http_redirect",
            status=response.status_code,
            target=redact(" ".join(target.split()), [api_key])[:200] or "?",
            seconds=_since(started),
        )
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise HttpFailure("connection", "http_compressed", encoding=encoding[:40])
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limits.largest:
        raise _too_large(limits, started)
    chunks, size = [], 0
    for chunk in response.iter_raw(64 * 1024):
        size += len(chunk)
        if size > limits.largest:
            raise _too_large(limits, started)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limits: Limits, started: float) -> HttpFailure:
    return HttpFailure(
        "too_large", "http_too_large", largest=limits.largest, seconds=_since(started)
    )


def _timeout(limits: Limits, started: float) -> HttpFailure:
    return HttpFailure(
        "timeout",
        "http_timeout",
        timeout=f"{limits.timeout:g}",
        deadline=f"{limits.deadline:g}",
        seconds=_since(started),
    )


class _Deadline:
    """A timer that shuts down the request's socket at the deadline; ``trace`` (httpx's
    trace extension) learns the socket as the connection is made."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict) -> None:
        if event.endswith((".connect_tcp.complete", ".start_tls.complete")):
            stream = info.get("return_value")
            found = stream.get_extra_info("socket") if stream is not None else None
            with self._lock:
                self._socket = found
                if self.fired:
                    self._shut()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):  # already closed
                self._socket.shutdown(socket.SHUT_RDWR)  # wakes a blocked read

    def cancel(self) -> None:
        self._timer.cancel()


_shared: httpx.Client | None = None
_shared_lock = threading.Lock()


def _client() -> httpx.Client:
    """One client for the process (it is thread-safe), keeping no connection open between
    requests, so that each request makes its own and the deadline's timer learns its
    socket."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = httpx.Client(
                follow_redirects=False, limits=httpx.Limits(max_keepalive_connections=0)
            )
        return _shared


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: the backoff decides


def _since(started: float) -> float:
    return time.monotonic() - started
