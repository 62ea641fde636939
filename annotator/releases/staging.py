"""The hidden folder a release is written into before it is renamed into place
(``releases._publish``), and the clean-up of those a killed ``release create`` left.

A staging folder is named ``.VERSION.HOST.PID.TOKEN.partial``: hidden, and never a valid
release version (``check_version`` refuses a leading dot), so a leftover can never be taken
for a release. HOST is a short digest of the writer's host name: a releases folder on a
shared file system is written from several hosts, and a pid says nothing about another
host's processes. A staging folder is stale, and removed before the next release is written
beside it, when it was made on this host by a process that is gone, or, where that cannot be
told (another host's, or named without a pid), when it has not changed for a day.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import socket
import time
import uuid
from pathlib import Path

logger = logging.getLogger(__name__)

SUFFIX = ".partial"
STALE_AFTER = 24 * 3600  # seconds: a release is written in minutes at most
_NAMED = re.compile(r"^\..+?\.(?:(?P<host>[0-9a-f]{8})\.(?P<pid>\d+)\.)?[0-9a-f]{32}\.partial$")
# This host, as its staging folders name it.
HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def staging_folder(parent: Path, version: str) -> Path:
    """A new, empty hidden folder in ``parent`` to write release ``version`` into, after
    removing the stale ones there (``remove_stale``)."""
    remove_stale(parent)
    folder = parent / f".{version}.{HOST}.{os.getpid()}.{uuid.uuid4().hex}{SUFFIX}"
    folder.mkdir()
    return folder


def remove_stale(parent: Path, now: float | None = None) -> list[Path]:
    """Remove the staging folders in ``parent`` made on this host by a process that is gone,
    or that have not changed for ``STALE_AFTER``; returns those removed. Another folder, or
    a file, is never touched."""
    removed = []
    moment = time.time() if now is None else now
    for path in parent.glob(f".*{SUFFIX}"):
        named = _NAMED.match(path.name)
        if named is None or path.is_symlink() or not path.is_dir():
            continue
        pid = int(named["pid"]) if named["pid"] and named["host"] == HOST else None
        old = moment - path.stat().st_mtime > STALE_AFTER
        if old or (pid is not None and not _running(pid)):
            shutil.rmtree(path, ignore_errors=True)
            logger.info("removed %s, left by a release create that did not finish", path)
            removed.append(path)
    return removed


def _running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this host (one of another user counts)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
