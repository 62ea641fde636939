"""Issue 36, items 3 and 6, on what comes in: ``import corpus DIR`` followed links out of the
folder (an outside file became a document; ``/dev/zero`` was read until MemoryError); no
file or query had a size limit (a 40 MB file took 468 MB); error messages printed the
control characters of file names raw to the terminal; bidi and other format characters
(U+202E, zero-width) were taken in ids and names. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sqlmodel import select

from pooling.readers import MAX_QUERY_TEXT, InputError, read_queries
from storage.db import session_scope
from storage.models import Chunk
from tests.conftest import run_qrels, snapshot, write

SECRET = "the outside secret: salaries of 2026"


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")


def linked_folder(root: Path) -> Path:
    """A folder with one document, a link inside it to that document, and what must not be
    read: links to a file outside and to /dev/zero, a FIFO, a broken link."""
    outside = write(root, "secret.md", f"# Secret\n\n{SECRET}\n")
    folder = root / "docs"
    folder.mkdir()
    write(folder, "guide.md", "# Guide\n\nPress the power button.\n")
    (folder / "alias.md").symlink_to(folder / "guide.md")
    (folder / "leak.md").symlink_to(outside)
    (folder / "zero.txt").symlink_to("/dev/zero")
    (folder / "gone.md").symlink_to(root / "nowhere.md")
    os.mkfifo(folder / "pipe.md")
    return folder


def test_a_folder_reads_only_regular_files_inside_it_and_names_the_rest(engine, tmp_path):
    folder = linked_folder(tmp_path)
    url = engine.url.render_as_string(hide_password=False)
    output = run_qrels(url, "import", "corpus", folder, "--corpus-version", "c").output
    # A link to a device leads out of the folder too.
    assert "2 files passed over (links that lead out of the folder): leak.md, zero.txt" in output
    assert (
        "2 files passed over (not regular files: FIFOs, devices, sockets, broken links): "
        "gone.md, pipe.md"
    ) in output
    with session_scope(engine) as session:
        chunks = dict(session.exec(select(Chunk.chunk_id, Chunk.text)).all())
    assert sorted(chunks) == ["alias.md#0", "guide.md#0"]  # a link inside the folder is read
    assert SECRET not in str(snapshot(engine))


def test_the_skipped_files_are_named_in_chinese_too(tmp_path):
    from pooling.document_folder import read_corpus_source
    from pooling.i18n import t

    notes: list[tuple[str, dict]] = []
    read_corpus_source(linked_folder(tmp_path), False, notes)
    shown = [t(key, "zh", **params) for key, params in notes]
    assert "跳过 2 个文件（指向文件夹之外的链接）：leak.md, zero.txt" in shown


def test_a_device_or_fifo_given_as_the_file_is_refused_before_it_is_read(engine, tmp_path):
    url = engine.url.render_as_string(hide_password=False)
    before = snapshot(engine)
    result = run_qrels(url, "import", "queries", "/dev/zero", "--query-set", "q", expect=2)
    assert "/dev/zero: not a regular file" in result.output + result.stderr
    os.mkfifo(tmp_path / "pipe.jsonl")  # opening it must not wait for a writer
    result = run_qrels(
        url, "import", "corpus", tmp_path / "pipe.jsonl", "--corpus-version", "c", expect=2
    )
    assert "not a regular file" in result.output + result.stderr
    assert snapshot(engine) == before


def test_a_file_over_the_limit_is_refused_whole_and_nothing_is_written(
    engine, tmp_path, monkeypatch
):
    url = engine.url.render_as_string(hide_password=False)
    line = json.dumps({"_id": "d", "text": "x" * 1000})
    corpus = write(
        tmp_path, "big.jsonl", "".join(line.replace('"d"', f'"d{i}"') + "\n" for i in range(1500))
    )
    monkeypatch.setenv("QRELS_FILE_LIMIT_MB", "1")
    before = snapshot(engine)
    result = run_qrels(url, "import", "corpus", corpus, "--corpus-version", "c", expect=2)
    said = result.output + result.stderr
    assert f"{corpus}: the file is 1.5 MB, more than the 1 MB read at most" in said
    assert "QRELS_FILE_LIMIT_MB" in said
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "big.md", "word " * 300_000)
    result = run_qrels(url, "import", "corpus", folder, "--corpus-version", "c", expect=2)
    assert "big.md: the file is 1.4 MB" in result.output + result.stderr
    assert snapshot(engine) == before


@pytest.mark.parametrize("name", ["queries.jsonl", "questions.txt", "questions.csv"])
def test_a_query_longer_than_the_limit_is_refused_with_its_line(engine, tmp_path, name):
    url = engine.url.render_as_string(hide_password=False)
    long = "why " * (MAX_QUERY_TEXT // 4 + 1)
    content = {
        "queries.jsonl": json.dumps({"_id": "q1", "text": "short"})
        + "\n"
        + json.dumps({"_id": "q2", "text": long})
        + "\n",
        "questions.txt": f"short\n{long}\n",
        "questions.csv": f"text\n{long}\n",
    }[name]
    length = len(long) if name == "queries.jsonl" else len(long.strip())
    before = snapshot(engine)
    result = run_qrels(
        url, "import", "queries", write(tmp_path, name, content), "--query-set", "q", expect=2
    )
    said = result.output + result.stderr
    assert f"line 2, field 'text': the query's text is {length}" in said
    assert f"at most {MAX_QUERY_TEXT} are accepted" in said
    assert snapshot(engine) == before


def test_control_characters_of_a_file_name_are_escaped_in_errors(tmp_path):
    path = write(tmp_path, "q\x1b[2J\u202e.jsonl", "{not json\n")
    with pytest.raises(InputError) as raised:
        read_queries(path)
    for lang in ("en", "zh"):
        shown = raised.value.message(lang)
        assert "\x1b" not in shown and "\u202e" not in shown
        assert "q\\x1b[2J\\u202e.jsonl" in shown


def test_the_names_of_skipped_files_are_escaped_too(tmp_path):
    from pooling.document_folder import read_corpus_source

    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "a.md", "# A\n\ntext\n")
    write(folder, "evil\x1b]0;owned\x07.png", b"\x89PNG")
    notes: list[tuple[str, dict]] = []
    read_corpus_source(folder, False, notes)
    assert notes[0][1]["files"] == "evil\\x1b]0;owned\\x07.png"


HIDDEN = ["\u202e", "\u200b", "\u200d", "\u00ad", "\ufeff", "\u2066"]


@pytest.mark.parametrize("character", HIDDEN)
def test_format_characters_are_refused_in_query_and_chunk_ids(engine, tmp_path, character):
    url = engine.url.render_as_string(hide_password=False)
    code = f"U+{ord(character):04X}"
    before = snapshot(engine)
    queries = write(
        tmp_path,
        "q.jsonl",
        '{"_id": "q1", "text": "a"}\n' + json.dumps({"_id": f"q{character}2", "text": "b"}) + "\n",
    )
    result = run_qrels(url, "import", "queries", queries, "--query-set", "q", expect=2)
    assert (
        f"line 2, field '_id': holds the invisible format character {code}"
        in result.output + result.stderr
    )
    corpus = write(
        tmp_path, "c.jsonl", json.dumps({"_id": f"gpj{character}.txt", "text": "b"}) + "\n"
    )
    result = run_qrels(url, "import", "corpus", corpus, "--corpus-version", "c", expect=2)
    assert (
        f"line 1, field '_id': holds the invisible format character {code}"
        in result.output + result.stderr
    )
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, f"report{character}.md", "# R\n\ntext\n")
    result = run_qrels(url, "import", "corpus", folder, "--corpus-version", "c", expect=2)
    assert (
        f"the file name holds the invisible format character {code}"
        in result.output + result.stderr
    )
    assert snapshot(engine) == before


@pytest.mark.parametrize("character", HIDDEN)
def test_format_characters_are_refused_in_names(engine, tmp_path, character):
    url = engine.url.render_as_string(hide_password=False)
    code = f"U+{ord(character):04X}"
    queries = write(tmp_path, "q.jsonl", '{"_id": "q1", "text": "warm printer"}\n')
    corpus = write(tmp_path, "c.jsonl", '{"_id": "d1", "text": "the printer warms up"}\n')
    password = write(tmp_path, "password", "a-long-password-1\n")
    before = snapshot(engine)
    for args in (
        ("import", "queries", queries, "--query-set", f"set{character}"),
        ("import", "corpus", corpus, "--corpus-version", f"admin{character}"),
        ("user", "add", f"lead{character}", "--role", "lead", "--password-file", password),
    ):
        result = run_qrels(url, *args, expect=2)
        assert f"holds the invisible format character {code}" in result.output + result.stderr, args
    assert snapshot(engine) == before
    run_qrels(url, "import", "queries", queries, "--query-set", "q")
    run_qrels(url, "import", "corpus", corpus, "--corpus-version", "c")
    result = run_qrels(
        url, "pool", "build", f"p{character}", "--systems", "bm25", "--depth", "1", expect=2
    )
    assert f"holds the invisible format character {code}" in result.output + result.stderr


def test_every_message_that_names_a_file_or_folder_escapes_its_control_characters(engine, tmp_path):
    from pooling.i18n import LocalizedError, t

    named = Path(tmp_path / "rel\x1b[31m\u202e")
    for error in (
        LocalizedError("release_folder_exists", folder=named),
        LocalizedError("password_file_empty", file=str(named)),
    ):
        for lang in ("en", "zh"):
            shown = error.message(lang)
            assert "\x1b" not in shown and "\u202e" not in shown
            assert "rel\\x1b[31m\\u202e" in shown
    # Not only errors: what a command says it did (qrels evaluate --out's folder).
    for lang in ("en", "zh"):
        shown = t("eval_written", lang, folder=named)
        assert "\x1b" not in shown and "rel\\x1b[31m\\u202e" in shown
    empty = write(tmp_path, "pass\x1b[2J", "")
    url = engine.url.render_as_string(hide_password=False)
    result = run_qrels(
        url, "user", "add", "lead", "--role", "lead", "--password-file", empty, expect=2
    )
    said = result.output + result.stderr
    assert "\x1b" not in said and "pass\\x1b[2J" in said
