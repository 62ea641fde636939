"""The front of ``qrels serve``: one port that browsers talk to, in front of two app
processes, the annotators' and the leads'. A lead's pages compute in Python for up to
seconds, holding their process's interpreter meanwhile; in a process of their own they no
longer hold up the annotators' keys (issue 41, docs/deployment.md).

Each connection goes, whole, to the process its first request's ``qrels_process`` cookie
names (``lead``: the leads'; anything else, or none: the annotators'); the app writes that
cookie beside the session cookie at login and clears it at logout
(``annotator.app.session_cookie``). The cookie only chooses a process: both serve the same
app, and every page checks the account and its role on the server, so a forged cookie
gains nothing but a slower or a faster process.

The bytes are passed on as they come, the request's ``Host``, ``Origin`` and cookies
unchanged (the app's origin and cookie checks see what the browser sent), a websocket's
frames untouched. A plain request is sent on with ``Connection: close``, so that the
browser's next request (after a login, with the new cookie) opens a connection of its own
and is routed afresh; a websocket (``Upgrade``) stays open for as long as the page."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass

logger = logging.getLogger(__name__)

ROUTE_COOKIE = "qrels_process"  # also annotator.app.session_cookie's
LEADS = "lead"  # the cookie's value that sends a connection to the leads' process
HEAD_LIMIT = 64 * 1024  # a request head longer than this is refused (431)
HEAD_WITHIN = 60  # seconds a new connection may take to send its request's head
_CHUNK = 64 * 1024
_REFUSED = b"HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@dataclass(frozen=True)
class Backends:
    """The app processes' addresses on this machine: (host, port) each."""

    annotators: tuple[str, int]
    leads: tuple[str, int]


def _headers(head: bytes) -> list[tuple[str, str]]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    pairs = [line.split(":", 1) for line in lines if ":" in line]
    return [(name.strip().lower(), value.strip()) for name, value in pairs]


def cookie_value(head: bytes, name: str) -> str | None:
    """The value of cookie ``name`` in a request head (every ``Cookie`` line), or None."""
    for header, value in _headers(head):
        if header != "cookie":
            continue
        for pair in value.split(";"):
            key, _, found = pair.strip().partition("=")
            if key == name:
                return found.strip().strip('"')
    return None


def is_upgrade(head: bytes) -> bool:
    """Whether the request asks to become a websocket."""
    return any(name == "upgrade" and value for name, value in _headers(head))


def closing(head: bytes) -> bytes:
    """``head`` (ending in a blank line) with its ``Connection`` and ``Keep-Alive`` lines
    replaced by ``Connection: close``."""
    lines = head.split(b"\r\n")
    kept = [
        line
        for line in lines[1:]
        if line and line.split(b":", 1)[0].strip().lower() not in (b"connection", b"keep-alive")
    ]
    return b"\r\n".join([lines[0], *kept, b"Connection: close", b"", b""])


def route(head: bytes, backends: Backends) -> tuple[str, tuple[str, int]]:
    """Which process serves the connection this request head opened: its name and address."""
    if cookie_value(head, ROUTE_COOKIE) == LEADS:
        return "leads", backends.leads
    return "annotators", backends.annotators


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            if writer.can_write_eof():
                writer.write_eof()


async def _refuse(writer: asyncio.StreamWriter, status: int, reason: bytes) -> None:
    with contextlib.suppress(Exception):
        writer.write(_REFUSED % (status, reason))
        await writer.drain()


async def relay(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    backends: Backends,
) -> None:
    """Serve one browser connection: read its first request's head, open a connection to
    the process it routes to, and pass bytes both ways until either side closes."""
    upstream_writer = None
    try:
        try:
            head = await asyncio.wait_for(client_reader.readuntil(b"\r\n\r\n"), HEAD_WITHIN)
        except asyncio.LimitOverrunError:
            await _refuse(client_writer, 431, b"Request Header Fields Too Large")
            return
        except (asyncio.IncompleteReadError, ConnectionError, TimeoutError):
            return
        name, address = route(head, backends)
        upgrade = is_upgrade(head)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*address)
        except OSError:
            await _refuse(client_writer, 502, b"Bad Gateway")
            return
        if upgrade:
            logger.info("a page's websocket goes to the %s' process (port %d)", name, address[1])
        upstream_writer.write(head if upgrade else closing(head))
        sending = asyncio.create_task(_pipe(client_reader, upstream_writer))
        # The process's end of the connection decides: when it closes, so does the browser's.
        await _pipe(upstream_reader, client_writer)
        sending.cancel()
    finally:
        for writer in (upstream_writer, client_writer):
            if writer is not None:
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()


async def serve_front(listening: socket.socket, backends: Backends, stopped: asyncio.Event) -> None:
    """Route the connections ``listening`` accepts to ``backends`` until ``stopped``."""

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await relay(reader, writer, backends)

    server = await asyncio.start_server(connected, sock=listening, limit=HEAD_LIMIT)
    async with server:
        await stopped.wait()


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (held while the processes start)."""
    family, *_, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    made = socket.create_server(address, family=family, backlog=512)
    made.setblocking(False)
    return made


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """``count`` ports free on ``host`` just now (the app processes' own)."""
    held = []
    try:
        for _ in range(count):
            made = socket.socket()
            made.bind((host, 0))
            held.append(made)
        return [made.getsockname()[1] for made in held]
    finally:
        for made in held:
            made.close()


def run_until_signalled(
    listening: socket.socket, backends: Backends, watch: Callable[[], bool], signals: Iterable
) -> None:
    """Run the front until one of ``signals`` arrives or ``watch()`` says to stop (an app
    process ended)."""

    async def main() -> None:
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signal_number in signals:
            loop.add_signal_handler(signal_number, stopped.set)

        async def watching() -> None:
            while not stopped.is_set():
                if watch():
                    stopped.set()
                await asyncio.sleep(0.5)

        watcher = asyncio.create_task(watching())
        await serve_front(listening, backends, stopped)
        watcher.cancel()

    asyncio.run(main())
