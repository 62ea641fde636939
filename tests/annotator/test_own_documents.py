"""Your own documents in (issue 25): a folder of Markdown, text and HTML files in Chinese and
English and a list of questions, then a pool, grades through the app's functions, a release
and an evaluation; and the import's promises for a folder (one transaction, located errors,
immutable versions), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.labeling import assignment
from storage.accounts import get_user
from storage.db import read_connection, session_scope
from tests.conftest import run_qrels, snapshot, write

DOCUMENTS = {
    "guide/printer.md": "# Warming up the printer\n\nPress the power button and wait: the "
    "printer needs ten minutes to warm up before it prints.\n",
    "借书规则.md": "# 借书规则\n\n每位读者一次最多可以借五本书，借期三周，可以续借一次。\n",
    "hours.html": "<html><head><title>Opening hours</title></head><body><h1>Hours</h1>"
    "<p>The library opens at nine on weekdays and at ten on Saturday.</p>"
    "<script>track()</script></body></html>",
    "notes/wifi.txt": "Wi-Fi\n\nThe guest network is Riverside-Guest; its password is on "
    "the front desk.\n",
    "notes/停车.html": "<h1>停车</h1><p>图书馆后面有二十个免费停车位，晚上十点后关闭。</p>",
}
# Each question, one a line, with the document that answers it.
QUESTIONS = {
    "q1": ("How long does the printer need to warm up?", "guide/printer.md"),
    "q2": ("一次最多可以借几本书？", "借书规则.md"),
    "q3": ("When does the library open on Saturday?", "hours.html"),
    "q4": ("Where is the Wi-Fi password?", "notes/wifi.txt"),
    "q5": ("图书馆有停车位吗？", "notes/停车.html"),
}


def documents_folder(root: Path) -> Path:
    folder = root / "my-documents"
    for name, text in DOCUMENTS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "logo.png").write_bytes(b"\x89PNG")
    return folder


def grade_everything(engine, pool: str, annotator: str) -> int:
    """``annotator`` grades every item the app hands them: 3 for the chunk of the document
    that answers the question, else 0. Returns how many."""
    with session_scope(engine) as session:
        user_id = get_user(annotator, session=session).id
    graded = 0
    while (item := assignment.next_item(engine, pool, user_id)) is not None:
        answer = QUESTIONS[item.query_id][1]
        grade = 3 if item.chunk_id.startswith(answer + "#") else 0
        assert assignment.submit(engine, item, user_id, grade=grade, unsure=False, note="")
        graded += 1
    return graded


def test_a_folder_and_a_question_list_to_a_release_and_an_evaluation(
    engine, db_url, tmp_path, monkeypatch
):
    monkeypatch.setenv("QRELS_LANG", "en")
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    folder = documents_folder(tmp_path)
    questions = write(tmp_path, "questions.txt", "".join(q + "\n" for q, _ in QUESTIONS.values()))

    shown = run_qrels(db_url, "import", "corpus", folder, "--corpus-version", "docs-v1").output
    assert "imported corpus version 'docs-v1': 5 documents, 5 chunks" in shown
    assert "chunking: 800/0" in shown
    assert "passed over (not .md, .txt, .html, .pdf, .docx): logo.png" in shown
    shown = run_qrels(db_url, "import", "queries", questions, "--query-set", "questions-v1")
    assert "imported query set 'questions-v1': 5 queries" in shown.output
    with read_connection(db_url) as connection:
        from storage.status import status

        assert "docs-v1" in str(status(connection))
    run_qrels(db_url, "pool", "build", "first", "--systems", "bm25,vector,rrf", "--depth", "2")
    for name, role in (("lead", "lead"), ("alice", "annotator"), ("bob", "annotator")):
        password = write(tmp_path, f"{name}.txt", f"{name}-password-1\n")
        run_qrels(db_url, "user", "add", name, "--role", role, "--password-file", password)

    alice, bob = (
        grade_everything(engine, "first", "alice"),
        grade_everything(engine, "first", "bob"),
    )
    assert alice == bob > 5  # both judged every candidate: each needs two judgments

    releases = tmp_path / "releases"
    run_qrels(db_url, "release", "create", "v1", "--pool", "first", "--out", releases)
    qrels = (releases / "v1" / "qrels.trec").read_text(encoding="utf-8").splitlines()
    relevant = sorted(line.split()[0:3:2] for line in qrels if line.endswith(" 3"))
    assert relevant == sorted([q, f"{doc}#0"] for q, (_, doc) in QUESTIONS.items())

    # A run that finds every answer first, and one that finds them second.
    chunks = [f"{doc}#0" for doc in DOCUMENTS]
    strong, weak = [], []
    for query, (_, doc) in QUESTIONS.items():
        other = next(chunk for chunk in chunks if chunk != f"{doc}#0")
        for lines, order in ((strong, [f"{doc}#0", other]), (weak, [other, f"{doc}#0"])):
            lines += [f"{query} Q0 {c} {r} {3 - r} run\n" for r, c in enumerate(order, 1)]
    runs = [
        write(tmp_path, "weak.trec", "".join(weak)),
        write(tmp_path, "strong.trec", "".join(strong)),
    ]
    result = run_qrels(
        db_url, "evaluate", "--release", releases / "v1", "--run", runs[0], "--run", runs[1],
        "--name", "weak", "--name", "strong", "--metrics", "mrr@10,recall@1", "--json",
    )  # fmt: skip
    figures = {
        (row["run"], row["metric"]): row["value"]
        for row in json.loads(result.stdout)["summary"]
        if row["group"] == "all"
    }
    assert figures[("strong", "mrr@10")] == 1.0 and figures[("weak", "mrr@10")] == 0.5
    assert figures[("strong", "recall@1")] == 1.0 and figures[("weak", "recall@1")] == 0.0


def test_a_folder_imported_again_is_a_no_op_and_a_changed_one_is_refused(
    engine, db_url, tmp_path, monkeypatch
):
    monkeypatch.setenv("QRELS_LANG", "en")
    folder = documents_folder(tmp_path)
    run_qrels(db_url, "import", "corpus", folder, "--corpus-version", "docs-v1")
    again = run_qrels(db_url, "import", "corpus", folder, "--corpus-version", "docs-v1")
    assert "already in the database with identical content: nothing to do" in again.output
    (folder / "notes" / "wifi.txt").write_text("Wi-Fi\n\nAsk at the desk.\n", encoding="utf-8")
    before = snapshot(engine)
    changed = run_qrels(db_url, "import", "corpus", folder, "--corpus-version", "docs-v1", expect=2)
    assert "already exists with different content" in changed.stderr
    assert snapshot(engine) == before


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes/bad.md", b"fine\n\xff\n", "notes/bad.md, line 2: not valid UTF-8 text"),
        ("empty.txt", b"\n\n", "empty.txt: text is empty"),
    ],
)
def test_a_bad_file_in_a_folder_writes_nothing(
    engine, db_url, tmp_path, monkeypatch, name, content, message
):
    monkeypatch.setenv("QRELS_LANG", "en")
    folder = documents_folder(tmp_path)
    (folder / name).write_bytes(content)
    before = snapshot(engine)
    failed = run_qrels(db_url, "import", "corpus", folder, "--corpus-version", "v", expect=2)
    assert f"error: {folder / message}" in failed.stderr
    assert snapshot(engine) == before
    monkeypatch.setenv("QRELS_LANG", "zh")
    failed = run_qrels(db_url, "import", "corpus", folder, "--corpus-version", "v", expect=2)
    assert str(folder / name) in failed.stderr and "错误" in failed.stderr


def test_a_bad_question_list_writes_nothing(engine, db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    path = write(tmp_path, "questions.csv", "id,text\nq1,Why?\nq1,How?\n")
    before = snapshot(engine)
    failed = run_qrels(db_url, "import", "queries", path, "--query-set", "s", expect=2)
    assert f"error: {path}, line 3, field 'id': duplicate id 'q1'" in failed.stderr
    assert snapshot(engine) == before


def test_documents_beside_a_folder_are_refused(engine, db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    folder = documents_folder(tmp_path)
    docs = write(tmp_path, "docs.jsonl", '{"_id": "d", "text": "t"}\n')
    failed = run_qrels(
        db_url, "import", "corpus", folder, "--corpus-version", "v", "--documents", docs, expect=2
    )
    assert "--documents is for chunk lines of a corpus.jsonl" in failed.stderr
