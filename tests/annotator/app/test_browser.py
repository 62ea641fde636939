"""The app in a real browser: headless Chromium (Debian's package) driven by Playwright,
against ``qrels serve`` on a database of its own (the harness is tests/browser_support.py)."""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest
from sqlmodel import select

from storage.db import make_engine, session_scope
from storage.models import CandidateSource, Chunk, PoolCandidate
from tests.browser_support import (
    XSS_IMG,
    XSS_SCRIPT,
    click_until,
    idle,
    judgments,
    log_in,
    passage,
    press_until_saved,
    serving,
    settle,
)
from tests.conftest import run_qrels, write
from tests.storage.test_imports import jsonl

pytestmark = pytest.mark.browser


def manual_finds(url: str, name: str) -> list[str]:
    """The chunks ``name`` added to the pool from the search box."""
    with session_scope(make_engine(url)) as session:
        return list(
            session.exec(
                select(Chunk.chunk_id)
                .join(PoolCandidate, PoolCandidate.chunk_id == Chunk.id)
                .join(CandidateSource, CandidateSource.candidate_id == PoolCandidate.id)
                .where(CandidateSource.system == f"manual:{name}")
            ).all()
        )


def test_grading_by_keyboard_going_back_manual_search_and_a_second_annotator(
    server, browser, tmp_path
):
    address, url = server
    # What `qrels serve` printed: its own address, and no inner process's port.
    said = next(tmp_path.glob("serve-*.log")).read_text(encoding="utf-8")
    assert f"starting the app at {address}" in said and "Uvicorn server started" not in said
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    log_in(page, address, "ann1")
    assert page.get_by_text("Deploy", exact=True).count() == 0  # Streamlit's own menu

    # Manual search: typing digits in the search box does not grade anything.
    page.get_by_text("Search the corpus").click()
    box = page.get_by_label("Search words")
    box.fill("tea 3 cold")
    box.press("Enter")
    idle(page)
    click_until(
        page.get_by_role("button", name="Add to this query").first,
        lambda: bool(manual_finds(url, "ann1")),
    )
    page.get_by_text("Added: it will be judged like any other passage.").wait_for(timeout=20_000)
    assert judgments(url, "ann1") == []

    # A note, then Esc to leave the field, then grade with keys alone.
    seen, keys = [], ["2", "1", "3", "0"]
    settle(page)
    for _ in range(10):  # `n` moves into the note once the redraw after the search is done
        page.keyboard.press("n")
        if page.evaluate("document.activeElement.tagName") == "TEXTAREA":
            break
        page.wait_for_timeout(300)
    first = passage(page)
    page.keyboard.type("secret note by ann1")
    page.keyboard.press("Escape")
    for key in keys:
        seen.append(passage(page))
        press_until_saved(page, url, "ann1", key)
    page.get_by_text("Nothing left for you").wait_for(timeout=20_000)
    # The passage ann1 added is judged by the others, never offered to its finder (issue 21,
    # item 5: adding a passage the systems had found and a new one look the same).
    assert len(set(seen)) == 4 and seen[0] == first
    assert not any("Green tea" in text for text in seen)

    # Passages with markup are shown as text, and nothing in them ran.
    assert any(XSS_SCRIPT in text for text in seen)
    assert any(XSS_IMG in text for text in seen)
    assert page.evaluate("window.__xss") is None

    made = judgments(url, "ann1")
    assert [grade for _, grade, _, _ in made] == [2, 1, 3, 0]
    assert made[0][2] == "secret note by ann1"
    assert manual_finds(url, "ann1") == ["tea"]

    # Go back to the last item and change its grade: a new revision, the old one kept.
    page.locator(".st-key-previous button").wait_for(timeout=20_000)
    page.wait_for_timeout(400)
    page.keyboard.press("b")
    page.get_by_text("Reviewing an earlier item (4 of 4)").wait_for(timeout=20_000)
    settle(page)
    page.keyboard.press("3")
    page.get_by_text("Nothing left for you").wait_for(timeout=20_000)
    last = [row for row in judgments(url, "ann1") if row[0] == made[-1][0]]
    assert [(grade, revision) for _, grade, _, revision in last] == [(0, 1), (3, 2)]

    page.get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="Log in").wait_for(timeout=20_000)

    # The second annotator sees none of the first one's grades or notes.
    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    log_in(other, address, "ann2")
    for _ in range(5):
        body = other.locator("body").inner_text()
        assert "Your grade" not in body and "secret note by ann1" not in body
        assert "ann1" not in body and "manual" not in body
        press_until_saved(other, url, "ann2", "1")
    other.get_by_text("Nothing left for you").wait_for(timeout=20_000)
    assert [grade for _, grade, _, _ in judgments(url, "ann2")] == [1] * 5


def grade_everything(page, url: str, name: str, key: str) -> int:
    count = 0
    while not page.get_by_text("Nothing left for you").count():
        press_until_saved(page, url, name, key)
        count += 1
    return count


def test_disagreement_adjudicated_in_the_browser_then_released_and_verified(
    server, browser, tmp_path
):
    import zipfile

    from pooling.release_folder import verify_release

    address, url = server
    for name, key in (("ann1", "3"), ("ann2", "0")):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        log_in(page, address, name)
        assert grade_everything(page, url, name, key) == 4
        page.close()

    lead = browser.new_page(viewport={"width": 1400, "height": 1200})
    log_in(lead, address, "boss")
    lead.get_by_role("link", name="Adjudication").click()
    lead.get_by_text("4 candidates need a decision").wait_for(timeout=30_000)
    for remaining in (3, 2, 1, 0):
        expected = (
            f"{remaining} candidates need a decision" if remaining else "Nothing needs a decision."
        )
        for _ in range(3):  # a click while the page is still redrawing may be lost: retry
            lead.wait_for_timeout(800)
            lead.locator(".st-key-final_grade").get_by_text("2", exact=True).click()
            lead.get_by_label("Rationale (required)").fill("evidence, but partial")
            lead.get_by_label("Rationale (required)").press("Enter")
            lead.wait_for_timeout(300)
            lead.locator(".st-key-decide button").click()
            try:
                lead.get_by_text(expected).wait_for(timeout=15_000)
                break
            except Exception:
                continue
        lead.get_by_text(expected).wait_for(timeout=15_000)

    lead.get_by_role("link", name="Releases").click()
    lead.get_by_label("Release version").fill("v1")
    lead.get_by_role("button", name="Create release").click()
    lead.get_by_text("Release v1 written to").wait_for(timeout=30_000)
    with lead.expect_download() as download_info:
        lead.get_by_role("button", name="Download v1 (zip)").click()
    archive = tmp_path / "download.zip"
    download_info.value.save_as(archive)
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(tmp_path / "downloaded")
    assert (tmp_path / "releases" / "v1" / "manifest.json").is_file()
    release = tmp_path / "downloaded" / "v1"
    assert verify_release(release) == []
    grades = [line.split()[3] for line in (release / "qrels.trec").read_text().splitlines()]
    assert grades == ["2", "2", "2", "2"]
    result = subprocess.run(
        [sys.executable, "-m", "annotator.cli", "release", "verify", str(release)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and "intact" in result.stdout
    (release / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tpads\t3\n")
    result = subprocess.run(
        [sys.executable, "-m", "annotator.cli", "release", "verify", str(release)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "qrels.tsv: sha256 differs" in result.stderr


@pytest.fixture
def active_server(tmp_path, database):
    """The solar corpus of the active pooling tests, ranked by one run in its order (the
    perovskite passages come late), in an active pool with a budget of 7; one annotator."""
    from tests.pooling.test_active import QUERY, TEXTS

    url, add_user = database
    qrels = functools.partial(run_qrels, url)
    corpus = [{"_id": f"c{i}", "title": "", "text": text} for i, text in enumerate(TEXTS)]
    run = "".join(f"q1 Q0 c{i} {i + 1} {20 - i} r\n" for i in range(len(TEXTS)))
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(corpus)), "--corpus-version", "c")
    queries = write(tmp_path, "q.jsonl", jsonl([{"_id": "q1", "text": QUERY}]))
    qrels("import", "queries", queries, "--query-set", "q")
    qrels("import", "run", write(tmp_path, "r.trec", run), "--system", "r")
    qrels("pool", "build", "p", "--systems", "run:r", "--strategy", "active", "--budget", "7")
    add_user("ann1", "annotator")
    add_user("boss", "lead")
    with serving(url, tmp_path) as address:
        yield address, url


def test_an_active_pool_in_the_browser(active_server, browser):
    """The annotator is asked about the budget's worth of passages, the perovskite ones
    right after the first is graded relevant, and sees nothing of why; the lead sees the
    query stopped by its budget."""
    address, url = active_server
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    log_in(page, address, "ann1")
    seen = []
    while not page.get_by_text("Nothing left for you").count():
        seen.append(passage(page))
        body = page.locator("body").inner_text().lower()
        for word in ("budget", "active", "chosen", "estimate", "rank", "score", "run:r"):
            assert word not in body, word
        press_until_saved(page, url, "ann1", "3" if "perovskite" in seen[-1] else "0")
    assert len(seen) == 7
    relevant = [i for i, text in enumerate(seen) if "perovskite" in text]
    assert len(relevant) == 3 and relevant == list(range(relevant[0], relevant[0] + 3))

    lead = browser.new_page(viewport={"width": 1400, "height": 1200})
    log_in(lead, address, "boss")
    lead.get_by_role("link", name="Pools").click()
    lead.get_by_text("Active pooling: where each query stands").wait_for(timeout=30_000)
    # The table is behind the chart's toggle. The grid is drawn on a canvas; its cells are
    # also in a table for screen readers.
    figure = lead.locator(".st-key-figure_active")
    figure.get_by_text("Show the table behind this chart").click()
    cells = figure.locator(".stDataFrame td")
    cells.first.wait_for(state="attached", timeout=20_000)
    row = cells.all_text_contents()
    assert row[:4] == ["q1", "7/7", "7", "3"] and row[-1] == "stopped: budget spent", row
