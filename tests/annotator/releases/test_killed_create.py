"""Issue 36, item 6: a killed ``release create`` left a hidden ``.partial`` folder behind
for good. The next create removes what a finished process left (or what has not changed
for a day), keeps what a running create is writing, and succeeds. On SQLite and
PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from annotator.releases import releases, staging
from pooling.release_folder import verify_release
from tests.annotator.labeling.test_sampling import sampled_pool

__all__ = ["sampled_pool"]  # a fixture, used by name


KILLED = """
import os, signal, sys
from pathlib import Path
from annotator.releases.staging import staging_folder
folder = staging_folder(Path(sys.argv[1]), "v1")
(folder / "qrels.trec").write_text("q1 0 c1 2\\n")
os.kill(os.getpid(), signal.SIGKILL)  # killed while writing
"""


def test_the_next_create_removes_a_killed_create_s_folder_and_succeeds(
    sampled_pool, engine, tmp_path
):
    killed = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], check=False)
    assert killed.returncode == -signal.SIGKILL
    (left,) = tmp_path.glob(".v1.*.partial")
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        writing = tmp_path / f".v2.{staging.HOST}.{running.pid}.{'a' * 32}.partial"  # at work
        writing.mkdir()
        older = tmp_path / f".v0.{'b' * 32}.partial"  # named before pids, a day old
        older.mkdir()
        day_ago = time.time() - staging.STALE_AFTER - 60
        os.utime(older, (day_ago, day_ago))
        (tmp_path / ".notes.partial").mkdir()  # not a staging folder's name: left alone
        result = releases.create_release(engine, "v1", "p", tmp_path, allow_unresolved=True)
        assert verify_release(result.folder) == []
        assert not left.exists() and not older.exists()
        assert writing.is_dir() and (tmp_path / ".notes.partial").is_dir()
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("v")) == ["v1"]
    finally:
        running.kill()
        running.wait()
    releases.create_release(engine, "v2", "p", tmp_path, allow_unresolved=True)
    assert not writing.exists()  # its process is gone now
    assert [p.name for p in tmp_path.glob(".*.partial")] == [".notes.partial"]


def test_another_host_s_staging_folder_is_left_until_a_day_old(tmp_path):
    # A releases folder on a shared file system: another host's create is at work, under a
    # pid that is no process here.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    other = "0" * 8 if staging.HOST != "0" * 8 else "1" * 8
    theirs = tmp_path / f".v3.{other}.{int(gone.stdout)}.{'c' * 32}.partial"
    theirs.mkdir()
    mine = tmp_path / f".v3.{staging.HOST}.{int(gone.stdout)}.{'d' * 32}.partial"
    mine.mkdir()
    assert staging.remove_stale(tmp_path) == [mine]
    day_ago = time.time() - staging.STALE_AFTER - 60
    os.utime(theirs, (day_ago, day_ago))
    assert staging.remove_stale(tmp_path) == [theirs]
