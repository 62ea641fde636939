"""The ``qrels`` command as a user meets it: help, init, imports, status, demo, errors."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from annotator.cli import cli
from tests.conftest import run_qrels, snapshot, write
from tests.storage.test_imports import CORPUS, QUERIES, jsonl


@pytest.fixture
def qrels(db_url, monkeypatch):
    """Run ``qrels --db <url> ...`` in-process; returns the result."""
    monkeypatch.delenv("QRELS_LANG", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    return functools.partial(run_qrels, db_url)


def test_help_lists_the_commands():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("init", "import", "status", "demo"):
        assert f"  {command} " in result.output
    result = CliRunner().invoke(cli, ["import", "--help"])
    for command in ("corpus", "queries", "run", "judgments"):
        assert f"  {command} " in result.output


def test_evaluate_help_names_every_metric_the_registry_parses():
    """--metrics's help is made from pooling.metrics: a metric added there is listed, and
    nothing in annotator/ names the metrics one by one."""
    from pooling.metrics import FAMILIES, parse_metrics, syntax

    assert syntax() == "recall@k, hit@k, p@k, mrr[@k], ndcg[@k], map[@k], bpref, infap"
    written = [name.replace("[@k]", "").replace("@k", "@5") for name in syntax().split(", ")]
    assert [m.family for m in parse_metrics(",".join(written))] == list(FAMILIES)
    result = CliRunner().invoke(cli, ["evaluate", "--help"], terminal_width=200)
    assert f"{syntax()}, comma-separated." in result.output


def test_console_script_is_installed():
    executable = shutil.which("qrels") or str(
        __import__("pathlib").Path(sys.executable).with_name("qrels")
    )
    result = subprocess.run([executable, "--help"], capture_output=True, text=True, check=True)
    assert "import" in result.stdout and "status" in result.stdout


def test_commands_before_init_say_what_to_do(qrels):
    result = qrels("status", expect=2)
    assert "run `qrels init`" in result.stderr


def test_import_flow_and_status(qrels, tmp_path):
    qrels("init")
    out = qrels(
        "import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c1"
    ).output
    assert "imported corpus version 'c1': 3 documents, 4 chunks (0 empty; chunking: none)" in out
    out = qrels(
        "import", "queries", write(tmp_path, "q.jsonl", jsonl(QUERIES)), "--query-set", "qs1"
    ).output
    assert "imported query set 'qs1': 3 queries (1 dev, 2 test, 1 unanswerable)" in out
    out = qrels(
        "import", "run", write(tmp_path, "r.trec", "q1 Q0 tea 1 1.0 x\n"), "--system", "ext"
    ).output
    assert "imported run of system 'ext': 1 results for 1 queries" in out
    qrels_file = write(tmp_path, "j.tsv", "query-id\tcorpus-id\tscore\nq1\ttea\t3\nq2\tbike\t2\n")
    out = qrels("import", "judgments", qrels_file, "--annotator", "offline").output
    assert "created annotator 'offline'" in out
    assert "imported 2 judgments by 'offline' (beir)" in out
    out = qrels("import", "judgments", qrels_file, "--annotator", "offline").output
    assert "were already imported: nothing to do" in out
    out = qrels("import", "corpus", tmp_path / "c.jsonl", "--corpus-version", "c1").output
    assert "already in the database with identical content: nothing to do" in out

    status = qrels("status").output
    assert "c1: 3 documents, 4 chunks, chunking none" in status
    assert "qs1: 3 queries (dev 1, test 2, unanswerable 1); 2 judgments on 2 queries" in status
    assert "judgments by annotator: offline 2" in status
    assert "ext (external_run): 1 ranked results" in status
    # 'offline' has no password: counted, and said to be unable to log in (not "0 annotators")
    assert status.splitlines()[-1] == (
        "accounts that can log in: 0 leads, 0 annotators; without a password (they cannot log "
        "in): imported annotators 1, model judges 0"
    )
    qrels("user", "add", "lead1", "--role", "lead", "--password-file", password_file(tmp_path))
    status = qrels("--lang", "zh", "status").output
    assert status.splitlines()[-1] == (
        "可登录的账户：负责人 1 名，标注者 0 名；没有密码（无法登录）：导入判断的标注者 1 名，"
        "模型评审 0 个"
    )


def password_file(folder):
    return write(folder, "password.txt", "a long enough password 1\n")


def test_errors_are_one_line_in_the_users_language_and_write_nothing(qrels, db_url, tmp_path):
    qrels("init")
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c1")
    qrels("import", "queries", write(tmp_path, "q.jsonl", jsonl(QUERIES)), "--query-set", "qs1")
    from storage.db import make_engine

    engine = make_engine(db_url)
    before = snapshot(engine)
    bad = write(tmp_path, "bad.trec", "q1 0 tea 3\nq1 0 bike 9\n")
    result = qrels("import", "judgments", bad, "--annotator", "x", expect=2)
    assert result.stderr == f"error: {bad}, line 2, field 'grade': grade '9' is outside 0–3\n"
    result = qrels("--lang", "zh", "import", "judgments", bad, "--annotator", "x", expect=2)
    assert result.stderr == f"错误：{bad} 第 2 行，字段“grade”：等级“9”不在 0–3 范围内\n"
    assert "Traceback" not in result.output
    assert snapshot(engine) == before


def test_language_follows_the_locale(qrels, db_url, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    result = qrels("status", expect=2)
    # A SQLite file that is not there is said so (and not made); PostgreSQL's is empty.
    said = "处没有数据库" if db_url.startswith("sqlite") else "尚未建立 qrels-studio 表结构"
    assert said in result.stderr


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_demo_loads_the_bundled_collection(tmp_path, monkeypatch, db_url):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QRELS_LANG", "en")
    runner = CliRunner()
    result = runner.invoke(cli, ["demo", "--dir", "demo", "--no-serve"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "imported corpus version 'demo-corpus-v1': 8 documents" in result.output
    assert "imported query set 'demo-queries-v1': 16 queries (6 dev, 10 test, 2 unanswerable)" in (
        result.output
    )
    assert (tmp_path / "demo" / "qrels.db").is_file()
    # Its pool's size reads the same wherever it is given (issue 40: 83, 82 and 78): the
    # candidates built, then those asked about, the gold item set apart and said so.
    built = int(re.search(r"pool 'demo-pool': (\d+) candidates", result.output).group(1))
    line = re.search(r"demo-pool \(.*\): (\d+) candidates.*; (\d+) built, (\d+) of them set "
                     r"apart", result.output)  # fmt: skip
    asked, pooled, apart = map(int, line.groups())
    assert pooled == built and asked + apart == built and apart == 1  # the demo's gold item
    again = runner.invoke(cli, ["demo", "--dir", "demo", "--no-serve"], catch_exceptions=False)
    assert again.exit_code == 0 and "identical content: nothing to do" in again.output


def test_demo_collection_is_bilingual_with_slices_splits_and_no_answer_queries():
    from importlib.resources import files

    from pooling.readers import read_corpus, read_queries

    data = files("annotator") / "demo"
    documents = read_corpus(str(data / "corpus.jsonl"))
    queries = read_queries(str(data / "queries.jsonl"))
    assert {d.metadata["lang"] for d in documents} == {"zh", "en"}
    assert 12 <= len(queries) <= 20
    assert {q.split for q in queries} == {"dev", "test"}
    assert any(not q.answerable for q in queries)
    assert all(q.slices for q in queries)
    json.dumps([q.text for q in queries], ensure_ascii=False)


def test_pool_commands(qrels, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    qrels("init")
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c1")
    qrels("import", "queries", write(tmp_path, "q.jsonl", jsonl(QUERIES)), "--query-set", "qs1")
    qrels(
        "import",
        "run",
        write(tmp_path, "r.trec", "q1 Q0 bike 1 1.0 x\nq3 Q0 tea 1 1.0 x\n"),
        "--system",
        "ext",
    )
    out = qrels("pool", "build", "p", "--systems", "bm25,vector,rrf", "--depth", "2").output
    assert "pool 'p':" in out and "(judgments per candidate: 2)" in out
    shown = qrels("pool", "show", "p", "--per-query").output
    assert "systems (found: candidates it put forward; unique: found by no other system)" in shown
    assert "bm25: found" in shown and "shared with other systems" in shown
    out = qrels("pool", "topup", "p", "--systems", "run:ext", "--depth", "5").output
    assert "were in the pool already" in out
    out = qrels("pool", "topup", "p", "--systems", "run:ext", "--depth", "5").output
    assert "pool 'p': the top-up added nothing (no new candidate, no new provenance)" in out
    assert "so it is not recorded in the pool's config" in out
    export = tmp_path / "p.jsonl"
    out = qrels("pool", "export", "p", export).output
    assert f"to {export}" in out
    records = [json.loads(line) for line in export.read_text().splitlines()]
    assert all(set(r) == {"query_id", "chunk_id", "provenance"} for r in records)
    assert all(s["rank"] >= 1 for r in records for s in r["provenance"])
    assert "p (qs1 × c1; systems bm25,vector,rrf):" in qrels("status").output
    result = qrels("pool", "build", "p2", "--systems", "bm25,nope", "--depth", "2", expect=2)
    assert result.stderr.startswith("error: unknown system 'nope'; valid: bm25, vector, rrf")
    result = qrels(
        "--lang", "zh", "pool", "build", "p2", "--systems", "bm25", "--depth", "0", expect=2
    )
    assert result.stderr == "错误：depth 必须是不小于 1 的整数，实际为 0\n"
    result = qrels("pool", "build", "p2", "--systems", "run:missing", "--depth", "3", expect=2)
    assert "unknown run 'missing'" in result.stderr


@pytest.mark.parametrize(
    "options, named",
    [
        (["--embeddings-url", "http://127.0.0.1:9/v1"], "--embeddings-url"),
        (["--api-key-env", "E_API_KEY", "--query-model", "q"], "--api-key-env, --query-model"),
        (["--passage-prefix", "passage: ", "--query-prefix", "query: "], "--passage-prefix, "),
        (["--embeddings-batch", "8"], "--embeddings-batch"),
    ],
)
def test_an_endpoints_option_without_an_openai_encoder_is_refused(qrels, tmp_path, options, named):
    # It used to build a TF-IDF pool and store the option nothing read.
    qrels("init")
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(CORPUS)), "--corpus-version", "c1")
    qrels("import", "queries", write(tmp_path, "q.jsonl", jsonl(QUERIES)), "--query-set", "qs1")
    build = ["pool", "build", "kt", "--systems", "bm25,vector", "--depth", "5", *options]
    result = qrels(*build, expect=2)
    assert result.stderr.startswith(f"error: only --encoder openai:MODEL reads {named}")
    assert "the encoder is 'tfidf-svd'" in result.stderr
    assert "--encoder openai:MODEL 会读取" in qrels("--lang", "zh", *build, expect=2).stderr
    assert "pools\n  (none)" in qrels("status").output  # nothing written


def test_serve_runs_streamlit_without_its_full_collection_after_every_page_run(
    tmp_path, monkeypatch
):
    """One process serves every session: Streamlit's collection of every generation after
    each run held the GIL for some 130 ms, over the libraries' objects, after every key,
    and the other annotators' keys waited (benchmarks/served_keys.py). ``qrels serve``
    turns it off, by an option this Streamlit still knows."""
    import os
    import socket

    from streamlit import config

    started = []
    # the command each app process runs (two behind the front; one with --process)
    monkeypatch.setattr(
        "annotator.cli.serving.serve_two",
        lambda command, *args, **kwargs: started.append(command(8501, "127.0.0.1")),
    )
    monkeypatch.setattr(os, "execve", lambda path, args, env: started.append(args))
    niced = []  # the leads' process's priority: as the annotators' unless told
    monkeypatch.setattr("annotator.cli.serving.lower_priority", niced.append)
    result = CliRunner().invoke(cli, ["--db", f"sqlite:///{tmp_path / 'q.db'}", "init"])
    assert result.exit_code == 0, result.output
    with socket.socket() as spare:  # a port free now, as a user's 8501 may not be
        spare.bind(("127.0.0.1", 0))
        port = str(spare.getsockname()[1])
    db = f"sqlite:///{tmp_path / 'q.db'}"
    for process in (
        [],
        ["--process", "annotators"],
        ["--process", "leads"],
        ["--process", "leads", "--leads-niceness", "5"],
    ):
        result = CliRunner().invoke(cli, ["--db", db, "serve", "--port", port, *process])
        assert result.exit_code == 0, result.output
    assert len(started) == 4 and niced == [5]
    for arguments in started:
        at = arguments.index("--runner.postScriptGC")
        assert arguments[at + 1] == "false"
    assert "runner.postScriptGC" in config.get_config_options()
    # No watching of the app's sources: it cost most of a page's time (docs/benchmarks.md).
    at = arguments.index("--server.fileWatcherType")
    assert arguments[at + 1] == "none"
    # No banner of an inner port: qrels serve names the address to open.
    at = arguments.index("--logger.hideWelcomeMessage")
    assert (
        arguments[at + 1] == "true" and "logger.hideWelcomeMessage" in config.get_config_options()
    )
    # Nor each inner process's "Uvicorn server started on 127.0.0.1:PORT" (an INFO line).
    at = arguments.index("--logger.level")
    assert arguments[at + 1] == "warning" and "logger.level" in config.get_config_options()


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_serve_and_demo_on_a_taken_port_say_so_and_name_port(tmp_path, monkeypatch, command):
    """A second app on the port of a running one: the command says the port is taken and
    names ``--port`` with a free one, exit 2, and starts nothing (the demo loads nothing)."""
    import os
    import socket

    started = []
    monkeypatch.setattr(os, "execve", lambda path, args, env: started.append(args))
    monkeypatch.setattr("annotator.cli.serving.serve_two", lambda *a, **k: started.append(a))
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'q.db'}"
    assert CliRunner().invoke(cli, ["--db", db, "init"]).exit_code == 0
    with socket.create_server(("127.0.0.1", 0)) as running:  # listening, as an app would
        port = running.getsockname()[1]
        arguments = ["serve"] if command == "serve" else ["demo", "--dir", "d"]
        for lang, words in (("en", "is already in use"), ("zh", "已被占用")):
            result = CliRunner().invoke(
                cli, ["--lang", lang, "--db", db, *arguments, "--port", str(port)]
            )
            assert result.exit_code == 2, result.output
            assert words in result.stderr and f"{port}" in result.stderr
            assert "--port " in result.stderr
            suggested = int(result.stderr.rsplit("--port ", 1)[1].split()[0])
            assert suggested != port
    assert not started
    assert not (tmp_path / "d").exists()
