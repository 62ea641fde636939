"""The leads' process runs lower than the rest of the machine (``serving.lower_priority``):
its nice, and on Linux with autogroups a session of its own lowered as a whole, for the
kernel weighs each session as one against the others whatever its processes' nice. A
process that cannot leave its session (``qrels serve --process leads`` from a terminal)
lowers only itself, never the terminal's session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from annotator.cli import serving

SLEEPING = [sys.executable, "-c", "import time; time.sleep(60)"]
LOWERING = [
    sys.executable,
    "-c",
    "import time; from annotator.cli import serving; serving.lower_priority(3); time.sleep(60)",
]


def autogroup(pid: int | str) -> str | None:
    try:
        return Path(f"/proc/{pid}/autogroup").read_text().strip()
    except OSError:  # no autogroups in this kernel
        return None


def settled(process: subprocess.Popen, nice: int) -> None:
    """Wait until ``process`` has lowered itself to ``nice`` (it does so as it starts)."""
    for _ in range(200):
        if os.getpriority(os.PRIO_PROCESS, process.pid) == nice:
            return
        time.sleep(0.05)
    raise AssertionError(f"not at nice {nice}: {os.getpriority(os.PRIO_PROCESS, process.pid)}")


@pytest.mark.skipif(sys.platform != "linux", reason="sessions and autogroups are Linux's")
def test_an_app_process_is_lowered_in_a_session_of_its_own():
    mine, own = os.getpriority(os.PRIO_PROCESS, 0), autogroup("self")
    process = subprocess.Popen(SLEEPING, preexec_fn=serving._child_setup(7))  # noqa: PLW1509
    try:
        settled(process, min(mine + 7, 19))
        assert os.getsid(process.pid) == process.pid
        if own is not None:  # "/autogroup-N nice K": a group of its own, at nice 7
            group, _, nice = autogroup(process.pid).partition(" nice ")
            assert group != own.partition(" nice ")[0] and nice == "7"
            assert autogroup("self") == own  # this one's session as it was
    finally:
        process.kill()
        process.wait()


@pytest.mark.skipif(sys.platform != "linux", reason="sessions and autogroups are Linux's")
def test_a_process_group_leader_lowers_itself_and_not_its_session():
    mine, own = os.getpriority(os.PRIO_PROCESS, 0), autogroup("self")
    # process_group=0: a group of its own in this session, as a shell starts a command
    process = subprocess.Popen(LOWERING, process_group=0)
    try:
        settled(process, min(mine + 3, 19))
        assert os.getsid(process.pid) == os.getsid(0)  # still this session
        assert autogroup(process.pid) == own and autogroup("self") == own
    finally:
        process.kill()
        process.wait()
        if own is not None and autogroup("self") != own:  # undone, should it have been
            Path("/proc/self/autogroup").write_text(own.partition(" nice ")[2] + "\n")
