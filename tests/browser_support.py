"""The harness of the browser tests: headless Chromium (Debian's package) driven by
Playwright, against ``qrels serve`` on a database of its own. Registered as a pytest plugin
by tests/conftest.py, so every test module has its fixtures (``database``, ``server``,
``browser``); the helpers are imported from here."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from sqlmodel import select

from storage.db import make_engine, session_scope
from storage.models import Chunk, Judgment, User
from tests.conftest import run_qrels, write
from tests.storage.test_imports import jsonl

XSS_SCRIPT = "Danger <script>window.__xss = 1</script> text about brakes"
XSS_IMG = 'Image <img src=x onerror="window.__xss = 2"> of brake pads'
CORPUS = [
    {"_id": "pads", "title": "Brakes", "text": "Brake pads must be replaced below 1.5 mm."},
    {"_id": "bleed", "title": "Brakes", "text": "Hydraulic brakes need bleeding once a year."},
    {"_id": "xss1", "title": "Odd", "text": XSS_SCRIPT},
    {"_id": "xss2", "title": "Odd", "text": XSS_IMG},
    {"_id": "tea", "title": "Tea", "text": "Green tea stays fresh when kept cold and sealed."},
]
RUN = "q1 Q0 pads 1 4 r\nq1 Q0 bleed 2 3 r\nq1 Q0 xss1 3 2 r\nq1 Q0 xss2 4 1 r\n"


def chromium() -> str:
    path = os.environ.get("QRELS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        message = f"headless Chromium not found at {path} (Debian package: chromium)"
        if os.environ.get("CI") or os.environ.get("QRELS_REQUIRE_BROWSER"):
            pytest.fail(message + "; it is required in CI")
        pytest.skip(message)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(
    url: str, tmp_path: Path, arguments: Callable[[int], list[str]] | None = None
) -> Iterator[str]:
    """``qrels serve`` on ``url`` in a process of its own; yields its address. What it
    prints goes to ``tmp_path/serve-PORT.log``.
    ``arguments(port)``: what follows ``qrels`` instead of ``--db URL serve --port PORT``,
    the URL then coming from ``$QRELS_DATABASE_URL`` (as a service's environment gives it)."""
    port = free_port()
    command = arguments(port) if arguments else ["--db", url, "serve", "--port", str(port)]
    # What it says (the front's line for each page's websocket) in a file of its own.
    log = open(tmp_path / f"serve-{port}.log", "w")  # noqa: SIM115  (closed below)
    process = subprocess.Popen(
        [sys.executable, "-m", "annotator.cli", *command],
        stdout=log,
        stderr=log,
        start_new_session=True,  # its own process group: the app processes it starts too
        env={
            **os.environ,
            "QRELS_DATABASE_URL": url,
            "QRELS_RELEASE_DIR": str(tmp_path / "releases"),
        },
    )
    address = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(address + "/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the app did not start")
        yield address
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:  # a loaded machine (the suite runs on every core)
            os.killpg(process.pid, signal.SIGKILL)  # the front and both app processes
            process.wait(timeout=20)
        log.close()
        # Shown with a failing test's captured output: what the server said meanwhile.
        said = (tmp_path / f"serve-{port}.log").read_text(encoding="utf-8", errors="replace")
        print("".join(said.splitlines(keepends=True)[-40:]), file=sys.stderr)
    # Stopping `qrels serve` stopped the app: nothing answers on its port any more.
    with pytest.raises(OSError):
        urllib.request.urlopen(address + "/_stcore/health", timeout=2)


@pytest.fixture
def database(tmp_path, monkeypatch):
    """An empty database and a function that adds accounts to it, all with one password."""
    url = f"sqlite:///{tmp_path / 'qrels.db'}"
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    password = write(tmp_path, "password.txt", "secret-password\n")
    qrels = functools.partial(run_qrels, url)
    qrels("init")

    def add(name: str, role: str) -> None:
        qrels("user", "add", name, "--role", role, "--password-file", password)

    return url, add


@pytest.fixture
def server(tmp_path, database):
    """A database with a tiny pool (two passages carry markup), two annotators, and the
    app serving it."""
    url, add_user = database
    qrels = functools.partial(run_qrels, url)
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c")
    qrels(
        "import",
        "queries",
        write(tmp_path, "q.jsonl", jsonl([{"_id": "q1", "text": "brake maintenance"}])),
        "--query-set",
        "q",
    )
    qrels("import", "run", write(tmp_path, "r.trec", RUN), "--system", "r")
    qrels("pool", "build", "p", "--systems", "bm25,run:r", "--depth", "4")
    for name in ("ann1", "ann2"):
        add_user(name, "annotator")
    add_user("boss", "lead")
    with serving(url, tmp_path) as address:
        yield address, url


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium(),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


def log_in(page, address: str, name: str) -> None:
    page.goto(address)
    page.get_by_label("User name").fill(name)
    page.get_by_role("textbox", name="Password").fill("secret-password")
    page.get_by_role("button", name="Log in").click()
    # An annotator lands on the labeling page, a lead on Team progress.
    page.locator(".st-key-passage").or_(page.get_by_text("Nothing left for you")).or_(
        page.locator(".st-key-team_per")
    ).wait_for(timeout=30_000)
    if page.locator(".st-key-passage").count():
        settle(page)
    page.mouse.click(900, 20)  # focus on the page, not in a field


# A common laptop's screen: pages are checked at this size (issue 40).
LAPTOP = {"width": 1366, "height": 768}


def until(check, seconds: float = 20) -> None:
    """Wait until ``check()`` is true (the database shows what a page did), or fail."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the database never showed it"
        time.sleep(0.2)


def click_until(locator, check: Callable[[], bool], tries: int = 3, seconds: float = 8) -> None:
    """Click ``locator`` until ``check()`` is true, as a person clicks again when nothing
    happened: on a loaded machine (the suite on every core) a click during a redraw was
    once never answered (CI, test_browser's "Add to this query")."""
    for _ in range(tries):
        locator.click()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.2)
    raise AssertionError(f"{tries} clicks on {locator} did nothing the check could see")


def lead_on(page, address: str, lang: str, path: str) -> None:
    """Log in as the lead ``boss``, switch to ``lang`` (``en`` or ``zh``) and open the lead
    page at ``path`` (``accounts``, ``data``, ``pools``) from the sidebar."""
    log_in(page, address, "boss")
    if lang == "zh":
        page.get_by_text("中文", exact=True).click()
        page.get_by_text("当前用户", exact=False).first.wait_for(timeout=30_000)
    page.locator(f'[data-testid="stSidebarNav"] a[href$="/{path}"]').click()


def choose(page, label: str, option: str) -> None:
    """Choose ``option`` in the select box labelled ``label``; a box that a rerun of the
    page redraws while it opens is opened again."""
    box = page.get_by_role("combobox", name=label, exact=True)
    for _ in range(5):
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=5_000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
        else:
            return
    raise AssertionError(f"{option!r} is not offered in {label!r}")


def passage(page) -> str:
    return page.locator(".st-key-passage").inner_text()


# The page's script at work: its run state as the app root says it (at once, where the
# status widget's running icon may come later), or a redraw's stale elements still shown.
RUNNING = ", ".join(
    [
        '[data-testid="stApp"][data-test-script-state="running"]',
        '[data-testid="stApp"][data-test-script-state="rerunRequested"]',
        '[data-testid="stStatusWidgetRunningIcon"]',
        '[data-stale="true"]',
    ]
)


def idle(page, quiet: float = 0.6, seconds: float = 60) -> None:
    """Wait until the page's script has not been running for ``quiet`` seconds (the app
    root's run state, the running icon, stale elements): a key pressed on a redraw still
    under way is refused, and a person acts once the page has settled; the test does
    too."""
    deadline, since = time.monotonic() + seconds, time.monotonic()
    while time.monotonic() - since < quiet:
        assert time.monotonic() < deadline, "the page kept running"
        if page.locator(RUNNING).count():
            since = time.monotonic()
        time.sleep(0.1)


def settle(page) -> None:
    """Wait until the item's buttons are drawn and the page's run is over: a key pressed
    while the page is still being redrawn finds no button or a stale one (it is refused,
    never applied to another item), and on a loaded machine a redraw after another page
    outlasted a burst of keys (test_browser_keys, once)."""
    page.locator(".st-key-grade_3 button").first.wait_for(timeout=20_000)
    idle(page, quiet=0.4)


def press_until_saved(page, url: str, name: str, key: str) -> None:
    """Press ``key`` and wait until the database holds one more judgment by ``name``; a
    key pressed while the page is being redrawn is dropped, so press again then (a second
    press of the same grade on the same item is refused by its revision, never doubled)."""
    before, shown = len(judgments(url, name)), passage(page)
    for _ in range(4):
        page.keyboard.press(key)
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            if len(judgments(url, name)) > before:
                wait_for_next_item(page, shown)
                return
            time.sleep(0.2)
    raise AssertionError(f"{name}'s key {key!r} was never saved")


def wait_for_next_item(page, shown: str, timeout: float = 20) -> None:
    """After a saved grade: wait until the page shows another passage (or says nothing is
    left), then until that item's buttons are drawn."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.get_by_text("Nothing left for you").count():
            return
        try:  # the passage may be gone between two looks (the page was redrawn): look again
            now = page.locator(".st-key-passage").inner_text(timeout=1000)
        except PlaywrightTimeout:
            now = shown
        if now != shown:
            settle(page)
            return
        time.sleep(0.2)
    raise AssertionError(f"the page still shows {shown!r}")


def judgments(url: str, name: str) -> list[tuple[str, int | None, str, int]]:
    with session_scope(make_engine(url)) as session:
        rows = session.exec(
            select(Chunk.chunk_id, Judgment.grade, Judgment.note, Judgment.revision)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
            .join(User, User.id == Judgment.user_id)
            .where(User.name == name)
            .order_by(Judgment.id)
        ).all()
    return [tuple(r) for r in rows]


def recorded_release(url: str, tmp_path: Path) -> Path:
    """A release folder recorded in the database at ``url`` against a pool built there: the
    Evaluate page offers recorded releases only."""
    from tests.annotator.evaluation.test_evaluation import make_release, record

    qrels = functools.partial(run_qrels, url)
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c")
    queries = write(tmp_path, "q.jsonl", jsonl([{"_id": "q1", "text": "brakes"}]))
    qrels("import", "queries", queries, "--query-set", "q")
    qrels("import", "run", write(tmp_path, "r.trec", RUN), "--system", "r")
    qrels("pool", "build", "p", "--systems", "run:r", "--depth", "4")
    return record(url, make_release(tmp_path / "releases" / "v1"))


KEYS = "1230"  # the grade keys pressed in turn
PASSAGES = 120
ON_SCREEN = "() => document.querySelector('.st-key-passage')?.innerText ?? ''"
# Toasts and the page's own notice of a key stopped during a redraw are brief: the page
# keeps what they said, to be read after a burst.
NOTICE_RECORDER = """() => {
  if (window.__notices) { return; }
  window.__notices = [];
  new MutationObserver(() => {
    for (const toast of document.querySelectorAll('[data-testid="stToast"]')) {
      if (!toast.__seen) { toast.__seen = true; window.__notices.push(toast.innerText); }
    }
    const notice = document.getElementById("qrels-key-notice");
    if (notice && notice.__seen !== notice.__hide) {
      notice.__seen = notice.__hide;
      window.__notices.push(notice.textContent);
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


@contextmanager
def one_query_pool(
    tmp_path: Path, database, corpus: list[dict], run: str, query: str
) -> Iterator[tuple[str, str]]:
    """A pool of ``run``'s passages of ``corpus`` for one query (q1, ``query``), an
    annotator ann1, and the app serving them: yields the app's address and the database's."""
    url, add_user = database
    qrels = functools.partial(run_qrels, url)
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(corpus)), "--corpus-version", "c")
    queries = write(tmp_path, "q.jsonl", jsonl([{"_id": "q1", "text": query}]))
    qrels("import", "queries", queries, "--query-set", "q")
    qrels("import", "run", write(tmp_path, "r.trec", run), "--system", "r")
    qrels("pool", "build", "p", "--systems", "run:r", "--depth", str(len(corpus)))
    add_user("ann1", "annotator")
    with serving(url, tmp_path) as address:
        yield address, url


@pytest.fixture
def long_pool(tmp_path, database):
    """One query and PASSAGES passages, each with a text no other one contains; ann1."""
    corpus = [
        {"_id": f"c{i:03d}", "title": "Manual", "text": f"Passage number {i:03d} of the manual."}
        for i in range(PASSAGES)
    ]
    run = "".join(f"q1 Q0 c{i:03d} {i + 1} {PASSAGES - i} r\n" for i in range(PASSAGES))
    with one_query_pool(tmp_path, database, corpus, run, "the manual") as (address, url):
        yield address, url, {row["_id"]: row["text"] for row in corpus}


def press_sequence(page, gaps: list[int], first_key: int) -> list[str]:
    """Press len(gaps) + 1 grade keys with ``gaps`` ms between them; what was on the
    screen right before each key."""
    seen = []
    for number in range(len(gaps) + 1):
        seen.append(page.evaluate(ON_SCREEN))
        page.keyboard.press(KEYS[(first_key + number) % len(KEYS)])
        if number < len(gaps):
            time.sleep(gaps[number] / 1000)
    return seen


def keys_landed_on_screen(
    page, url: str, texts: dict[str, str], gaps: list[int], first_key: int
) -> list[str]:
    """Press a sequence of grade keys (``press_sequence``) and check what ann1's keys
    wrote: only passages on the screen at one of the keys, at most once per such key.
    Returns the chunks graded."""
    before = len(judgments(url, "ann1"))
    seen = press_sequence(page, gaps, first_key)
    time.sleep(2.5)  # let the last key's redraw finish
    written = [chunk for chunk, *_ in judgments(url, "ann1")[before:]]
    keys_on = Counter(chunk for chunk, text in texts.items() for shown in seen if text in shown)
    for chunk in written:
        assert chunk in keys_on, (
            f"{chunk} was graded by a key pressed {gaps} ms apart, but it was never on "
            f"the screen at one of those keys: {seen}"
        )
    assert all(count <= keys_on[chunk] for chunk, count in Counter(written).items())
    return written


def press_sequences(page, url: str, texts: dict[str, str], sequences: list[list[int]]) -> int:
    """Press each sequence of grade keys in turn, each checked by ``keys_landed_on_screen``,
    and each writing something. Returns the number of keys pressed."""
    pressed = 0
    for gaps in sequences:
        settle(page)
        written = keys_landed_on_screen(page, url, texts, gaps, pressed)
        pressed += len(gaps) + 1
        assert written, f"no key of {gaps} wrote anything"
    return pressed


def judged_seconds(url: str, name: str) -> list[float | None]:
    """How long each of ``name``'s judgments was on the screen by the server's clock."""
    with session_scope(make_engine(url)) as session:
        rows = session.exec(
            select(Judgment.seconds)
            .join(User, User.id == Judgment.user_id)
            .where(User.name == name)
            .order_by(Judgment.id)
        ).all()
    return list(rows)
