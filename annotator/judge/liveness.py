"""Whether a judge run is still being run: the process that runs it writes who it is
(``owner``: host, process id and the process's start time) and refreshes the run's
``updated_at`` every ``HEARTBEAT_SECONDS`` while it runs. A run still marked running is
abandoned when its process is gone from this host (at once), or when it has not been heard
from for ``STALE_SECONDS`` (a process on another host, or a run from before owners were
written). A new run marks an abandoned one failed, with the reason, and goes on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import Engine

from storage import judge_records
from storage.db import session_scope

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 60  # six heartbeats missed: the process is gone, or cannot reach the database


def this_process() -> str:
    """``"host pid start"`` for the running process (start: its start time in clock ticks
    since boot, where ``/proc`` tells it, so that a reused process id is not taken for it)."""
    return " ".join(
        part for part in (socket.gethostname(), str(os.getpid()), _started(os.getpid())) if part
    )


def gone(owner: str) -> bool:
    """Whether ``owner`` (from ``this_process``) names a process of this host that no longer
    runs: no such process, a zombie, or a process started at another time under its id.
    False for a process of another host, or an empty or unreadable owner: unknown."""
    parts = owner.split()
    if len(parts) < 2 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process: it exists
    if _state(pid) == "Z":
        return True
    started = _started(pid)
    return len(parts) > 2 and bool(started) and started != parts[2]


def abandoned(owner: str, heard: datetime, now: datetime) -> str:
    """Why a run marked running, of ``owner``, last heard from at ``heard``, is no longer
    run ("" when it may still be)."""
    if gone(owner):
        return f"abandoned: its process ({owner}) ended without finishing the run"
    heard = heard if heard.tzinfo else heard.replace(tzinfo=UTC)  # SQLite drops the zone
    if heard < now - timedelta(seconds=STALE_SECONDS):
        return f"abandoned: not heard from since {heard:%Y-%m-%d %H:%M:%S} UTC"
    return ""


@contextlib.contextmanager
def heartbeat(engine: Engine, run_id: int) -> Iterator[None]:
    """Refresh run ``run_id``'s ``updated_at`` every ``HEARTBEAT_SECONDS`` while inside."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(HEARTBEAT_SECONDS):
            try:
                with session_scope(engine) as session:
                    judge_records.heartbeat(run_id, session=session)
            except Exception:  # a missed beat is not worth ending the run: the next may land
                logger.warning("judge: run %s could not note that it runs", run_id, exc_info=True)

    thread = threading.Thread(target=beat, name=f"judge-heartbeat-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command's name ([] where unreadable)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text.rpartition(")")[2].split()


def _state(pid: int) -> str:
    fields = _stat(pid)
    return fields[0] if fields else ""


def _started(pid: int) -> str:
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""  # field 22 of proc(5), after pid and name
