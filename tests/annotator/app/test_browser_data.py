"""A lead's imports in Chromium at 1366×768, in English and Chinese (issue 40): a zip of a
folder of documents, a question file and a run, each uploaded from the Data page and found
in the database; an unsafe zip is refused on the page and writes nothing."""

from __future__ import annotations

import pytest
from sqlmodel import select

from storage.db import make_engine, session_scope
from storage.models import Chunk, CorpusVersion, Query, QuerySet, RunEntry, System
from tests.annotator.app.test_data_imports import PAGES as HANDBOOK
from tests.annotator.app.test_data_imports import zipped
from tests.browser_support import LAPTOP, browser, choose, lead_on, server, until  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

WORDS = {
    "en": {"query_set": "query set", "corpus": "corpus version", "done": "imported",
           "unsafe": "is not a plain path"},
    "zh": {"query_set": "查询集", "corpus": "语料版本", "done": "已导入",
           "unsafe": "不是上传内容中"},
}  # fmt: skip


def stored(url: str):
    """The handbook's chunks, its question set's query ids, and the run's entries."""
    with session_scope(make_engine(url)) as session:
        version = session.exec(select(CorpusVersion).where(CorpusVersion.name == "hb")).first()
        query_set = session.exec(select(QuerySet).where(QuerySet.name == "mine")).first()
        system = session.exec(select(System).where(System.name == "mine-run")).first()
        chunks = [] if version is None else session.exec(
            select(Chunk.chunk_id).where(Chunk.corpus_version_id == version.id)
        ).all()  # fmt: skip
        queries = [] if query_set is None else session.exec(
            select(Query.query_id).where(Query.query_set_id == query_set.id)
        ).all()  # fmt: skip
        entries = [] if system is None else session.exec(
            select(RunEntry).where(RunEntry.system_id == system.id)
        ).all()  # fmt: skip
        return sorted(chunks), sorted(queries), len(entries)


def send(page, form: str, name: str, data: bytes, mime: str = "text/plain") -> None:
    files = page.locator(f".st-key-data_{form}_file{'s' if form == 'documents' else ''} input")
    files.set_input_files(files=[{"name": name, "mimeType": mime, "buffer": data}])
    page.get_by_text(name, exact=True).first.wait_for(timeout=30_000)  # the upload landed


def submit(page, form: str, words: str) -> None:
    page.locator(f".st-key-data_{form}_submit button").click()
    page.locator('[data-testid="stAlert"]').filter(has_text=words).first.wait_for(timeout=60_000)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_lead_imports_documents_questions_and_a_run_from_the_app(
    server,  # noqa: F811 (the fixture)
    browser,  # noqa: F811 (the fixture)
    lang,
):
    address, url = server
    words = WORDS[lang]
    page = browser.new_page(viewport=LAPTOP)
    lead_on(page, address, lang, "data")
    # An unsafe zip first: refused, on the page, and nothing written.
    send(page, "documents", "evil.zip", zipped({"../x.md": "# x"}), "application/zip")
    page.locator(".st-key-data_version input").fill("hb")
    submit(page, "documents", words["unsafe"])
    assert stored(url) == ([], [], 0)
    send(page, "documents", "handbook.zip", zipped(HANDBOOK), "application/zip")
    page.locator(".st-key-data_version input").fill("hb")
    submit(page, "documents", words["done"])
    until(lambda: stored(url)[0] == ["brakes.md#0", "sub/lights.html#0", "tyres.txt#0"])
    send(page, "queries", "questions.txt", b"How often are pads checked?\nTyre pressure?\n")
    page.locator(".st-key-data_query_set input").fill("mine")
    submit(page, "queries", words["done"])
    until(lambda: len(stored(url)[1]) == 2)
    run = "".join(f"{q} Q0 brakes.md#0 1 2.0 x\n" for q in stored(url)[1]).encode()
    page.reload()  # the run's choices now offer the new versions
    send(page, "run", "mine-run.trec", run)
    choose(page, words["query_set"], "mine")
    choose(page, words["corpus"], "hb")
    submit(page, "run", words["done"])
    until(lambda: stored(url)[2] == 2)
