"""Annotators' keys in the process that serves the app, while a lead looks at the lead pages
in a browser: the one thing ``app_scale.py``'s working team cannot see, since it presses
its keys in a process of its own.

``qrels serve`` is one process for every session. A page run for one session holds Python's
GIL while it computes in Python, and what it does after the run holds it too: Streamlit
collects every generation of garbage after each run (``runner.postScriptGC``), and with a
lead's kept figures in memory at a million judgments one such collection is a pause of a
sixth of a second in which no other session runs.

Each run starts the app as ``qrels serve`` starts it (``annotator.cli.setup_commands.
app_command``), in a process of its own on ``--db`` (a database ``app_scale.py`` built: the
benchmark presses keys into it, so give it a copy), with four annotators pressing keys in a
thread of that same process (``app_scale.press``: the grade and the next view, a key every
quarter second in turn). The lead logs in with headless Chromium (Debian's package) and goes
through the five lead pages again and again for ``--seconds``. It reports the keys pressed
meanwhile (median, 95th percentile, the slowest) and the full (generation 2) garbage
collections in the server's process (how many, the longest), in three settings that
alternate ``--rounds`` times: ``alone`` (the app as served, keys and no lead), ``baseline``
(a lead, and the app as it was: Streamlit's collection after every run, nothing frozen)
and ``app`` (a lead, and the app as served: no collection after each run, and the
libraries' objects frozen out of the collections at the first run, ``ui.freeze_libraries``).
The browser shares this machine's two cores with the server, as a lead's browser on their
own computer would not: keys beside it are slower than alone under either setting.

    python benchmarks/served_keys.py --db URL [--seconds 60] [--rounds 2] [--json F]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import app_scale  # noqa: E402  (sets the app's one BLAS thread before numpy)

PASSWORD = "benchmark-password"  # app_scale.build's
ADDRESSES = ["team", "pools", "adjudication", "agreement", "releases"]  # its PAGES' addresses
# Streamlit's options beyond ``qrels serve``'s, by setting. ``alone``: the app as served,
# keys and no lead; ``baseline``: Streamlit's collection after every run, and no object
# frozen (``serve``), as before.
SETTINGS = {"alone": [], "baseline": ["--runner.postScriptGC", "true"], "app": []}


def serve(url: str, port: int, folder: Path, setting: str) -> None:
    """Run the app here as ``qrels serve`` would, with keys pressed by a thread of this
    process until ``folder/stop`` exists; then write the keys and the full collections'
    pauses to ``folder`` and end the process."""
    from streamlit.web import cli

    from annotator.cli.setup_commands import app_command
    from pooling.settings import child_environment

    os.environ.update(child_environment(database_url=url))
    pauses: list[float] = []
    began: list[float] = []

    def timed(phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                began.append(time.perf_counter())
            else:
                pauses.append((time.perf_counter() - began.pop()) * 1000)

    gc.callbacks.append(timed)
    if setting == "baseline":  # as before: nothing kept out of the collections
        gc.freeze = lambda: None

    def keys() -> None:
        app_scale.press(url, folder / "stop", folder / "keys.json")
        (folder / "pauses.json").write_text(json.dumps(pauses))
        os._exit(0)  # the server runs in the main thread and has no other way out

    threading.Thread(target=keys, daemon=True).start()
    sys.argv = ["streamlit", *app_command(port, "127.0.0.1")[3:], *SETTINGS[setting]]
    cli.main()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen) -> None:
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError("the app stopped before it served")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("the app did not start serving")


def look(seconds: float, address: str) -> tuple[float, float, list[tuple[str, float]]]:
    """The lead logs in and goes through the lead pages for ``seconds``: when the looking
    began and ended (epoch seconds), and each page's time until its run ended."""
    from playwright.sync_api import sync_playwright

    finished = '[data-testid="stApp"][data-test-script-state="notRunning"]'
    views = []
    with sync_playwright() as playwright:
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(address)
        page.get_by_label("User name").fill("lead")
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_selector(finished, timeout=120_000)
        started = time.time()
        while time.time() < started + seconds:
            for name in ADDRESSES:
                shown = time.perf_counter()
                page.goto(f"{address}/{name}")
                # a page can run twice (its first run asks for a rerun): the second wait
                # catches that one
                for _ in range(2):
                    page.wait_for_selector(finished, timeout=120_000)
                    page.wait_for_timeout(200)
                views.append((name, time.perf_counter() - shown - 0.4))
        ended = time.time()
        browser.close()
    return started, ended, views


def run(url: str, setting: str, seconds: float) -> dict:
    """One run of the app under ``setting``: the keys pressed while the lead looked, the
    full collections in the app's process and the lead's page times."""
    with tempfile.TemporaryDirectory() as folder:
        folder, port = Path(folder), free_port()
        command = [sys.executable, __file__, "--serve", url, str(port), str(folder), setting]
        environment = {**os.environ, "QRELS_LANG": "en", "QRELS_CACHE_DIR": str(folder)}
        server = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL)
        try:
            wait_for(port, server)
            if setting == "alone":
                started, views = time.time(), []
                time.sleep(seconds)
                ended = time.time()
            else:
                started, ended, views = look(seconds, f"http://127.0.0.1:{port}")
        finally:
            (folder / "stop").touch()
            server.wait(timeout=120)
        pressed = json.loads((folder / "keys.json").read_text())
        pauses = json.loads((folder / "pauses.json").read_text())
    keys = [ms for at, ms in pressed if started <= at <= ended]
    return {
        "setting": setting,
        "keys": len(keys),
        "p50_ms": statistics.median(keys),
        "p95_ms": app_scale.p95(keys),
        "max_ms": max(keys),
        "full_collections": len(pauses),
        "longest_collection_ms": max(pauses, default=0.0),
        "page_views": len(views),
        "page_median_s": statistics.median(s for _, s in views) if views else None,
    }


def report(rows: list[dict]) -> None:
    base = statistics.median(r["p95_ms"] for r in rows if r["setting"] == "baseline")
    print(
        "\n| setting | keys | p50 ms | p95 ms | p95 vs baseline | slowest ms "
        "| full collections | longest ms | lead page views | median view s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['setting']} | {r['keys']} | {r['p50_ms']:.0f} | {r['p95_ms']:.0f} "
            f"| {r['p95_ms'] / base:.2f}x | {r['max_ms']:.0f} | {r['full_collections']} "
            f"| {r['longest_collection_ms']:.0f} | {r['page_views']} "
            f"| {'-' if r['page_median_s'] is None else format(r['page_median_s'], '.2f')} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a database app_scale.py built (a copy: keys go into it)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the lead's looking, per run")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each setting, alternating")
    parser.add_argument("--json", dest="json_path", help="write the rows to this file")
    parser.add_argument("--serve", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        url, port, folder, setting = args.serve
        serve(url, int(port), Path(folder), setting)
        return
    if not args.db:
        parser.error("--db is required: a copy of a database app_scale.py built")
    app_scale.counted_once(args.db)  # the lead's figures as a running app keeps them
    rows = []
    for _ in range(args.rounds):
        for setting in SETTINGS:
            rows.append(run(args.db, setting, args.seconds))
            print(json.dumps(rows[-1]), file=sys.stderr)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    report(rows)


if __name__ == "__main__":
    main()
