"""How long each page of the demo takes in a browser, from the click on its name in the
sidebar to the page drawn, and a lead's decision from the click on Decide (issue 40: every
page at most 1 s, a decision at most 0.5 s, on both backends).

The demo is built as the README builds it (``qrels demo --dir D --no-serve``) and served as
``qrels serve`` serves it, on a free port; on PostgreSQL the same demo is loaded into a
schema of its own (dropped after) and served from there. Headless Chromium (Debian's
package, through Playwright) logs in as the demo's lead, goes through every page in the
sidebar, decides a candidate on Adjudication, then logs in as an annotator and goes through
the annotator's pages; ``--rounds`` times, after a first round that is not counted (the
process's first run of each page imports its libraries). A page is drawn when Streamlit's
run has finished (the app's ``data-test-script-state`` is ``notRunning``, no element left
stale, no running indicator), the page's own mark is on the screen (a widget only that page
draws, absent before the click) and every chart is painted, and it stayed so for half a
second, so that a page
whose first run asks for a second one is timed to the end of the second. The time is taken
in the page (``performance.now()``) from the click to the first frame that showed it.

``--baseline DIR``, another checkout (its ``.venv`` if it has one, else this Python with
its folder first on the path), builds and serves its own demo beside this checkout's; the
two alternate within each round, and the table gives each page's median and 90th
percentile and the ratio of the medians.

    python benchmarks/page_times.py [--rounds 5] [--backends sqlite,postgres]
                                    [--baseline DIR] [--json FILE]
    python benchmarks/page_times.py --table FILE...   (the table of runs saved by --json)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_URL = os.environ.get("QRELS_TEST_POSTGRES_URL", "postgresql://127.0.0.1:5432/test")
LEAD, ANNOTATOR = ("lead", "demo-lead-pass"), ("annotator1", "demo-annotator-1")
# Each page's address, and a mark only that page draws (a CSS selector): the page is drawn
# when it is there and the run has ended.
MARKS = {
    "team": ".st-key-table_drift",
    "data": ".st-key-data_run_submit",
    "pools": ".st-key-table_combinations",
    "adjudication": ".st-key-decide",
    "agreement": ".st-key-table_confusion",
    "releases": ".st-key-coverage_run",
    "evaluate": ".st-key-eval_download",
    "judge": ".st-key-judge_limit",
    "accounts": ".st-key-account_reset",
    "label": ".st-key-rubric_full",
    "mine": '[data-testid="stDataFrame"]',
}
LEAD_PAGES = list(MARKS)  # in the sidebar's order from the lead's landing page
ANNOTATOR_PAGES = ["mine", "label"]  # from the annotator's landing page, Label
QUIET_MS = 500  # a page is drawn when it stays so this long
PATIENCE_MS = 60_000  # a page not drawn by then is a failure, said with what was missing
# Load the demo into the database at argv[1] as ``qrels demo`` loads it into SQLite (its
# release and runs into the folder argv[2]), run in the checkout measured.
LOADER = """
import sys
from importlib.resources import files
from pathlib import Path
from annotator.cli import demo_campaign, setup_commands as s
from annotator.pools.pool_building import build_pool
from storage import imports
from storage.db import make_engine, session_scope, upgrade
url, folder = sys.argv[1], Path(sys.argv[2])
made = make_engine(url)
upgrade(made)
data = files("annotator") / "demo"
with session_scope(made) as session:
    imports.import_corpus(Path(str(data / "corpus.jsonl")), session=session,
        version=s.DEMO_CORPUS_VERSION, chunk_size=s.DEMO_CHUNK_SIZE,
        chunk_overlap=s.DEMO_CHUNK_OVERLAP)
    imports.import_queries(Path(str(data / "queries.jsonl")), session=session,
        name=s.DEMO_QUERY_SET)
demo_campaign.add_accounts(made)
build_pool(made, s.DEMO_POOL, systems=s.DEMO_SYSTEMS, depth=s.DEMO_DEPTH)
demo_campaign.load_campaign(made, s.DEMO_POOL, folder)
"""
# In the page: resolve with the milliseconds from the click (at ``performance.now()``
# given) to the first frame that showed the page drawn, once it has stayed drawn QUIET_MS.
DRAWN = """([clicked, mark, quiet, patience]) => new Promise((resolve, reject) => {
  let since = null;
  const check = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const seen = {
      ended: app.getAttribute('data-test-script-state') === 'notRunning',
      fresh: !document.querySelector('[data-stale="true"]'),
      still: !document.querySelector('[data-testid="stStatusWidget"]'),
      marked: document.querySelector(mark) !== null,
      charted: [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
        .every(chart => chart.querySelector('canvas, svg') !== null),
    };
    const drawn = Object.values(seen).every(Boolean);
    const now = performance.now();
    if (!drawn) { since = null; }
    else if (since === null) { since = now; }
    if (since !== null && now - since >= quiet) { resolve(since - clicked); return; }
    if (now - clicked > patience) { reject(new Error(JSON.stringify(seen))); return; }
    requestAnimationFrame(check);
  };
  check();
})"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def python_of(checkout: Path) -> tuple[str, dict]:
    """The Python that runs ``checkout`` and the environment it runs in."""
    own = checkout / ".venv" / "bin" / "python"
    executable = str(own) if own.exists() else sys.executable
    return executable, {**os.environ, "PYTHONPATH": str(checkout), "QRELS_LANG": "en"}


def postgres_schema(stack: ExitStack) -> str:
    """A fresh schema at ``POSTGRES_URL``, dropped when ``stack`` closes: its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    schema = f"pages_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))

    def drop() -> None:
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))

    stack.callback(drop)
    url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


def built(checkout: Path, backend: str, folder: Path, stack: ExitStack) -> tuple[str, Path]:
    """The demo on ``backend`` for ``checkout``'s code, in ``folder``: its database's URL and
    the folder of its releases."""
    python, environment = python_of(checkout)
    subprocess.run(
        [python, "-m", "annotator.cli", "demo", "--dir", str(folder), "--no-serve"],
        check=True, capture_output=True, cwd=checkout, env=environment,
    )  # fmt: skip
    if backend == "sqlite":
        return f"sqlite:///{folder / 'qrels.db'}", folder / "releases"
    url, loaded = postgres_schema(stack), folder / "postgres"
    subprocess.run(
        [python, "-c", LOADER, url, str(loaded)],
        check=True, capture_output=True, cwd=checkout, env=environment,
    )  # fmt: skip
    return url, loaded / "releases"


def served(checkout: Path, url: str, release_dir: Path, stack: ExitStack) -> str:
    """``qrels serve`` on ``url`` with ``checkout``'s code, stopped when ``stack`` closes
    (its whole process group: ``serve`` may start more than one process): its address."""
    python, environment = python_of(checkout)
    port = free_port()
    process = subprocess.Popen(
        [python, "-m", "annotator.cli", "--db", url, "serve", "--port", str(port)],
        cwd=checkout,
        env={**environment, "QRELS_RELEASE_DIR": str(release_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def stop() -> None:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)

    stack.callback(stop)
    address = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            urllib.request.urlopen(address + "/_stcore/health", timeout=1)
            return address
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"the app on {url} did not start")


def timed(page, action: str, mark: str, *, new_mark: bool = True) -> float:
    """Seconds from running the script ``action`` in the page (a click) to the page drawn
    with ``mark`` on it (a ``new_mark``, not there before the click)."""
    if new_mark and page.locator(mark).count():
        raise RuntimeError(f"{mark} is on {page.url} before the click: it cannot tell")
    clicked = page.evaluate(f"() => {{ const t = performance.now(); {action}; return t; }}")
    try:
        return page.evaluate(DRAWN, [clicked, mark, QUIET_MS, PATIENCE_MS]) / 1000
    except PlaywrightError as error:  # what was missing, and where
        page.screenshot(
            path=str(Path(tempfile.gettempdir()) / "page_times_failed.png"), full_page=True
        )
        raise RuntimeError(f"not drawn ({mark} at {page.url}): {error.message}") from None


def visit(page, address: str) -> float:
    """Click ``address``'s name in the sidebar (the landing page's link is the bare ``/``)."""
    link = (
        "[...document.querySelectorAll('[data-testid=stSidebarNav] a')].find(a => "
        f"a.href.endsWith('/{address}') || "
        f"(a.href.endsWith('/') && window.__landing === '{address}'))"
    )
    return timed(page, f"{link}.click()", MARKS[address])


def logged_in(browser, address: str, account: tuple[str, str], landing: str):
    """A fresh browser page logged in as ``account``, on its landing page."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.goto(address)
    page.get_by_label("User name").fill(account[0])
    page.get_by_role("textbox", name="Password").fill(account[1])
    page.get_by_role("button", name="Log in").click()
    page.locator(MARKS[landing]).wait_for(timeout=60_000)
    page.evaluate(f"() => {{ window.__landing = {landing!r}; }}")
    return page


def one_round(browser, address: str) -> dict[str, float]:
    """Every page once as the lead, a decision, and the annotator's pages: seconds each."""
    times = {}
    page = logged_in(browser, address, LEAD, "team")
    for name in [*LEAD_PAGES[1:], LEAD_PAGES[0]]:
        times[name] = visit(page, name)
    visit(page, "adjudication")
    page.locator(".st-key-rationale input").fill("benchmark")  # a decision needs a reason
    page.locator(".st-key-rationale input").press("Enter")
    page.wait_for_timeout(200)
    timed(page, "", ".st-key-decide", new_mark=False)  # the page drawn again with it
    decide = "document.querySelector('.st-key-decide button').click()"
    times["decision"] = timed(page, decide, '[data-testid="stAlertContentSuccess"]')
    page.context.close()
    page = logged_in(browser, address, ANNOTATOR, "label")
    for name in ANNOTATOR_PAGES:
        times[f"{name} (annotator)"] = visit(page, name)
    page.context.close()
    return times


def p90(values: list[float]) -> float:
    return (
        statistics.quantiles(values, n=10, method="inclusive")[8] if len(values) > 1 else values[0]
    )


def report(rows: list[dict], rounds: int) -> None:
    """Per backend and page: each checkout's median and 90th percentile, and the ratio."""
    labels = sorted({r["checkout"] for r in rows}, key=["this", "baseline"].index)
    print(f"\n{rounds} rounds; seconds, median / p90")
    header = " | ".join(f"{label} median / p90" for label in labels)
    ratio = " | median vs baseline" if len(labels) > 1 else ""
    print(f"\n| backend | page | {header}{ratio} |")
    print("|---|---|" + "---:|" * (len(labels) + (len(labels) > 1)))
    for backend in dict.fromkeys(r["backend"] for r in rows):
        pages = list(dict.fromkeys(p for r in rows if r["backend"] == backend for p in r["times"]))
        for name in pages:
            cells, medians = [], []
            for label in labels:
                seen = [
                    r["times"][name]
                    for r in rows
                    if r["backend"] == backend and r["checkout"] == label
                ]
                medians.append(statistics.median(seen))
                cells.append(f"{medians[-1]:.2f} / {p90(seen):.2f}")
            share = f" | {medians[0] / medians[1]:.2f}x" if len(labels) > 1 else ""
            print(f"| {backend} | {name} | {' | '.join(cells)}{share} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="counted rounds of every page")
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another checkout")
    parser.add_argument("--json", dest="json_path", help="write every round's times here")
    parser.add_argument(
        "--table", metavar="FILE", nargs="+", help="only print the table of runs saved by --json"
    )
    args = parser.parse_args()
    if args.table:
        saved = [row for name in args.table for row in json.loads(Path(name).read_text())]
        report(saved, len(saved) // len({(r["checkout"], r["backend"]) for r in saved}))
        return
    from playwright.sync_api import sync_playwright

    checkouts = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    rows = []
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        servers = {}
        for backend in args.backends.split(","):
            for label, checkout in checkouts.items():
                where = Path(folder) / f"{label}-{backend}"
                url, release_dir = built(checkout, backend, where, stack)
                servers[label, backend] = served(checkout, url, release_dir, stack)
                print(f"{label} {backend}: {servers[label, backend]}", file=sys.stderr)
        with sync_playwright() as playwright:
            chromium = shutil.which("chromium") or "/usr/bin/chromium"
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
            )
            for number in range(args.rounds + 1):
                order = list(servers) if number % 2 == 0 else list(reversed(servers))
                for label, backend in order:
                    times = one_round(browser, servers[label, backend])
                    if number == 0:
                        continue  # the first run of each page in the process: not counted
                    rows.append({"checkout": label, "backend": backend, "times": times})
                    rows[-1]["load"] = os.getloadavg()[0]  # the machine's, after the round
                    print(json.dumps(rows[-1]), file=sys.stderr)
            browser.close()
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    report(rows, args.rounds)
    print(f"load average (1 minute) after the rounds: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
