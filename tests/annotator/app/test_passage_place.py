"""The labeling page's passage header says where the passage lies in its document: the
page of a PDF and the heading of a Word, Markdown or HTML section (``Item.place``)."""

from __future__ import annotations

from sqlmodel import select

from annotator.auth import add_user
from annotator.pools.pool_building import build_pool
from storage.db import make_engine, session_scope, upgrade
from storage.imports import import_corpus, import_queries, import_run
from storage.models import Chunk
from tests.annotator.app.test_app import page, shown_text
from tests.conftest import run_text, write
from tests.pooling.made_documents import make_pdf


def test_the_passage_header_names_its_page(tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    url = f"sqlite:///{tmp_path / 'qrels.db'}"
    monkeypatch.setenv("QRELS_DATABASE_URL", url)
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "guide.pdf", [["Brakes wear out."], None, ["Green tea keeps cold."]])
    engine = make_engine(url)
    upgrade(engine)
    with session_scope(engine) as session:
        import_corpus(folder, session=session, version="v1")
        import_queries(write(tmp_path, "q.txt", "Green tea?\n"), session=session, name="q")
        chunk = session.exec(select(Chunk)).one().chunk_id
        import_run(
            write(tmp_path, "r.trec", run_text([("q1", chunk)])), session=session, system="r"
        )
        add_user("ann", "annotator", "password-1", session=session)
    build_pool(engine, "p", systems="run:r", depth=1)
    at = page("label_page.py", url, as_user="ann")
    shown = shown_text(at)
    assert "pages 1-3" in shown and "Green tea keeps cold." in shown


def test_a_text_files_long_first_line_is_cut_to_a_line_in_the_header(tmp_path, monkeypatch):
    # A .txt file's title is its first line, here a whole paragraph: the header says its
    # first words, not the paragraph the passage's box shows again.
    monkeypatch.setenv("QRELS_LANG", "en")
    url = f"sqlite:///{tmp_path / 'qrels.db'}"
    monkeypatch.setenv("QRELS_DATABASE_URL", url)
    folder = tmp_path / "docs"
    folder.mkdir()
    first = "The warranty covers manufacturing defects for two years " * 3
    (folder / "warranty.txt").write_text(f"{first.strip()}\n\nSend the receipt.\n")
    engine = make_engine(url)
    upgrade(engine)
    with session_scope(engine) as session:
        import_corpus(folder, session=session, version="v1")
        import_queries(write(tmp_path, "q.txt", "Warranty?\n"), session=session, name="q")
        import_run(
            write(tmp_path, "r.trec", run_text([("q1", "warranty.txt#0")])),
            session=session,
            system="r",
        )
        add_user("ann", "annotator", "password-1", session=session)
    build_pool(engine, "p", systems="run:r", depth=1)
    at = page("label_page.py", url, as_user="ann")
    [heading] = [t.value for t in at.text if t.value.startswith("Passage · from: ")]
    assert len(heading) == len("Passage · from: ") + 80 and heading.endswith("…")
    assert first.strip() in shown_text(at)  # the passage itself, whole
