"""How many annotators one app process holds, and what a lead browsing costs them: keys
pressed in headless Chromium against ``qrels serve`` as the README starts it.

Annotators log in in headless Chromium (Debian's package), each in a browser context of
its own, and press a grade key at a person's pace (one every ``PACE`` seconds, give or
take a quarter, once the passage is drawn); the page itself times each key until the next
passage is on the screen. A lead, in a browser of their own, goes round the five lead
pages by the sidebar at ``LEAD_VIEWS`` views a minute. Two layouts of ``qrels serve``:

- ``one``: one app process for everyone, as ``qrels serve`` was before issue 41
  (``qrels serve --process annotators``: that process alone on the port);
- ``two``: ``qrels serve`` as it is, the annotators' and the leads' processes behind the
  front on the port (``two-nice`` and ``two-nice19``: the leads' process at nice 5, 19).

Runs: for each layout, ``--compare`` annotators with keys alone and with the lead
browsing, side by side (the issue's target: with a lead, p95 at most 150 ms and within
1.25 times the keys alone of the same run); then for each of ``--annotators`` (the
capacity table) the same with the lead browsing. Each run serves a fresh copy of
``--db`` when it is a SQLite database ``app_scale.py`` built (the keys go into the copy);
a PostgreSQL one is served as it is, the keys going into it (give it a copy: L leaves
4,000 items open, enough for the plan's 1,500 keys or so, and annotators with nothing
left stop pressing). Either is made ready once: the lead's kept figures counted (what a
running app's views leave behind) and annotators added up to the largest N (``x00``...).
The browsers share the machine with the server, as the people's own computers would not:
the load average is recorded beside the numbers, and ``--lead-browser-nice N`` runs the
lead's Chromium at nice N, standing for the lead's own computer. ``--server-cpus 0
--browser-cpus 1`` goes further on a machine of two cores: the server (``qrels serve``, its
app processes and, for a PostgreSQL database, the database server's processes) on one core,
every browser on the other, standing for a server with a core of its own and the people's
browsers elsewhere (a core still shared by the annotators' and the lead's browsers, unless
``--lead-browser-cpus`` gives the lead's its own). ``--socket`` takes the annotators'
browsers off the machine altogether: each annotator speaks Streamlit's websocket protocol
(``socket_clients.py``), and a key is timed until the end of the run that drew the next
passage, the server's part of a key without the browser's drawing. ``--lead-by socket``
does the same for the lead: the server does all its work for each view (the page's
script, its figures, its charts' data sent), and the lead's browser does not draw the
charts on the server's cores (0.4-0.6 s of CPU a view), as the lead's own computer would.

    python benchmarks/capacity.py --db URL [--annotators 1,4,8,16]
        [--compare 4] [--layouts one,two] [--seconds 60] [--rounds 1]
        [--lead-browser-nice N] [--server-cpus L --browser-cpus L [--lead-browser-cpus L]]
        [--socket] [--lead-by chromium|socket] [--json F]
    python benchmarks/capacity.py --report F [F ...]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import app_scale  # noqa: E402  (sets the app's one BLAS thread before numpy)
import socket_clients  # noqa: E402

PASSWORD = "benchmark-password"  # app_scale.build's
PACE = 3.0  # seconds between one annotator's keys: reading a short passage, deciding
LEAD_VIEWS = 40  # the lead's page views a minute
# The five lead pages' addresses ("": Team progress, the lead's first page, at the root)
LEAD_PAGES = ["", "pools", "adjudication", "agreement", "releases"]
# "two-nice*": the leads' process at a lower CPU priority (tried, not kept: serving.py).
LAYOUTS = {
    "one": ["--process", "annotators"],
    "two": [],
    "two-nice": ["--leads-niceness", "5"],
    "two-nice19": ["--leads-niceness", "19"],
}
LOST_AFTER = 60  # seconds without the next passage after which a key counts as dropped
GOAL_MS = 100  # the goal for a key's p95; the point where it is passed is reported
KEYS = "0123"
FINISHED = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# In each annotator's page: when a grade key goes down, the passage on the screen; when
# another passage is drawn, the milliseconds since (with the moment, epoch ms).
KEY_TIMER = """() => {
  if (window.__keys) return;
  window.__keys = []; window.__pending = null;
  const shown = () => document.querySelector('.st-key-passage')?.textContent ?? '';
  document.addEventListener('keydown', (event) => {
    if ('0123'.includes(event.key) && !window.__pending)
      window.__pending = {at: performance.now(), text: shown()};
  }, true);
  new MutationObserver(() => {
    const pending = window.__pending;
    if (!pending) return;
    const now = shown();
    if (now && now !== pending.text) {
      window.__keys.push([Date.now(), performance.now() - pending.at]);
      window.__pending = null;
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""
READY = """() => !window.__pending && !!document.querySelector('.st-key-grade_3 button')
  && !document.querySelector('[data-testid="stApp"][data-test-script-state="running"]')"""
LAUNCH = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
# A switch Chromium ignores, on the lead's browser only: its processes' CPU is told apart.
LEAD_MARK = "--qrels-benchmark-lead"
TICK = os.sysconf("SC_CLK_TCK")
# The parts whose CPU the report shows ("other": the front, Playwright, this script).
PARTS = (
    "annotators' process",
    "leads' process",
    "database",
    "annotators' browsers",
    "lead's browser",
)
# Which cores the server and the browsers run on (``--server-cpus``, ``--browser-cpus``):
# None leaves them to the kernel.
PLACES: dict[str, set[int] | None] = {"server": None, "browsers": None, "lead": None}


def chromium(niceness: int = 0, lead: bool = False):
    """Headless Chromium (Debian's), at ``niceness`` (``nice``) when it is not 0, on the
    browsers' cores (the lead's own, for the ``lead``'s, when they are given)."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    path = shutil.which("chromium") or "/usr/bin/chromium"
    cpus = (lead and PLACES["lead"]) or PLACES["browsers"]
    args = [*LAUNCH, LEAD_MARK] if lead else LAUNCH
    if not niceness and not cpus:
        return playwright, playwright.chromium.launch(executable_path=path, args=args)
    # Through a script that execs it under taskset: its pipe to Playwright stays. The
    # niceness is its session's: Playwright starts Chromium in a session of its own, which
    # Linux's autogroups weigh as one against the server's whatever its processes' nice,
    # and Chromium sets its threads' nice itself (-8 to 5 here, as root).
    folder = Path(tempfile.mkdtemp())
    pinned = f"taskset -c {','.join(map(str, sorted(cpus)))} " if cpus else ""
    wrapper = folder / "chromium"
    group = f"{{ echo {niceness} > /proc/self/autogroup; }} 2>/dev/null\n" if niceness else ""
    wrapper.write_text(f'#!/bin/sh\n{group}exec {pinned}nice -n {niceness} {path} "$@"\n')
    wrapper.chmod(0o755)
    try:
        return playwright, playwright.chromium.launch(executable_path=str(wrapper), args=args)
    finally:
        shutil.rmtree(folder)  # read once, at the launch


def cpu_seconds() -> dict[str, float]:
    """CPU seconds (user and system) used so far by each part of the machine: the app's
    processes (by their ``QRELS_PROCESS``), the database server's, the lead's and the
    annotators' browsers, and the rest. Two readings' difference is what a run cost."""
    stats, parents = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            name = (entry / "comm").read_text().strip()
            line = (entry / "cmdline").read_bytes() if "chrom" in name else b""
            environ = (entry / "environ").read_bytes() if "python" in name else b""
        except OSError:  # gone meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        stats[pid] = (name, line, environ, (int(fields[11]) + int(fields[12])) / TICK)
    used: dict[str, float] = {}
    for pid, (name, _, environ, seconds) in stats.items():
        if name == "postgres":
            part = "database"
        elif "chrom" in name:
            top = pid  # the browser's first process carries the lead's mark
            while parents.get(top) in stats and "chrom" in stats[parents[top]][0]:
                top = parents[top]
            lead = LEAD_MARK.encode() in stats[top][1]
            part = "lead's browser" if lead else "annotators' browsers"
        elif b"QRELS_PROCESS=leads" in environ:
            part = "leads' process"
        elif b"QRELS_PROCESS=annotators" in environ:
            part = "annotators' process"
        else:
            part = "other"
        used[part] = used.get(part, 0.0) + seconds
    return used


def log_in(browser, address: str, name: str):
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(address)
    page.get_by_label("User name").fill(name)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    return page


def annotate(address: str, names: list[str], started: threading.Event, stop: threading.Event):
    """The annotators' browser: log each in, then press keys at their pace until ``stop``;
    returns every key's (epoch seconds, milliseconds) and the keys that never drew."""
    playwright, browser = chromium()
    try:
        pages = {name: log_in(browser, address, name) for name in names}
        for page in pages.values():
            page.locator(".st-key-passage").wait_for(timeout=120_000)
            page.evaluate(KEY_TIMER)
            page.mouse.click(900, 20)
        rng, due = (
            random.Random(41),
            {name: time.time() + 2 + i * 0.2 for i, name in enumerate(names)},
        )
        pressed_at: dict[str, float] = {}
        lost = 0
        started.set()
        while not stop.is_set():
            for name, page in pages.items():
                now = time.time()
                if now < due[name]:
                    continue
                if not page.evaluate(READY):
                    if now - pressed_at.get(name, now) > LOST_AFTER:  # a key the page dropped
                        page.evaluate("() => { window.__pending = null; }")
                        pressed_at[name] = now
                        lost += 1
                    continue
                page.keyboard.press(rng.choice(KEYS))
                pressed_at[name] = now
                due[name] = now + PACE * rng.uniform(0.75, 1.25)
            time.sleep(0.02)
        keys = [
            (at / 1000, ms) for page in pages.values() for at, ms in page.evaluate("window.__keys")
        ]
        return keys, lost
    finally:
        browser.close()
        playwright.stop()


def browse(
    address: str, started: threading.Event, stop: threading.Event, niceness: int = 0
) -> list[float]:
    """The lead's browser (at ``niceness``): log in, then open the lead pages in turn from
    the sidebar at ``LEAD_VIEWS`` a minute until ``stop``; each view's seconds until its
    run ended."""
    playwright, browser = chromium(niceness, lead=True)
    views = []
    try:
        page = log_in(browser, address, "lead")
        page.locator(".st-key-team_per").wait_for(timeout=300_000)
        started.wait()
        turn, every = 0, 60 / LEAD_VIEWS
        while not stop.is_set():
            began = time.perf_counter()
            name = LEAD_PAGES[turn % len(LEAD_PAGES)]
            turn += 1
            page.locator(f'[data-testid="stSidebarNav"] a[href="{address}/{name}"]').click()
            page.wait_for_timeout(100)
            page.wait_for_selector(FINISHED, timeout=300_000)
            views.append(time.perf_counter() - began)
            time.sleep(max(0.0, every - (time.perf_counter() - began)))
    finally:
        browser.close()
        playwright.stop()
    return views


def serve(url: str, layout: str, folder: Path) -> tuple[subprocess.Popen, str]:
    """``qrels serve`` on ``url`` as the README starts it (``layout``'s options added)."""
    port = app_scale_port()
    command = [sys.executable, "-m", "annotator.cli", "--db", url, "serve", "--port", str(port)]
    environment = {**os.environ, "QRELS_LANG": "en", "QRELS_CACHE_DIR": str(folder / "cache")}
    log = open(folder / "serve.log", "w")  # noqa: SIM115  (closed with the process)
    cpus = PLACES["server"]
    server = subprocess.Popen(
        command + LAYOUTS[layout],
        env=environment,
        stdout=log,
        stderr=log,
        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,  # noqa: PLW1509
    )
    address = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if server.poll() is not None:
            raise RuntimeError(f"qrels serve stopped: {(folder / 'serve.log').read_text()}")
        try:
            urllib.request.urlopen(address + "/_stcore/health", timeout=2).close()
            return server, address
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("qrels serve did not start")


def app_scale_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy(url: str, folder: Path) -> str:
    """A fresh copy of the SQLite database at ``url`` in ``folder`` (SQLite's backup)."""
    target = folder / "qrels.db"
    with sqlite3.connect(url.removeprefix("sqlite:///")) as source, sqlite3.connect(target) as to:
        source.backup(to)
    return f"sqlite:///{target}"


def run(
    url: str,
    layout: str,
    annotators: int,
    lead: bool,
    seconds: float,
    lead_nice: int = 0,
    socket: bool = False,
    lead_by: str = "chromium",
) -> dict:
    """One run: ``annotators`` pressing keys for ``seconds``, with the lead browsing or not
    (their browser at nice ``lead_nice``); in Chromium, or by ``socket`` (and the lead by
    ``lead_by``; ``socket_clients``: no browser)."""
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        copied = copy(url, folder) if url.startswith("sqlite:///") else url
        server, address = serve(copied, layout, folder)
        started, stop, results = threading.Event(), threading.Event(), {}
        names = [n for n in app_scale.known_users(copied) if n not in ("lead", "fresh")]
        names = sorted(names)[:annotators]
        press = (
            functools.partial(socket_clients.annotate, address, copied, names, started, stop, PACE)
            if socket
            else functools.partial(annotate, address, names, started, stop)
        )
        work = [("keys", press)]
        if lead and lead_by == "socket":
            views = (socket_clients.browse, address, copied, "lead", LEAD_PAGES, started, stop)
            work.append(("views", functools.partial(*views, LEAD_VIEWS)))
        elif lead:
            work.append(("views", functools.partial(browse, address, started, stop, lead_nice)))
        threads = [
            threading.Thread(target=lambda k=k, f=f: results.__setitem__(k, f()), daemon=True)
            for k, f in work
        ]
        try:
            for thread in threads:
                thread.start()
            if not started.wait(timeout=600):
                raise RuntimeError("the annotators never started")
            time.sleep(3)  # the first keys and the lead's first view under way
            began, load, before = time.time(), os.getloadavg()[0], cpu_seconds()
            time.sleep(seconds)
            ended, after = time.time(), cpu_seconds()
            stop.set()
            for thread in threads:
                thread.join(timeout=600)
        finally:
            server.terminate()
            server.wait(timeout=60)
        keys, lost = results["keys"]
        views = results.get("views", [])
    timed = [ms for at, ms in keys if began <= at <= ended]
    return {
        "layout": layout,
        "annotators": annotators,
        "annotators_by": "socket" if socket else "chromium",
        "lead": lead,
        "lead_by": lead_by if lead else None,
        "lead_browser_nice": lead_nice if lead and lead_by == "chromium" else None,
        "keys": len(timed),
        "lost_keys": lost,
        "p50_ms": statistics.median(timed) if timed else None,
        "p95_ms": app_scale.p95(timed) if timed else None,
        "max_ms": max(timed, default=None),
        "key_ms": [round(ms, 1) for ms in timed],
        "lead_views": len(views),
        "lead_views_a_minute": round(len(views) * 60 / seconds, 1) if lead else None,
        "lead_view_median_s": statistics.median(views) if views else None,
        "seconds": seconds,
        "cpu_s": {k: round(v - before.get(k, 0.0), 1) for k, v in sorted(after.items())},
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def place_database(url: str, cpus: set[int]) -> None:
    """PostgreSQL's server processes on ``cpus`` (its backends are forked from them, and
    keep it): the database is part of the server."""
    if not url.startswith("postgresql"):
        return
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "postgres":
                os.sched_setaffinity(int(entry.name), cpus)
        except OSError:  # gone meanwhile, or another user's
            continue


def prepare(url: str, most: int) -> None:
    """Make the database ready for every run: the kept figures counted, and annotators
    enough for ``most`` pressing at once."""
    app_scale.counted_once(url)
    have = [n for n in app_scale.known_users(url) if n not in ("lead", "fresh")]
    with tempfile.TemporaryDirectory() as folder:
        password = Path(folder) / "password.txt"
        password.write_text(PASSWORD + "\n")
        added = sum(name.startswith("x") for name in have)  # a run before added these
        for number in range(added, added + most - len(have)):
            name = f"x{number:02d}"
            app_scale.qrels(
                url, "user", "add", name, "--role", "annotator", "--password-file", str(password)
            )


def fmt(value, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def pressed(row: dict) -> str:
    """A run's layout, and "by socket" when its annotators had no browser."""
    return row["layout"] + (" by socket" if row.get("annotators_by") == "socket" else "")


def served(row: dict) -> str:
    """``pressed``, and "lead by socket" when the lead had no browser."""
    return pressed(row) + (" lead by socket" if row.get("lead_by") == "socket" else "")


def alone_of(row: dict, rows: list[dict]) -> list[dict]:
    """The runs of ``rows`` with keys alone (no lead) to set ``row`` beside: as many
    annotators, pressing the same way (in Chromium or by socket), the lead aside."""
    return [
        a
        for a in rows
        if not a["lead"] and a["annotators"] == row["annotators"] and pressed(a) == pressed(row)
    ]


def pooled(rows: list[dict]) -> None:
    """With ``--rounds``: each setting's keys over all its runs, one p95 (a single minute's
    p95 of a few dozen keys is its two or three slowest, and this machine is noisy)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if "key_ms" in r:
            groups.setdefault((served(r), r["annotators"], r["lead"]), []).append(r)
    if all(len(runs) < 2 for runs in groups.values()):
        return
    print(
        "\n| pooled over runs: layout | annotators | lead | runs | keys | p50 ms | p95 ms "
        "| vs alone |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for (name, n, lead), runs in groups.items():
        ms = [m for r in runs for m in r["key_ms"]]
        alone = [m for a in alone_of(runs[0], rows) for m in a.get("key_ms", [])]
        ratio = app_scale.p95(ms) / app_scale.p95(alone) if ms and alone else None
        print(
            f"| {name} | {n} | {'yes' if lead else 'no'} | {len(runs)} | {len(ms)} "
            f"| {fmt(statistics.median(ms) if ms else None)} "
            f"| {fmt(app_scale.p95(ms) if ms else None)} | {fmt(ratio, 2)} |"
        )


def report(rows: list[dict]) -> None:
    """The side-by-side table (each layout, keys alone and with a lead) and the capacity
    table (keys with a lead, by annotators)."""
    print(
        "\n| layout | annotators | lead | keys | p50 ms | p95 ms | vs alone | max ms "
        "| lead views/min | median view s | load |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        alone = [a["p95_ms"] for a in alone_of(r, rows)]
        ratio = r["p95_ms"] / statistics.median(alone) if alone and r["p95_ms"] else None
        print(
            f"| {served(r)} | {r['annotators']} | {'yes' if r['lead'] else 'no'} | {r['keys']} "
            f"| {fmt(r['p50_ms'])} | {fmt(r['p95_ms'])} | {fmt(ratio, 2)} | {fmt(r['max_ms'])} "
            f"| {fmt(r['lead_views_a_minute'], 1)} | {fmt(r['lead_view_median_s'], 2)} "
            f"| {r['load_before']:.1f}–{r['load_after']:.1f} |"
        )
    pooled(rows)
    print("\n| layout | annotators | lead | CPU s a minute: " + " | ".join(PARTS) + " |")
    print("|---|---:|---|" + "---:|" * len(PARTS))
    for r in rows:
        if "cpu_s" not in r:  # a run from before the CPU was read
            continue
        minute = 60 / r.get("seconds", 60)
        used = [fmt(r["cpu_s"].get(part, 0.0) * minute, 1) for part in PARTS]
        lead = "yes" if r["lead"] else "no"
        print(f"| {served(r)} | {r['annotators']} | {lead} | " + " | ".join(used) + " |")
    for layout in sorted({served(r) for r in rows if r["lead"]}):
        led = sorted(
            (r for r in rows if served(r) == layout and r["lead"]), key=lambda r: r["annotators"]
        )
        over = next((r["annotators"] for r in led if (r["p95_ms"] or 0) > GOAL_MS), None)
        print(
            f"\n{layout}: keys' p95 passes {GOAL_MS} ms with a lead browsing at "
            f"{over if over is not None else 'none of'} annotators"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a database app_scale.py built (made ready in place)")
    parser.add_argument("--annotators", default="1,4,8,16", help="the capacity table's Ns")
    parser.add_argument("--compare", type=int, default=4, help="annotators, side by side")
    parser.add_argument("--layouts", default="one,two")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", dest="json_path")
    parser.add_argument(
        "--lead-browser-nice",
        type=int,
        default=0,
        help="the lead's Chromium at this nice: it stands for the lead's own computer",
    )
    parser.add_argument(
        "--socket",
        action="store_true",
        help="annotators without a browser, by Streamlit's websocket (socket_clients.py)",
    )
    parser.add_argument(
        "--lead-by",
        choices=["chromium", "socket"],
        default="chromium",
        help="the lead in headless Chromium, or without a browser (socket_clients.py)",
    )
    parser.add_argument("--server-cpus", help="cores of the server and its database: 0 or 0,1")
    parser.add_argument("--browser-cpus", help="cores of every browser")
    parser.add_argument("--lead-browser-cpus", help="cores of the lead's browser, if others")
    parser.add_argument("--report", nargs="+", metavar="FILE")
    args = parser.parse_args()
    if args.report:
        report([r for file in args.report for r in json.loads(Path(file).read_text())["runs"]])
        return
    if not args.db:
        parser.error("--db is required: a database app_scale.py built")
    every = os.sched_getaffinity(0)
    given = {"server": args.server_cpus, "browsers": args.browser_cpus}
    for place, cpus in {**given, "lead": args.lead_browser_cpus}.items():
        PLACES[place] = {int(c) for c in cpus.split(",")} if cpus else None
    if PLACES["server"]:
        place_database(args.db, PLACES["server"])
    if PLACES["browsers"]:  # this process and Playwright's driver are the people's side
        os.sched_setaffinity(0, PLACES["browsers"])
    counts = [int(n) for n in args.annotators.split(",") if n]
    layouts = args.layouts.split(",")
    prepare(args.db, max([*counts, args.compare]))
    plan = [(layout, args.compare, lead) for layout in layouts for lead in (False, True)]
    plan += [(layout, n, True) for n in counts if n != args.compare for layout in layouts]
    rows = []
    for _ in range(args.rounds):
        for layout, n, lead in plan:
            rows.append(
                run(
                    *(args.db, layout, n, lead, args.seconds),
                    *(args.lead_browser_nice, args.socket, args.lead_by),
                )
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
            if args.json_path:
                places = {k: sorted(v) if v else None for k, v in PLACES.items()}
                document = {"db": args.db, "cores": os.cpu_count(), "places": places, "runs": rows}
                Path(args.json_path).write_text(json.dumps(document, indent=2))
    if PLACES["server"]:
        place_database(args.db, every)  # as it was
    report(rows)


if __name__ == "__main__":
    main()
