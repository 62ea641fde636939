"""How ``qrels serve`` runs the app: two app processes on ports of their own on 127.0.0.1,
the annotators' and the leads', and the front
(``annotator.cli.front``) on the port asked for, routing each browser to its process. Or,
with ``--process``, one app process on that port, for a proxy that routes by the same
cookie (deploy/nginx)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from annotator.cli import front
from annotator.cli.context import say
from pooling.i18n import LocalizedError
from pooling.settings import PROCESS_VARIABLE, child_environment

# How much lower the leads' process runs (``nice``; ``--leads-niceness``, for benchmarks).
# 0: on a loaded machine nice 5 left the lead 3 views a minute of the 40 asked (a view
# 24 s) and the keys no faster than at 0 (docs/benchmarks.md, capacity.py's "two-nice");
# the separate process is what keeps the keys from waiting. Lowered in a session of its
# own (``lower_priority``), at 19, the keys beside a lead were no faster either.
LEADS_NICENESS = 0
STARTED_WITHIN = 120  # seconds an app process may take to answer its health check


def lower_priority(niceness: int) -> None:
    """Run this process ``niceness`` lower than the rest of the machine. Linux weighs each
    session (an autogroup) as one against the others, whatever its processes' nice: so a
    session of its own, lowered as a whole, and the nice too (what counts where
    autogroups are off, or inside a cgroup with a CPU weight of its own)."""
    with contextlib.suppress(PermissionError):  # a process group's leader keeps its own
        os.setsid()
    if os.getsid(0) == os.getpid():  # never lower a terminal's session, others' with it
        with contextlib.suppress(OSError):  # no autogroups: the nice alone
            Path("/proc/self/autogroup").write_text(f"{niceness}\n")
    os.nice(niceness)


def _child_setup(niceness: int) -> Callable[[], None]:
    """What an app process does before it runs: lower its priority by ``niceness``, and
    (Linux) be told to stop when ``qrels serve`` ends, however it ends."""

    def setup() -> None:
        if niceness:
            lower_priority(niceness)
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    return setup


def app_environment(url: str, process: str, **settings: str) -> dict[str, str]:
    """The environment of an app process: the settings as ``qrels serve`` has them, its
    database, and which process it is (``pooling.settings.serving_process``)."""
    return {**child_environment(database_url=url, **settings), PROCESS_VARIABLE: process}


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
            return True
    except OSError:
        return False


def _wait_until_serving(processes: dict[int, subprocess.Popen]) -> None:
    waiting, deadline = set(processes), time.monotonic() + STARTED_WITHIN
    while waiting and time.monotonic() < deadline:
        for port in list(waiting):
            code = processes[port].poll()
            if code is not None:
                raise LocalizedError("app_process_failed", port=port, code=code)
            if _healthy(port):
                waiting.discard(port)
        time.sleep(0.2)
    if waiting:
        port = min(waiting)
        raise LocalizedError("app_process_failed", port=port, code="-")


def _stop(processes: dict[int, subprocess.Popen]) -> None:
    for process in processes.values():
        if process.poll() is None:
            process.terminate()
    for process in processes.values():
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serve_two(
    command: Callable[[int, str], list[str]],
    url: str,
    port: int,
    host: str,
    leads_niceness: int = LEADS_NICENESS,
    **settings: str,
) -> None:
    """Serve the app on ``host:port`` as two processes behind the front, until a signal
    (Ctrl+C, ``kill``) or until one of them stops; ``command(port, host)`` starts one."""
    listening = front.listening_socket(host, port)  # held: nobody takes it meanwhile
    annotators, leads = front.free_ports(2)
    processes: dict[int, subprocess.Popen] = {}
    try:
        for process, own, niceness in (
            ("annotators", annotators, 0),
            ("leads", leads, leads_niceness),
        ):
            processes[own] = subprocess.Popen(
                command(own, "127.0.0.1"),
                env=app_environment(url, process, **settings),
                preexec_fn=_child_setup(niceness),
            )
        _wait_until_serving(processes)
        say("serving_two", url=f"http://{host}:{port}", annotators=annotators, leads=leads)
        logging.basicConfig(format="qrels serve: %(message)s", level=logging.INFO)
        backends = front.Backends(("127.0.0.1", annotators), ("127.0.0.1", leads))
        front.run_until_signalled(
            listening,
            backends,
            watch=lambda: any(p.poll() is not None for p in processes.values()),
            signals=(signal.SIGTERM, signal.SIGINT, signal.SIGHUP),
        )
        ended = [(own, p.returncode) for own, p in processes.items() if p.poll() is not None]
        if ended and ended[0][1] not in (0, -signal.SIGTERM, -signal.SIGINT):
            raise LocalizedError("app_process_failed", port=ended[0][0], code=ended[0][1])
    finally:
        listening.close()
        _stop(processes)
        sys.stdout.flush()


def serve_one(
    command: list[str], url: str, process: str, leads_niceness: int = LEADS_NICENESS
) -> None:
    """Become the one app process ``process`` (``--process``): exec, so that stopping
    ``qrels serve`` (a signal to this process) stops the app too."""
    environment = app_environment(url, process)
    if process == "leads" and leads_niceness:
        lower_priority(leads_niceness)
    sys.stdout.flush()
    os.execve(sys.executable, command, environment)
