"""A lead's imports from the app (issue 40), on both backends and without Streamlit:
documents (a zip of a folder, or files), questions and a run, each found in the database
as ``qrels import`` would store it; an annotator's call is refused; bad input writes
nothing and is named by its place in the upload; a zip cannot write outside the server's
folder (zip-slip, links) nor unpack without end (a zip bomb)."""

from __future__ import annotations

import io
import stat
import tempfile
import zipfile

import pytest
from sqlmodel import select

import annotator.app.page_messages  # noqa: F401  (registers the upload messages)
from annotator.app import data_imports, uploads
from annotator.auth import add_user
from pooling.i18n import LocalizedError, Refused
from pooling.readers import InputError
from storage.db import session_scope
from storage.models import Chunk, CorpusVersion, Document, Query, QuerySet, RunEntry, System

PAGES = {
    "handbook/brakes.md": "# Brakes\n\nPads wear out after 2000 km. Check them monthly.\n",
    "handbook/tyres.txt": "Tyres\nKeep them at 4 bar.\n",
    "handbook/sub/lights.html": "<html><title>Lights</title><p>Charge them weekly.</p></html>",
}
QUESTIONS = b"How often are pads checked?\nWhat pressure for tyres?\n"


def zipped(members: dict[str, bytes | str], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


@pytest.fixture
def people(engine):
    with session_scope(engine) as session:
        boss = add_user("boss", "lead", "secret-password", session=session).id
        ann = add_user("ann", "annotator", "secret-password", session=session).id
    return boss, ann


def table_counts(engine) -> dict[str, int]:
    with session_scope(engine) as session:
        return {
            model.__name__: len(session.exec(select(model)).all())
            for model in (CorpusVersion, Document, Chunk, QuerySet, Query, System, RunEntry)
        }


def test_a_lead_imports_documents_questions_and_a_run(engine, people):
    boss, _ = people
    result = data_imports.import_documents(
        engine, [("handbook.zip", zipped(PAGES))], version="v1", chunk_size=40, by=boss
    )
    assert result.created and result.counts["documents"] == 3
    with session_scope(engine) as session:
        ids = sorted(session.exec(select(Document.doc_id)).all())
        chunks = session.exec(select(Chunk.chunk_id)).all()
    # The zip's one folder stands for the folder: ids as `qrels import corpus handbook/`.
    assert ids == ["brakes.md", "sub/lights.html", "tyres.txt"]
    assert "brakes.md#1" in chunks  # chunked at 40 characters
    loose = [("a.md", b"# A\n\nalpha"), ("b.txt", b"beta")]
    data_imports.import_documents(engine, loose, version="v2", by=boss)
    with session_scope(engine) as session:
        v2 = session.exec(select(CorpusVersion).where(CorpusVersion.name == "v2")).one()
        assert v2.documents == 2
    queries = data_imports.import_queries(engine, "q.txt", QUESTIONS, query_set="qs", by=boss)
    assert queries.counts["queries"] == 2
    with session_scope(engine) as session:
        query_ids = sorted(session.exec(select(Query.query_id)).all())
    run = "".join(f"{q} Q0 brakes.md#0 1 2.0 mine\n" for q in query_ids).encode()
    imported = data_imports.import_run(
        engine, "mine.trec", run, system="mine", query_set="qs", corpus_version="v1", by=boss
    )
    assert imported.counts == {"entries": 2, "queries": 2}
    assert table_counts(engine)["RunEntry"] == 2
    lines = data_imports.import_summary(imported, "run", "zh")
    assert lines == ["已导入系统“mine”的运行结果：2 条查询共 2 条结果"]
    again = data_imports.import_queries(engine, "q.txt", QUESTIONS, query_set="qs", by=boss)
    assert "identical content" in data_imports.import_summary(again, "queries", "en")[0]


def test_an_annotator_imports_nothing(engine, people):
    _, ann = people
    before = table_counts(engine)
    with pytest.raises(Refused):
        data_imports.import_documents(engine, [("d.zip", zipped(PAGES))], version="v", by=ann)
    with pytest.raises(Refused):
        data_imports.import_queries(engine, "q.txt", QUESTIONS, query_set="qs", by=ann)
    with pytest.raises(Refused):
        data_imports.import_run(engine, "r.trec", b"q1 Q0 a 1 1 x\n", system="r", by=ann)
    assert table_counts(engine) == before


def test_a_bad_file_is_named_by_its_place_in_the_upload_and_writes_nothing(engine, people):
    boss, _ = people
    bad = {**PAGES, "handbook/bad.txt": "fine\nnot \x07 fine\n"}
    before = table_counts(engine)
    with pytest.raises(InputError) as raised:
        data_imports.import_documents(engine, [("h.zip", zipped(bad))], version="v", by=boss)
    assert raised.value.message("en").startswith("bad.txt, line 2")
    assert tempfile.gettempdir() not in raised.value.message("en")
    with pytest.raises(InputError) as raised:
        data_imports.import_documents(
            engine, [("notes.zip", zipped({"x.bin": b"\x00"}))], version="v", by=boss
        )
    assert raised.value.message("zh").startswith("notes.zip")
    with pytest.raises(InputError, match=r"^q\.csv"):
        data_imports.import_queries(engine, "q.csv", b"id,question\n1,x\n", query_set="s", by=boss)
    data_imports.import_documents(engine, [("h.zip", zipped(PAGES))], version="v", by=boss)
    data_imports.import_queries(engine, "q.txt", QUESTIONS, query_set="qs", by=boss)
    with pytest.raises(InputError, match=r"^r\.trec, line 1.*not in query set"):
        data_imports.import_run(
            engine, "r.trec", b"nope Q0 brakes.md#0 1 1 x\n", system="r", by=boss
        )
    assert table_counts(engine)["System"] == before["System"]


UNSAFE = ["../escaped.md", "/etc/escaped.md", "a/../../escaped.md", "C:/escaped.md", "a\\..\\x.md"]


@pytest.mark.parametrize("name", UNSAFE)
def test_a_zip_slip_is_refused_and_writes_nowhere(name, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "spool" / "deeper"))
    (tmp_path / "spool" / "deeper").mkdir(parents=True)
    with (
        pytest.raises(InputError, match="not a plain path"),
        uploads.document_folder([("evil.zip", zipped({"ok.md": "# ok", name: "x"}))]),
    ):
        pass
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["deeper", "spool"]


def test_a_link_in_a_zip_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with (
        pytest.raises(InputError, match="is a link"),
        uploads.document_folder([("l.zip", zipped({"a.md": "a"}, {"b.md": "/etc/passwd"}))]),
    ):
        pass
    assert list(tmp_path.iterdir()) == []


def test_a_zip_bomb_stops_at_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(uploads, "UNPACKED_BYTES", 1_000_000)
    bomb = zipped({f"{i}.txt": b"0" * 600_000 for i in range(4)})
    assert len(bomb) < 10_000  # it says little and unpacks to 2.4 MB
    with (
        pytest.raises(InputError, match="unpacks to more than"),
        uploads.document_folder([("bomb.zip", bomb)]),
    ):
        pass
    monkeypatch.setattr(uploads, "MEMBERS_LIMIT", 3)
    with (
        pytest.raises(InputError, match="more than 3 files"),
        uploads.document_folder([("many.zip", zipped({f"{i}.md": "x" for i in range(4)}))]),
    ):
        pass
    assert list(tmp_path.iterdir()) == []


def test_loose_files_keep_only_their_last_name_and_are_not_given_twice(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with uploads.document_folder([("../../up.md", b"a"), ("dir\\b.txt", b"b")]) as folder:
        assert folder.path.parent == tmp_path and str(folder) == "../../up.md, dir\\b.txt"
        assert sorted(p.name for p in folder.path.iterdir()) == ["b.txt", "up.md"]
    for files in ([("..", b"a")], [("a.md", b"a"), ("a.md", b"b")], [("x.zip", b"no zip")]):
        with pytest.raises(LocalizedError), uploads.document_folder(files):
            pass
    assert list(tmp_path.iterdir()) == []


def unflagged(name: str, encoding: str) -> bytes:
    """A zip holding ``name`` as a writer that sets no UTF-8 bit would: its bytes in
    ``encoding`` (Python's zipfile flags every non-ASCII name, so the bytes are put in after)."""
    raw = name.encode(encoding)
    stand_in = b"x" * len(raw)
    data = zipped({stand_in.decode(): "# 清洁\n\n每天冲洗滴水盘。"})
    assert data.count(stand_in) == 2  # the local header and the central directory
    return data.replace(stand_in, raw)


@pytest.mark.parametrize("encoding", ["utf-8", "gbk"])
def test_a_zip_without_the_utf8_bit_keeps_its_chinese_names(encoding, tmp_path, monkeypatch):
    # zip on Linux and macOS writes UTF-8 names without the bit, Windows in Chinese GBK:
    # zipfile reads both as cp437, and the document's id became 'faq/µ╕àµ┤ü.md'.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with uploads.document_folder([("docs.zip", unflagged("faq/清洁.md", encoding))]) as folder:
        assert [p.name for p in folder.path.rglob("*.md")] == ["清洁.md"]
    with (
        pytest.raises(InputError, match="not a plain path"),
        uploads.document_folder([("evil.zip", unflagged("../清洁.md", encoding))]),
    ):
        pass
