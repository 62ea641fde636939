"""Annotators and a lead without a browser, for ``capacity.py --socket`` and ``--lead-by
socket``: each speaks Streamlit's own websocket protocol to ``qrels serve``, as a browser on
another computer would. Annotators press the grade buttons of the labeling page by their
widget ids; the lead opens the lead pages in turn, as a click in the sidebar does.

A browser spends 150-250 ms of CPU drawing each next passage (docs/deployment.md); on a
machine of two cores, a few of them take the cores the server needs, and the keys' latency
then measures the machine rather than the server. Here a key costs the client a protobuf
message: the server is what is measured, up to the number of annotators where its own
process is full. What it does not include is the browser's drawing of the passage: a key
is timed from the message sent to the end of the run it started (Streamlit's
``script_finished``), and counted only if that run sent a passage other than the last.

Each annotator logs in as the app's login form does (``auth.start_session``: a login
session in the database, its id in the ``qrels_session`` cookie), opens the page as a
browser does (a run of the app, which draws the labeling page), then presses a grade at
``capacity.PACE`` the way a click of the button does: a rerun of the labeling panel's
fragment with that button's trigger.

The lead's browser draws charts: 0.4-0.6 s of CPU a view in headless Chromium, on a
machine of two cores as much as the server's own work for that view. On the lead's own
computer it costs the server nothing; here (``browse``) a view is timed from the page asked
for to the end of its run, and the server does all its work for it: the page's script, its
figures and its charts' data, sent.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from annotator import auth
from annotator.app.session_cookie import LEADS, ROUTE_COOKIE
from storage.accounts import get_user
from storage.db import make_engine, session_scope

GRADES = "0123"
WAIT = 60.0  # seconds without a run's end after which a key counts as lost


class Page:
    """What one person's page holds: the script hash of the page on the screen and of
    every page by its address (the lead's pages); on the labeling page, the labeling
    panel's fragment, its grade buttons' widget ids and the passage on the screen."""

    def __init__(self) -> None:
        self.script_hash = ""
        self.pages: dict[str, str] = {}
        self.fragment = ""
        self.buttons: dict[str, str] = {}
        self.texts: list[str] = []

    def read(self, message: ForwardMsg) -> bool:
        """Take in one message from the server; whether it ends a run."""
        kind = message.WhichOneof("type")
        if kind == "navigation":
            self.script_hash = message.navigation.page_script_hash
            for page in message.navigation.app_pages:  # the first page's address is ""
                self.pages["" if page.is_default else page.url_pathname] = page.page_script_hash
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            element = message.delta.new_element
            if element.WhichOneof("type") == "button":
                key = element.button.id.rsplit("-", 1)[-1]  # grade_2_<assignment>_<revision>
                if key.startswith("grade_"):
                    self.buttons[key.split("_")[1]] = element.button.id
                    self.fragment = message.delta.fragment_id
            elif element.WhichOneof("type") == "text":
                self.texts.append(element.text.body)
        return kind == "script_finished"

    def passage(self) -> str:
        """The passage drawn last: the last plain text of a run that drew the buttons
        (the query, the heading, then the passage)."""
        return self.texts[-1] if self.texts else ""


def log_in(url: str, names: list[str]) -> list[str]:
    """A login session for each of ``names``, as the login form opens one: their ids."""
    engine = make_engine(url)
    try:
        with session_scope(engine) as session:
            ids = [get_user(name, session=session).id for name in names]
        return [auth.start_session(engine, auth.account(engine, user_id)) for user_id in ids]
    finally:
        engine.dispose()


async def _run(socket, page: Page, back: BackMsg) -> None:
    page.texts.clear()
    page.buttons.clear()
    await socket.send(back.SerializeToString())
    while True:
        message = ForwardMsg()
        message.ParseFromString(await asyncio.wait_for(socket.recv(), WAIT))
        if page.read(message):
            return


def _connect(address: str, session: str, lead: bool = False):
    """A websocket to the app as a browser logged in with ``session`` opens it (a lead's
    with the cookie that routes it to the leads' process)."""
    port = address.rsplit(":", 1)[-1]
    cookie = f"qrels_session={session}" + (f"; {ROUTE_COOKIE}={LEADS}" if lead else "")
    headers = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"}
    stream = address.replace("http://", "ws://") + "/_stcore/stream"
    return websockets.connect(
        stream, subprotocols=["streamlit"], additional_headers=headers, max_size=None
    )


async def _open(socket, page: Page) -> None:
    """The first run, as a browser's opening of the app starts it."""
    opening = BackMsg()
    opening.rerun_script.query_string = ""
    await _run(socket, page, opening)


async def _annotator(address: str, session: str, seed: int, stop: threading.Event, out: dict):
    rng, page = random.Random(seed), Page()
    async with _connect(address, session) as socket:
        await _open(socket, page)
        if not page.buttons:
            raise RuntimeError(f"no grade buttons on the page ({address}): not logged in?")
        out["ready"] = True
        await asyncio.sleep(2 + rng.uniform(0, 1))
        while not stop.is_set():
            shown, key = page.passage(), BackMsg()
            key.rerun_script.page_script_hash = page.script_hash
            key.rerun_script.fragment_id = page.fragment
            state = key.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = page.buttons[rng.choice(GRADES)], True
            began = time.perf_counter()
            try:
                await _run(socket, page, key)
            except TimeoutError:  # the page is then unknown: this annotator stops
                out["lost"] += 1
                return
            if not page.buttons:  # nothing left to judge
                return
            if page.passage() != shown:
                out["keys"].append((time.time(), (time.perf_counter() - began) * 1000))
            await asyncio.sleep(out["pace"] * rng.uniform(0.75, 1.25))


def annotate(
    address: str,
    url: str,
    names: list[str],
    started: threading.Event,
    stop: threading.Event,
    pace: float,
) -> tuple[list[tuple[float, float]], int]:
    """``names`` pressing keys at ``pace`` until ``stop`` (``capacity.annotate``'s
    answer: every key's epoch seconds and milliseconds, and the keys lost)."""
    sessions = log_in(url, names)
    states = [{"keys": [], "lost": 0, "pace": pace, "ready": False} for _ in names]

    async def everyone() -> None:
        tasks = [
            asyncio.create_task(_annotator(address, s, i, stop, states[i]))
            for i, s in enumerate(sessions)
        ]
        while not all(state["ready"] for state in states):
            if any(t.done() and t.exception() for t in tasks):
                break
            await asyncio.sleep(0.1)
        started.set()
        await asyncio.gather(*tasks)

    asyncio.run(everyone())
    keys = [key for state in states for key in state["keys"]]
    return keys, sum(state["lost"] for state in states)


def browse(
    address: str,
    url: str,
    name: str,
    pages: list[str],
    started: threading.Event,
    stop: threading.Event,
    views_a_minute: float,
) -> list[float]:
    """The lead ``name`` opening ``pages`` (addresses: "" the first page) in turn at
    ``views_a_minute`` from ``started`` until ``stop``, as ``capacity.browse`` does in
    Chromium: each view's seconds until its run ended. Raises if a view ran another page
    than the one asked for (a lead not logged in, or not let in, sees the login)."""
    (session,) = log_in(url, [name])
    views: list[float] = []

    async def going() -> None:
        page = Page()
        async with _connect(address, session, lead=True) as socket:
            await _open(socket, page)
            if not set(pages) <= set(page.pages):
                raise RuntimeError(f"{name} is not shown the lead pages: {sorted(page.pages)}")
            await asyncio.to_thread(started.wait)
            turn, every = 0, 60 / views_a_minute
            while not stop.is_set():
                began, view, asked = time.perf_counter(), BackMsg(), pages[turn % len(pages)]
                view.rerun_script.page_script_hash = page.pages[asked]
                view.rerun_script.query_string = ""
                await _run(socket, page, view)
                if page.script_hash != page.pages[asked]:
                    raise RuntimeError(f"{name} asked for {asked!r}, not shown")
                views.append(time.perf_counter() - began)
                turn += 1
                await asyncio.sleep(max(0.0, every - (time.perf_counter() - began)))

    asyncio.run(going())
    return views
