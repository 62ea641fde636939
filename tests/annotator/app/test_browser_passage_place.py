"""In Chromium, in English and Chinese (issue 38): the labeling page's passage header says
where the passage lies in its document, as imported from a folder of real files: the page
of a PDF's chunk, the section heading of a Word file's and of a Markdown file's.
(tests/annotator/app/test_passage_place.py checks the same with AppTest, for a PDF.)"""

from __future__ import annotations

import functools

import pytest

from tests.browser_support import (  # the fixtures come from it as a plugin (conftest)
    LAPTOP,
    log_in,
    press_until_saved,
    serving,
    settle,
)
from tests.conftest import run_qrels, write
from tests.pooling.made_documents import make_docx, make_pdf

pytestmark = pytest.mark.browser

PAGE_ONE = "Brake pads wear out and must be checked every month by the rider."
PAGE_TWO = "Hydraulic brakes need bleeding once a year to keep the lever firm."
# Each passage's first words, and the end of its header in each language. The Word and
# Markdown files' title is their first heading, the passages' section: said once.
EXPECTED = {
    "Hydraulic brakes": {"en": "Brake manual · page 2", "zh": "Brake manual · 第 2 页"},
    "Storing green tea": {"en": "Storing green tea", "zh": "Storing green tea"},
    "# 绿茶的保存": {"en": "绿茶的保存", "zh": "绿茶的保存"},
}


@pytest.fixture
def documents_pool(tmp_path, database):
    """A folder of a two-page PDF, a Word file and a Chinese Markdown file, imported in
    chunks of 80 characters (one a page of the PDF); a pool of the PDF's second page and
    the other two files' chunks; two annotators, and the app serving it."""
    url, add_user = database
    qrels = functools.partial(run_qrels, url)
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "brakes.pdf", [[PAGE_ONE], [PAGE_TWO]], title="Brake manual")
    make_docx(
        folder / "tea.docx",
        [("heading1", "Storing green tea"), ("text", "Green tea keeps fresh when cold.")],
    )
    (folder / "茶.md").write_text("# 绿茶的保存\n\n绿茶应密封冷藏，避免光照。\n", encoding="utf-8")
    qrels("import", "corpus", folder, "--corpus-version", "v1", "--chunk-size", "80")
    qrels("import", "queries", write(tmp_path, "q.txt", "brakes and tea\n"), "--query-set", "q")
    run = "q1 Q0 brakes.pdf#1 1 3 r\nq1 Q0 tea.docx#0 2 2 r\nq1 Q0 茶.md#0 3 1 r\n"
    qrels("import", "run", write(tmp_path, "r.trec", run), "--system", "r")
    qrels("pool", "build", "p", "--systems", "run:r", "--depth", "3")
    for name in ("ann_en", "ann_zh"):
        add_user(name, "annotator")
    with serving(url, tmp_path) as address:
        yield address, url


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_passage_header_names_the_page_or_the_section(documents_pool, browser, lang):
    address, url = documents_pool
    name = f"ann_{lang}"
    page = browser.new_page(viewport=LAPTOP)
    log_in(page, address, name)
    if lang == "zh":
        page.locator('[data-testid="stSidebar"]').get_by_text("中文", exact=True).click()
        page.locator(".st-key-grade_3 button").get_by_text("直接回答").first.wait_for(
            timeout=20_000
        )
        settle(page)
    headers = {}
    for turn in range(len(EXPECTED)):
        passage = page.locator(".st-key-passage").inner_text()
        first = next(words for words in EXPECTED if passage.strip().startswith(words))
        headers[first] = page.locator(".st-key-passage_heading").inner_text().strip()
        if turn < len(EXPECTED) - 1:  # after the last, nothing is left to judge
            press_until_saved(page, url, name, "1")
    for first, ends in EXPECTED.items():
        assert headers[first].endswith(ends[lang]), headers
        assert headers[first].count(ends[lang].split(" · ")[0]) == 1, headers
    # The PDF's chunk names its page, not the document's other page too.
    assert "1" not in headers["Hydraulic brakes"].rsplit("·", 1)[1], headers
