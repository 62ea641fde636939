"""Issue 41: ``qrels serve``'s front sends a connection whose first request carries
``qrels_process=lead`` to the leads' process and every other to the annotators', passing
the request on as the browser sent it (``Host``, ``Origin``, cookies), a plain request with
``Connection: close`` (the next one is routed afresh), a websocket's bytes both ways."""

from __future__ import annotations

import asyncio
import socket

from annotator.cli import front

WEBSOCKET = (
    b"GET /_stcore/stream HTTP/1.1\r\nHost: qrels.example.org:8501\r\n"
    b"Origin: http://qrels.example.org:8501\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Cookie: qrels_session=abc; qrels_process=lead\r\n\r\n"
)


def test_the_route_cookie_alone_chooses_the_process():
    backends = front.Backends(("127.0.0.1", 1), ("127.0.0.1", 2))
    head = b"GET / HTTP/1.1\r\nHost: h\r\nCookie: a=1; qrels_process=lead; b=2\r\n\r\n"
    assert front.route(head, backends) == ("leads", ("127.0.0.1", 2))
    for cookies in ("", "Cookie: qrels_process=annotators\r\n", "Cookie: xqrels_process=lead\r\n"):
        head = f"GET / HTTP/1.1\r\nHost: h\r\n{cookies}\r\n".encode()
        assert front.route(head, backends) == ("annotators", ("127.0.0.1", 1))
    assert front.is_upgrade(WEBSOCKET)
    assert not front.is_upgrade(b"GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n")


def test_a_plain_request_is_passed_on_closing_its_connection():
    head = b"GET /x HTTP/1.1\r\nHost: h:1\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\n\r\n"
    assert front.closing(head) == b"GET /x HTTP/1.1\r\nHost: h:1\r\nConnection: close\r\n\r\n"


async def _backend(name: bytes) -> tuple[asyncio.Server, int]:
    """A stand-in app process: answers a plain request with its name and the head it
    received; after an upgrade, echoes every byte with its name before it."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if b"Upgrade: websocket" in head:
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
            while data := await reader.read(100):
                writer.write(name + b":" + data)
                await writer.drain()
        else:
            body = name + b"\n" + head
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _through_front(requests: list[bytes], backends: front.Backends) -> list[bytes]:
    listening = front.listening_socket("127.0.0.1", 0)
    port = listening.getsockname()[1]
    stopped = asyncio.Event()
    serving = asyncio.create_task(front.serve_front(listening, backends, stopped))
    answers = []
    for request in requests:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        if b"Upgrade" in request:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"ping")
            answers.append(await reader.readexactly(len(b"leads:ping")))
        else:
            answers.append(await asyncio.wait_for(reader.read(), timeout=10))
        writer.close()
    stopped.set()
    await serving
    return answers


def test_connections_reach_their_process_with_the_browsers_headers():
    async def scenario() -> list[bytes]:
        annotators, a_port = await _backend(b"annotators")
        leads, l_port = await _backend(b"leads")
        backends = front.Backends(("127.0.0.1", a_port), ("127.0.0.1", l_port))
        async with annotators, leads:
            return await _through_front(
                [
                    b"GET /label HTTP/1.1\r\nHost: h:8501\r\nCookie: qrels_session=s\r\n\r\n",
                    b"GET /team HTTP/1.1\r\nHost: h:8501\r\nOrigin: http://h:8501\r\n"
                    b"Cookie: qrels_session=s; qrels_process=lead\r\n\r\n",
                    WEBSOCKET,
                ],
                backends,
            )

    plain, lead, websocket = asyncio.run(scenario())
    assert b"\r\n\r\nannotators\nGET /label HTTP/1.1\r\nHost: h:8501\r\n" in plain
    assert b"Cookie: qrels_session=s\r\nConnection: close\r\n\r\n" in plain
    assert b"\r\n\r\nleads\nGET /team HTTP/1.1\r\nHost: h:8501\r\nOrigin: http://h:8501\r\n" in lead
    assert websocket == b"leads:ping"  # the upgrade kept, the bytes passed both ways


def test_a_process_that_does_not_answer_gets_a_bad_gateway():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    backends = front.Backends(("127.0.0.1", port), ("127.0.0.1", port))
    (answer,) = asyncio.run(_through_front([b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"], backends))
    assert answer.startswith(b"HTTP/1.1 502 ")
