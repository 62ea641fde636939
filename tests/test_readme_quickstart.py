"""The README's quick start ("Your own data in 10 commands") runs as written: each of its
shell blocks in bash, in a folder holding the documents, the questions and a run, with the
project's virtual environment as ``.venv``. ``qrels serve`` is started (on a free port, so
that it cannot meet another app) and answers; while it runs, two annotators grade through
the app's functions, as people would in it; then the release and the evaluation."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from storage.db import make_engine
from tests.annotator.test_own_documents import (
    DOCUMENTS,
    QUESTIONS,
    documents_folder,
    grade_everything,
)
from tests.browser_support import free_port

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Your own data in 10 commands"
PASSWORD = "a-long-password-1"


def quick_start_blocks() -> list[str]:
    """The shell blocks of the README's quick start, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)


def bash(script: str, folder: Path, stdin: str = "") -> subprocess.CompletedProcess:
    # No terminal of its own: the password prompts read the lines given on stdin.
    return subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script],
        cwd=folder,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        start_new_session=True,
        env={k: v for k, v in os.environ.items() if k not in ("QRELS_DATABASE_URL", "VIRTUAL_ENV")},
    )


def test_the_quick_start_has_the_blocks_this_test_runs():
    blocks = quick_start_blocks()
    assert [b.split()[0] for b in blocks] == ["source", "qrels", "qrels", "qrels"]
    assert blocks[2].strip() == "qrels serve"
    commands = sum(1 for b in blocks[1:] for line in b.splitlines() if line.startswith("qrels "))
    assert commands <= 11  # the ten commands, and the app to grade in


def test_each_block_of_the_quick_start_runs(tmp_path, monkeypatch):
    environment = Path(sys.prefix)
    if not (environment / "bin" / "qrels").exists():
        pytest.skip(f"no qrels command in {environment}")
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    (tmp_path / ".venv").symlink_to(environment)
    documents_folder(tmp_path)
    (tmp_path / "questions.txt").write_text(
        "".join(question + "\n" for question, _ in QUESTIONS.values()), encoding="utf-8"
    )
    chunks = [f"{document}#0" for document in DOCUMENTS]
    (tmp_path / "my-retriever.trec").write_text(
        "".join(
            f"{query} Q0 {chunk} {rank} {10 - rank} mine\n"
            for query, (_, answer) in QUESTIONS.items()
            for rank, chunk in enumerate(sorted(chunks, key=lambda c: c != f"{answer}#0"), start=1)
        ),
        encoding="utf-8",
    )
    setup, imports, serve, publish = quick_start_blocks()

    # One command at a time after the block's setup: each password prompt (and its
    # confirmation) gets its own answer, as a person types it.
    shown = ""
    for command in imports.splitlines():
        answer = f"{PASSWORD}\n{PASSWORD}\n" if " user add " in f" {command} " else ""
        done = bash(setup + command, tmp_path, stdin=answer)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
        shown += done.stdout
    assert "imported corpus version 'docs-v1': 5 documents" in shown
    assert "imported query set 'questions-v1': 5 queries" in shown
    assert "added annotator 'bob'" in shown

    port = free_port()
    server = subprocess.Popen(
        ["bash", "-c", setup + f"exec {serve.strip()} --port {port}"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("qrels serve did not answer")
        engine = make_engine(f"sqlite:///{tmp_path / 'my-team.db'}")
        assert grade_everything(engine, "first", "alice") > 0
        assert grade_everything(engine, "first", "bob") > 0
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)

    done = bash(setup + publish, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "releases" / "v1" / "qrels.trec").is_file()
    assert re.search(r"mrr@10\s+1\.0000", done.stdout), done.stdout
