"""Issue 12, item 6: corpus text was rendered as Markdown in places. A document title shown
with ``st.caption``: ``![p](http://host/pixel.png)`` made the annotator's browser fetch the
URL, ``:red[x]`` and ``$\\frac{a}{b}$`` rendered; query ids in adjudication messages and
slice tags on the Agreement page too. Here every string that came from a file or a user
(titles, ids, slices, notes, rationales, names, a file name) carries that payload, and on
every page it must reach the user only in elements that show text as text."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotator.auth import add_user
from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.quality.pool_quality import record_decision
from storage import accounts
from storage.db import session_scope
from storage.imports import import_corpus, import_queries, import_run
from tests.annotator.app.test_app import literal
from tests.conftest import write
from tests.storage.test_imports import jsonl

PAGES = Path(__file__).resolve().parents[2] / "annotator" / "app" / "pages"
MARK = "pixel.png"
PAYLOAD = f"![p](http://127.0.0.1:9/{MARK}):red[x]$\\frac{{a}}{{b}}$"  # no spaces: an id
# Elements that show a string as it is; alerts may hold it only escaped (ui.as_text).
# Vega-Lite draws strings as SVG text and its tooltips escape HTML (vega-tooltip's sanitize).
AS_TEXT = {"text", "code", "dataframe", "selectbox", "text_input", "text_area", "vega_lite_chart"}
ALERTS = {"error", "warning", "info", "success"}


def markup_shown(at: AppTest) -> list[str]:
    """Where the payload reaches an element that would render it as Markdown."""
    found, seen = [], False
    # The mark as it is, or escaped for Markdown (ui.as_text), as the proto's text shows it.
    marks = (MARK, MARK.replace(".", "\\."), MARK.replace(".", "\\\\."))
    for node in at._tree:
        if not any(mark in str(getattr(node, "proto", "")) for mark in marks):
            continue
        seen = True
        if node.type in ALERTS:
            literal(node)  # fails unless the whole message is fenced
        elif node.type not in AS_TEXT:
            found.append(f"{node.type}: {node.proto}")
    assert seen, "the payload never reached the page: the test would prove nothing"
    return found


@pytest.fixture
def marked(tmp_path, monkeypatch) -> str:
    """A database whose every user-given string carries the payload; returns its URL."""
    from storage.db import make_engine, upgrade

    url = f"sqlite:///{tmp_path / 'qrels.db'}"
    monkeypatch.setenv("QRELS_DATABASE_URL", url)
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    monkeypatch.setenv("QRELS_LANG", "en")
    engine = make_engine(url)
    upgrade(engine)
    corpus = [
        {"_id": f"c{i}{PAYLOAD}", "title": f"Title {PAYLOAD}", "text": f"brake pads {i}"}
        for i in range(3)
    ]
    queries = [{"_id": f"q{PAYLOAD}", "text": f"brakes {PAYLOAD}", "notes": PAYLOAD}]
    queries[0]["slices"] = [PAYLOAD]
    run = "".join(f"q{PAYLOAD} Q0 c{i}{PAYLOAD} {i + 1} {3 - i} r\n" for i in range(3))
    names = [f"ann{PAYLOAD}", f"bob{PAYLOAD}"]
    with session_scope(engine) as session:
        import_corpus(write(tmp_path, "c.jsonl", jsonl(corpus)), session=session, version="c")
        import_queries(write(tmp_path, "q.jsonl", jsonl(queries)), session=session, name="q")
        import_run(write(tmp_path, "r.trec", run), session=session, system="r")
        ids = [add_user(n, "annotator", "password-1", session=session).id for n in names]
        lead = add_user(f"boss{PAYLOAD}", "lead", "password-1", session=session).id
    build_pool(engine, f"p{PAYLOAD}", systems="run:r", depth=3)
    for uid, grade in zip(ids, (3, 0), strict=True):
        while (item := assignment.next_item(engine, f"p{PAYLOAD}", uid)) is not None:
            assignment.submit(engine, item, uid, grade=grade, note=f"note {PAYLOAD}")
    key = (f"q{PAYLOAD}", f"c0{PAYLOAD}")
    record_decision(engine, f"p{PAYLOAD}", key, 2, f"why {PAYLOAD}", lead, "threshold")
    st.cache_resource.clear()
    return url


def opened(url: str, page: str, user: str, **state) -> AppTest:
    with session_scope(__import__("storage.db").db.make_engine(url)) as session:
        uid = accounts.get_user(f"{user}{PAYLOAD}", session=session).id
    at = AppTest.from_file(str(PAGES / page), default_timeout=60)
    at.session_state["user_id"] = uid
    for name, value in state.items():
        at.session_state[name] = value
    return at.run()


def as_text(where: str, at: AppTest) -> None:
    assert not at.exception, (where, at.exception)
    assert markup_shown(at) == [], where


def test_nothing_from_a_file_or_a_user_is_rendered_as_markdown(marked, tmp_path):
    as_text("label", opened(marked, "label_page.py", "ann"))
    for page in ("team_progress_page.py", "my_progress_page.py", "pools_page.py"):
        as_text(page, opened(marked, page, "boss"))
    adjudication = opened(marked, "adjudication_page.py", "boss")
    adjudication.toggle[1].set_value(True).run()  # include decided: the current decision
    as_text("adjudication, decided", adjudication)
    adjudication.radio(key="final_grade").set_value(1)
    adjudication.text_input(key="rationale").input(f"again {PAYLOAD}")
    adjudication.button(key="decide").click().run()  # "Recorded: <query> / <chunk> → 1"
    as_text("adjudication, recorded", adjudication)
    agreement = opened(marked, "agreement_page.py", "boss")
    as_text("agreement by slice", agreement.radio(key="agreement_by").set_value("slice").run())
    releases = opened(marked, "releases_page.py", "boss")
    releases.text_input[0].input("v1")
    releases.checkbox[0].check()
    releases.button[0].click().run()
    releases.file_uploader(key="coverage_run").set_value(
        (f"{PAYLOAD}.trec", b"not a run\n", "text/plain")
    )
    as_text("releases, a bad upload", releases.run())


def test_an_alert_shows_even_a_message_built_to_break_out_as_text():
    """Backticks to close the code span early, a blank line to end its paragraph; an
    emoji's shortcode and a bare web address (drawn as an emoji and a link before)."""

    def page():
        from annotator.app import ui

        breakout = "a `` b ``` c\n\n![p](http://127.0.0.1:9/pixel.png) :red[x]\r\n$x$ ` :smile: https://x.example"
        for kind in ("error", "warning", "info", "success"):
            ui.plain(breakout, kind)

    at = AppTest.from_function(page).run()
    assert not at.exception and markup_shown(at) == []
    shown = (
        "a `` b ``` c  ![p](http://127.0.0.1:9/pixel.png) :red[x] $x$ ` :smile: https://x.example"
    )
    assert literal(at.error[0]) == shown
