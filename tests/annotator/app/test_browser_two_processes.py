"""Issue 41 in headless Chromium, through ``qrels serve`` as the README starts it: a lead's
pages run in the leads' process and an annotator's keys in the annotators', so either one
works while the other process is stopped (SIGSTOP); the lead's websocket reaches the
leads' process after one reload at login and the annotators' again after logout; reloads
through the front keep both logged in; a forged route cookie is put right."""

from __future__ import annotations

import functools
import os
import re
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.browser_support import (
    CORPUS,
    LAPTOP,
    RUN,
    log_in,
    passage,
    press_until_saved,
    serving,
    settle,
)
from tests.conftest import run_qrels, write
from tests.storage.test_imports import jsonl

pytestmark = pytest.mark.browser
ROUTE = "qrels_process"
STREAM = re.compile(r"websocket goes to the (annotators|leads)' process \(port (\d+)\)")


@pytest.fixture
def two_processes(db_url, tmp_path, monkeypatch):
    """The browser tests' tiny pool on each backend, two annotators and a lead, served by
    ``qrels serve``; yields its address, the database and the log of what it said."""
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    qrels = functools.partial(run_qrels, db_url)
    qrels("init")
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c")
    queries = write(tmp_path, "q.jsonl", jsonl([{"_id": "q1", "text": "brake maintenance"}]))
    qrels("import", "queries", queries, "--query-set", "q")
    qrels("import", "run", write(tmp_path, "r.trec", RUN), "--system", "r")
    qrels("pool", "build", "p", "--systems", "bm25,run:r", "--depth", "4")
    password = write(tmp_path, "password.txt", "secret-password\n")
    for name, role in (("ann1", "annotator"), ("ann2", "annotator"), ("boss", "lead")):
        qrels("user", "add", name, "--role", role, "--password-file", password)
    with serving(db_url, tmp_path) as address:
        port = address.rsplit(":", 1)[1]
        yield address, db_url, tmp_path / f"serve-{port}.log"


def streams(log: Path) -> list[tuple[str, int]]:
    """Each page's websocket so far: the process it went to and that process's port."""
    return [(name, int(port)) for name, port in STREAM.findall(log.read_text())]


def ports(log: Path) -> dict[str, int]:
    """The annotators' and the leads' processes' ports, as ``qrels serve`` said them."""
    found = re.search(r"\(127\.0\.0\.1:(\d+) and 127\.0\.0\.1:(\d+)\)", log.read_text())
    assert found, log.read_text()
    return {"annotators": int(found[1]), "leads": int(found[2])}


def pid_on(port: int) -> int:
    """The app process serving ``port`` (its Streamlit command line names it)."""
    for entry in Path("/proc").iterdir():
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--server.port" in arguments and arguments[arguments.index(b"--server.port") + 1] == (
            str(port).encode()
        ):
            return int(entry.name)
    raise AssertionError(f"no app process on port {port}")


@contextmanager
def stopped(pid: int):
    """The process ``pid`` stopped (it runs nothing, answers nothing) within the block."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def route_cookie(page) -> str | None:
    return next((c["value"] for c in page.context.cookies() if c["name"] == ROUTE), None)


def test_leads_and_annotators_work_in_processes_of_their_own(two_processes, browser):
    address, url, log = two_processes
    own = ports(log)
    leads, annotators = pid_on(own["leads"]), pid_on(own["annotators"])
    # the same priority: a lower one starved the lead's pages (annotator/cli/serving.py)
    assert os.getpriority(os.PRIO_PROCESS, leads) == os.getpriority(os.PRIO_PROCESS, annotators)

    annotator = browser.new_context(viewport=LAPTOP).new_page()
    log_in(annotator, address, "ann1")
    assert route_cookie(annotator) is None
    assert set(streams(log)) == {("annotators", own["annotators"])}

    lead = browser.new_context(viewport=LAPTOP).new_page()
    log_in(lead, address, "boss")  # the login form on the annotators' process, then a reload
    assert route_cookie(lead) == "lead"
    assert streams(log)[-1] == ("leads", own["leads"])

    # While the leads' process runs nothing, the annotator's keys are served...
    with stopped(leads):
        press_until_saved(annotator, url, "ann1", "2")
    # ...and the lead's pages while the annotators' process runs nothing.
    with stopped(annotators):
        lead.locator('[data-testid="stSidebarNav"] a[href$="/pools"]').click()
        lead.get_by_text("Pool", exact=False).first.wait_for(timeout=30_000)
        lead.locator('[data-testid="stSidebarNav"] a[href$="/agreement"]').click()
        lead.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(
            timeout=30_000
        )

    # Reloads through the front: each stays logged in, on their own process.
    shown = passage(annotator)
    annotator.reload()
    annotator.locator(".st-key-passage").wait_for(timeout=30_000)
    settle(annotator)
    assert passage(annotator) == shown and streams(log)[-1][0] == "annotators"
    lead.reload()
    lead.locator('[data-testid="stSidebarNav"] a[href$="/accounts"]').wait_for(timeout=30_000)
    assert lead.get_by_label("User name").count() == 0 and streams(log)[-1][0] == "leads"

    # Logging out clears the route: the login form is the annotators' process's again.
    lead.get_by_role("button", name="Log out").click()
    lead.get_by_role("button", name="Log in").wait_for(timeout=30_000)
    assert route_cookie(lead) is None and streams(log)[-1][0] == "annotators"

    # A route cookie of one's own making gains nothing: it is cleared, the page reloads
    # into the annotators' process and shows an annotator's pages only.
    annotator.context.add_cookies([{"name": ROUTE, "value": "lead", "url": address}])
    annotator.reload()
    annotator.locator(".st-key-passage").wait_for(timeout=30_000)
    assert route_cookie(annotator) is None and streams(log)[-1][0] == "annotators"
    assert annotator.locator('[data-testid="stSidebarNav"] a[href$="/accounts"]').count() == 0
