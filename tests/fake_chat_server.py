"""A local OpenAI-compatible chat server for the model judge's tests: real HTTP on a free
port of 127.0.0.1, answering ``POST /v1/chat/completions`` with scripted responses, and
keeping every request it received (so that a test can read every prompt that was sent).
It also answers ``POST /v1/embeddings`` (``embedding``: a vector of the words a text holds,
so that texts sharing words are near; a test scripts other answers), for the ``openai:``
vector encoder.

No language model runs here. ``grading`` stands in for one: it grades by the words the
query and the passage share and quotes the passage's first words. A test scripts other
answers per passage (``Script``): invalid JSON, grades off the scale, made-up quotes, HTTP
errors and redirects, answers slower than the client waits, answers too large to hold and
answers dripped a byte at a time (``Scripted``).

Also a process, for trying the CLI by hand::

    python -m tests.fake_chat_server --port 8765 [--invalid-every 7] [--error-every 5]
                                     [--delay 0.5]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SERVED = "fake-judge-2025-06-01"  # the model name the server reports
USAGE = (120, 30)  # prompt and completion tokens of each answer
_PASSAGE = re.compile(r"<passage>\n(.*)\n</passage>", re.DOTALL)
_QUERY = re.compile(r"<query>\n(.*?)\n</query>", re.DOTALL)
_WORDS = re.compile(r"\w+")


@dataclass
class Scripted:
    """One response: HTTP ``status``, a JSON ``body`` (or raw text), after ``delay``
    seconds, with extra ``headers``. For the client's limits: the body written ``copies``
    times over (a large answer without holding it whole), with no ``Content-Length`` when
    ``announce_length`` is false, and ``drip`` seconds between its bytes (a slow server),
    the status line and headers too when ``drip_head``."""

    status: int = 200
    body: dict | str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    copies: int = 1
    announce_length: bool = True
    drip: float = 0.0
    drip_head: bool = False


def completion(
    content: str | None,
    *,
    model: str = SERVED,
    usage: tuple[int, int] = USAGE,
    finish: str = "stop",
    probability: float | None = 0.9,
) -> Scripted:
    """A chat completion answering ``content``; with ``probability``, logprobs in which
    the token holding the grade's digit has that probability (the others 1)."""
    choice: dict = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": finish,
    }
    if probability is not None and content:
        choice["logprobs"] = {"content": _tokens(content, probability)}
    return Scripted(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": model,
            "choices": [choice],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        }
    )


def _tokens(content: str, probability: float) -> list[dict]:
    """``content`` a character a token; the grade's digit at ``probability``."""
    found = re.search(r'"grade"\s*:\s*([0-3])', content)
    at = found.start(1) if found else -1
    return [
        {"token": ch, "logprob": math.log(probability) if i == at else 0.0, "top_logprobs": []}
        for i, ch in enumerate(content)
    ]


def answer(grade, evidence: str, reason: str = "scripted", **options) -> Scripted:
    """A completion whose content is the JSON answer ``grade``, ``reason``, ``evidence``."""
    content = json.dumps({"grade": grade, "reason": reason, "evidence": evidence})
    return completion(content, **options)


def passage_of(request: dict) -> str:
    """The passage of a request's user message (between the prompt's delimiters)."""
    found = _PASSAGE.search(request["messages"][-1]["content"])
    return found.group(1) if found else ""


def query_of(request: dict) -> str:
    found = _QUERY.search(request["messages"][-1]["content"])
    return found.group(1) if found else ""


def grading(request: dict) -> Scripted:
    """The stand-in model: grade = words the query and passage share (at most 3), the
    evidence the passage's first six words (or characters, in Chinese), probability lower
    for the middle grades."""
    query, passage = query_of(request), passage_of(request)
    shared = {w.lower() for w in _WORDS.findall(query)} & {
        w.lower() for w in _WORDS.findall(passage)
    }
    grade = min(3, len(shared))
    words = passage.split()
    evidence = " ".join(words[:6]) if len(words) > 1 else passage[:6]
    probability = {0: 0.95, 1: 0.6, 2: 0.55, 3: 0.9}[grade]
    return answer(grade, evidence, f"{len(shared)} words shared", probability=probability)


class Script:
    """Responses per passage: the first text of ``by_passage`` the passage holds gives the
    next response of its list (the last one repeats); other passages get ``otherwise``."""

    def __init__(
        self,
        by_passage: dict[str, list[Scripted | Callable[[dict], Scripted]]],
        otherwise: Callable[[dict], Scripted] = grading,
    ) -> None:
        self.by_passage = {k: list(v) for k, v in by_passage.items()}
        self.otherwise = otherwise
        self._lock = threading.Lock()

    def __call__(self, request: dict) -> Scripted:
        passage = passage_of(request)
        with self._lock:
            for text, responses in self.by_passage.items():
                if text in passage:
                    response = responses.pop(0) if len(responses) > 1 else responses[0]
                    break
            else:
                return self.otherwise(request)
        return response(request) if callable(response) else response


EMBEDDING_SIZE = 64


def vector_of(text: str) -> list[float]:
    """A text as counts of its words (Chinese: its characters) hashed into
    ``EMBEDDING_SIZE`` buckets: texts that share words point the same way."""
    vector = [0.0] * EMBEDDING_SIZE
    for word in _WORDS.findall(text.lower()):
        for part in [word] if word.isascii() else list(word):
            vector[int.from_bytes(part.encode("utf-8")[:8].ljust(8, b"\0"), "big") % 61] += 1.0
    vector[EMBEDDING_SIZE - 1] = 0.01  # no text is the zero vector
    return vector


def embedding(request: dict) -> Scripted:
    """The stand-in embedding model: ``vector_of`` each input, in order."""
    texts = request.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    return Scripted(
        body={
            "object": "list",
            "model": request.get("model"),
            "data": [
                {"object": "embedding", "index": i, "embedding": vector_of(text)}
                for i, text in enumerate(texts)
            ],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }
    )


class FakeChat:
    """The server, in a thread of the test process: ``with FakeChat(behave) as server``;
    ``server.url`` is its base URL (up to ``/v1``) and ``server.requests`` every request
    received (``method``, ``path``, ``headers``, ``body``), in order, whatever its method
    and path (so that a test can see what reached a server a redirect pointed to)."""

    def __init__(
        self,
        behave: Callable[[dict], Scripted] = grading,
        port: int = 0,
        embeddings: Callable[[dict], Scripted] = embedding,
    ) -> None:
        self.behave, self.embeddings = behave, embeddings
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (the http.server name)
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                self._keep(body)
                if body is not None and self.path == "/v1/embeddings":
                    scripted = server.embeddings(body)
                elif self.path != "/v1/chat/completions" or body is None:
                    scripted = Scripted(404, {"error": {"message": "not found"}})
                else:
                    scripted = server.behave(body)
                self._send(scripted)

            def do_GET(self) -> None:  # noqa: N802  (a redirected POST may come back a GET)
                self._keep(None)
                self._send(Scripted(404, {"error": {"message": "not found"}}))

            def _keep(self, body: dict | None) -> None:
                request = {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": body,
                }
                with server._lock:
                    server.requests.append(request)

            def _send(self, scripted: Scripted) -> None:
                time.sleep(scripted.delay)
                payload = (
                    scripted.body
                    if isinstance(scripted.body, str)
                    else json.dumps(scripted.body or {}, ensure_ascii=False)
                ).encode("utf-8")
                try:
                    self.send_response(scripted.status)
                    self.send_header("Content-Type", "application/json")
                    if scripted.announce_length:
                        self.send_header("Content-Length", str(len(payload) * scripted.copies))
                    else:
                        self.send_header("Connection", "close")  # the end is the close
                        self.close_connection = True
                    for name, value in scripted.headers.items():
                        self.send_header(name, value)
                    if scripted.drip_head:  # what end_headers would write, a byte at a time
                        head, self._headers_buffer = b"".join(self._headers_buffer), []
                        self._write(head + b"\r\n", scripted.drip)
                    else:
                        self.end_headers()
                    for _ in range(scripted.copies):
                        self._write(payload, scripted.drip)
                except OSError:
                    pass  # the client gave up waiting (a time-out test)

            def _write(self, payload: bytes, drip: float) -> None:
                if not drip:
                    self.wfile.write(payload)
                    return
                for byte in payload:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(drip)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeChat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def bodies(self) -> list[dict]:
        with self._lock:
            return [r["body"] for r in self.requests if r["body"] is not None]


def _misbehaving(
    invalid_every: int, error_every: int, delay: float = 0.0
) -> Callable[[dict], Scripted]:
    """``grading``, with every ``invalid_every``-th request answered with prose and every
    ``error_every``-th with HTTP 500 (0: never), each after ``delay`` seconds."""
    count = {"n": 0}
    lock = threading.Lock()

    def behave(request: dict) -> Scripted:
        with lock:
            count["n"] += 1
            n = count["n"]
        if error_every and n % error_every == 0:
            scripted = Scripted(500, {"error": {"message": "overloaded"}})
        elif invalid_every and n % invalid_every == 0:
            scripted = completion("I think this passage is quite relevant.")
        else:
            scripted = grading(request)
        scripted.delay = delay
        return scripted

    return behave


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--invalid-every", type=int, default=0)
    parser.add_argument("--error-every", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    options = parser.parse_args()
    behave = _misbehaving(options.invalid_every, options.error_every, options.delay)
    server = FakeChat(behave, options.port)
    print(f"fake chat server at {server.url}", flush=True)
    try:
        server.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server.server_close()


if __name__ == "__main__":
    main()
