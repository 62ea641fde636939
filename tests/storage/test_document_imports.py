"""A folder of PDF and Word files imports as a corpus version: chunks with their spans,
each document keeping where its pages and sections begin, so that an annotator sees the
page and heading of a passage; a page without text is named, and an encrypted or broken
file writes nothing. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotator.auth import add_user
from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from pooling.document_places import place_of
from pooling.readers import InputError
from storage.db import session_scope
from storage.imports import import_corpus, import_queries, import_run
from storage.models import Chunk, Document
from tests.conftest import run_text, snapshot, write
from tests.pooling.made_documents import encrypt_pdf, make_docx, make_pdf
from tests.storage.test_bad_input import seeded  # noqa: F401  (a fixture)

PAGE_ONE = ["Brakes wear out when the bike is ridden in the rain.", "Check the pads monthly."]
PAGE_THREE = ["绿茶应当密封冷藏，放在冰箱里。", "红茶常温避光保存即可。"]


def documents(folder):
    folder.mkdir()
    make_pdf(folder / "guide.pdf", [PAGE_ONE, None, PAGE_THREE], title="Bike and tea")
    make_docx(
        folder / "manual.docx",
        [
            ("heading1", "Setup"),
            ("text", "Plug it in."),
            ("heading1", "刹车"),
            ("text", "每月检查刹车片，磨损超过一半就更换。雨天骑行之后，要把刹车擦干再存放。"),
        ],
    )
    return folder


def test_pdf_and_word_files_import_with_pages_and_sections(engine, tmp_path):
    folder = documents(tmp_path / "docs")
    with session_scope(engine) as session:
        result = import_corpus(folder, session=session, version="v1", chunk_size=40)
    assert ("pages_without_text", {"file": "guide.pdf", "pages": "2"}) in result.notes
    with session_scope(engine) as session:
        docs = {d.doc_id: d for d in session.exec(select(Document)).all()}
        chunks = session.exec(select(Chunk).order_by(Chunk.document_id, Chunk.position)).all()
        places = {
            c.chunk_id: place_of(docs_by_key[c.document_id].meta, c.span_start, c.span_end)
            for docs_by_key in [{d.id: d for d in docs.values()}]
            for c in chunks
        }
    guide = docs["guide.pdf"]
    assert guide.title == "Bike and tea"
    assert guide.meta["format"] == "pdf" and guide.meta["pages_without_text"] == [2]
    assert [page for _, page in guide.meta["pages"]] == [1, 3]
    assert docs["manual.docx"].meta["sections"][1][1] == "刹车"
    pages = [places[c.chunk_id].pages() for c in chunks if c.chunk_id.startswith("guide")]
    assert pages[0] == "1" and pages[-1] == "3" and len(pages) >= 3
    tea = next(c for c in chunks if c.text.startswith("绿茶"))
    assert places[tea.chunk_id].label("zh") == "第 3 页"
    # A chunk is under the heading it starts under.
    heading = docs["manual.docx"].meta["sections"][1][0]
    manual = [c for c in chunks if c.chunk_id.startswith("manual")]
    assert {places[c.chunk_id].section for c in manual if c.span_start < heading} == {"Setup"}
    assert {places[c.chunk_id].section for c in manual if c.span_start >= heading} == {"刹车"}
    with session_scope(engine) as session:  # the same folder again: the same version
        assert not import_corpus(folder, session=session, version="v1", chunk_size=40).created


def test_an_annotator_sees_the_page_and_section_of_a_passage(engine, tmp_path):
    folder = documents(tmp_path / "docs")
    with session_scope(engine) as session:
        import_corpus(folder, session=session, version="v1", chunk_size=40)
        import_queries(
            write(tmp_path, "q.txt", "How to keep green tea?\n"), session=session, name="q"
        )
        tea = session.exec(select(Chunk).where(Chunk.text.startswith("绿茶"))).one().chunk_id
        brakes = session.exec(select(Chunk).order_by(Chunk.id.desc())).first().chunk_id
        run = run_text([("q1", tea), ("q1", brakes)])
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
        user = add_user("ann", "annotator", "password-1", session=session).id
    build_pool(engine, "p", systems="run:r", depth=2)
    seen = {}
    for _ in range(2):
        item = assignment.next_item(engine, "p", user)
        seen[item.chunk_id] = item.place.label("en")
        assignment.submit(engine, item, user, grade=1)
    assert seen == {tea: "page 3", brakes: "刹车"}


@pytest.mark.parametrize("damage", ["encrypted", "truncated", "truncated-docx"])
def test_an_encrypted_or_broken_file_writes_nothing(seeded, tmp_path, damage):  # noqa: F811
    folder = documents(tmp_path / "docs")
    if damage == "encrypted":
        bad = encrypt_pdf(folder / "guide.pdf", folder / "locked.pdf")
    elif damage == "truncated":
        bad = folder / "cut.pdf"
        bad.write_bytes((folder / "guide.pdf").read_bytes()[:700])
    else:
        bad = folder / "cut.docx"
        bad.write_bytes((folder / "manual.docx").read_bytes()[:2000])
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        import_corpus(folder, session=session, version="c-new")
    assert caught.value.message("en").startswith(f"{bad}: ")
    assert caught.value.message("zh").startswith(f"{bad}：")
    assert snapshot(seeded) == before


def test_a_release_keeps_each_chunks_page_and_section(engine, tmp_path):
    from annotator.releases import releases
    from pooling.release_folder import read_chunk_places, read_manifest, verify_release

    folder = documents(tmp_path / "docs")
    with session_scope(engine) as session:
        import_corpus(folder, session=session, version="v1", chunk_size=40)
        import_queries(write(tmp_path, "q.txt", "Green tea?\n"), session=session, name="q")
        chunks = session.exec(select(Chunk).order_by(Chunk.id)).all()
        run = run_text([("q1", c.chunk_id) for c in chunks])
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
    build_pool(engine, "p", systems="run:r", depth=len(chunks))
    releases.create_release(engine, "r1", "p", tmp_path / "out", allow_unresolved=True)
    release = tmp_path / "out" / "r1"
    assert verify_release(release) == []
    assert "chunk-places.tsv" in read_manifest(release)["files"]
    places = read_chunk_places(release)
    tea = next(c.chunk_id for c in chunks if c.text.startswith("绿茶"))
    assert places[tea] == ("3", "")
    assert places[chunks[-1].chunk_id] == ("", "刹车")
    assert set(places) == {c.chunk_id for c in chunks}  # every chunk has a page or a section


def test_a_release_of_a_corpus_without_places_has_no_places_file(engine, tmp_path):
    from annotator.releases import releases
    from pooling.release_folder import read_chunk_places, read_manifest, verify_release

    corpus = '{"_id": "a", "text": "Green tea keeps cold."}\n'
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", corpus), session=session, version="v1")
        import_queries(write(tmp_path, "q.txt", "Green tea?\n"), session=session, name="q")
        import_run(write(tmp_path, "r.trec", run_text([("q1", "a")])), session=session, system="r")
    build_pool(engine, "p", systems="run:r", depth=1)
    releases.create_release(engine, "r1", "p", tmp_path / "out", allow_unresolved=True)
    release = tmp_path / "out" / "r1"
    assert verify_release(release) == [] and read_chunk_places(release) == {}
    assert "chunk-places.tsv" not in read_manifest(release)["files"]
