"""The app's pages with Streamlit's AppTest: who sees what, and that the labeling page
shows what the plain modules compute."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotator.app import ui
from annotator.labeling import assignment, page_position
from storage import accounts
from storage.db import make_engine, session_scope
from storage.models import Chunk, Judgment

APP = Path(__file__).resolve().parents[3] / "annotator" / "app"
SHELL = APP / "shell.py"  # the entry `qrels serve` runs
PAGES = APP / "pages"
LEAD_PAGES = [
    "team_progress_page.py",
    "pools_page.py",
    "adjudication_page.py",
    "agreement_page.py",
    "releases_page.py",
    "evaluate_page.py",
    "judge_page.py",
    "accounts_page.py",
    "data_page.py",
]
ALL_PAGES = ["label_page.py", "my_progress_page.py", *LEAD_PAGES]


def user_id(url: str, name: str) -> int:
    with session_scope(make_engine(url)) as session:
        return accounts.get_user(name, session=session).id


def page(name: str, url: str, as_user: str | None = None) -> AppTest:
    at = AppTest.from_file(str(PAGES / name), default_timeout=60)
    if as_user is not None:
        at.session_state["user_id"] = user_id(url, as_user)
    return at.run()


def lead_page(name: str, url: str, lang: str = "en") -> AppTest:
    """Page ``name`` run for the demo's lead, in ``lang``."""
    at = AppTest.from_file(str(PAGES / name), default_timeout=60)
    at.session_state["user_id"] = user_id(url, "lead")
    at.session_state["lang"] = lang
    return at.run()


def item_button(at: AppTest, name: str):
    """The labeling page's button ``name`` (``grade_3``, ``unsure``, ``skip``) of the item
    on the page: its key carries the item's identity (``label_page.item_key``)."""
    return next(b for b in at.button if b.key and b.key.startswith(f"{name}_"))


def shown_text(at: AppTest) -> str:
    """What the page shows, as a person reads it: Markdown's escapes (``ui.as_text``) undone
    in the elements that render Markdown."""
    rendered = [
        e.value for kind in ("markdown", "caption", "info", "success", "warning", "error")
        for e in getattr(at, kind)
    ]  # fmt: skip
    rendered += [b.label for b in at.button]
    rendered += [p.proto.text for p in at.get("progress")]
    parts = [e.value for e in at.text] + [re.sub(ESCAPED, r"\1", str(p)) for p in rendered]
    return "\n".join(str(p) for p in parts)


MARKUP = r"[\\`*_\[\]<>!&$|~#:]"  # what could start Markdown: ui.as_text escapes each
ESCAPED = r"\\([!-/:-@\[-`{-~])"  # a backslash before ASCII punctuation: that character


def literal(alert) -> str:
    """The text of an alert that shows a message quoting user input (``ui.plain``): on one
    line, every character that could start Markdown escaped by a backslash, so that none
    of it is read as Markdown (and none of it is drawn as code)."""
    value = alert.value
    assert "\n" not in value and "\r" not in value, value
    assert re.fullmatch(rf"(?:{ESCAPED}|(?!{MARKUP}).)*", value), value
    return re.sub(ESCAPED, r"\1", value)


def log_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(password)
    return at.button[0].click().run()


def test_a_logged_out_visitor_sees_only_the_login_form(demo_url):
    at = AppTest.from_file(str(SHELL), default_timeout=60).run()
    assert not at.exception
    assert [w.label for w in at.text_input] == ["User name", "Password"]
    assert [b.label for b in at.button] == ["Log in"]
    assert "Relevance rubric" not in shown_text(at)


def test_the_apps_first_run_freezes_the_libraries_out_of_the_collections(demo_url):
    """Every session of a process waits while a full garbage collection holds the GIL: with
    the libraries' objects frozen at the first run, one takes milliseconds, not 130 ms
    (benchmarks/served_keys.py). Altair is imported by then, for the lead pages."""
    import gc
    import sys

    at = AppTest.from_file(str(SHELL), default_timeout=60).run()
    assert not at.exception
    assert "altair" in sys.modules
    assert gc.get_freeze_count() > 50_000


def test_a_wrong_password_is_refused(demo_url):
    at = log_in(AppTest.from_file(str(SHELL), default_timeout=60).run(), "annotator1", "nope")
    assert at.error[0].value.startswith("Wrong user name or password")
    assert "user_id" not in at.session_state


def test_an_annotator_logs_in_and_sees_an_item_but_no_system_or_rank(demo_url):
    at = log_in(
        AppTest.from_file(str(SHELL), default_timeout=60).run(),
        "annotator1",
        "demo-annotator-1",
    )
    assert not at.exception
    text = shown_text(at)
    assert "Relevance rubric" in text and "This query: 0 /" in text
    assert [b.key.rsplit("_", 2)[0] for b in at.button if (b.key or "").startswith("grade_")] == [
        "grade_0",
        "grade_1",
        "grade_2",
        "grade_3",
    ]  # each key also names the item (issue 20)
    for hidden in ("bm25", "rrf", "vector", "provenance", "score", "rank"):
        assert hidden not in text.lower()


@pytest.mark.parametrize("name", ALL_PAGES)
def test_a_logged_out_visitor_opening_any_page_gets_no_content(demo_url, name):
    at = page(name, demo_url)
    assert [w.value for w in at.warning] == ["Please log in first."]
    assert not at.dataframe and not at.button and not at.text


@pytest.mark.parametrize("name", LEAD_PAGES)
def test_an_annotator_opening_a_lead_page_is_refused(demo_url, name):
    at = page(name, demo_url, as_user="annotator1")
    assert [e.value for e in at.error] == [
        "This page is for leads only. Your account cannot open it."
    ]
    assert not at.dataframe and not at.get("progress")


# The Evaluate page shows figures only once there is a release and a run: its own tests
# (test_evaluation.py) open it with and without them.
@pytest.mark.parametrize("name", [p for p in LEAD_PAGES if p != "evaluate_page.py"])
def test_a_lead_opens_lead_pages(demo_url, name):
    at = page(name, demo_url, as_user="lead")
    assert not at.exception and not at.error
    assert at.dataframe or at.success or at.info or at.get("vega_lite_chart")


def test_the_lead_pages_show_what_the_modules_compute(demo_url):
    from annotator.quality.progress import team_figures

    engine = make_engine(demo_url)
    uid = user_id(demo_url, "annotator1")
    for grade in (1, 2):
        assignment.submit(engine, assignment.next_item(engine, "demo-pool", uid), uid, grade=grade)
    at = page("team_progress_page.py", demo_url, as_user="lead")
    at.toggle(key="table_throughput").set_value(True).run()
    table = team_figures(engine, "demo-pool").table
    shown = at.dataframe[0].value
    assert list(shown.iloc[:, 0]) == list(table["annotator"]) == ["annotator1"]
    assert list(shown.iloc[:, 1]) == [2]


def test_my_progress_for_an_annotator(demo_url):
    engine = make_engine(demo_url)
    uid = user_id(demo_url, "annotator2")
    item = assignment.next_item(engine, "demo-pool", uid)
    assignment.submit(engine, item, uid, unsure=True, note="two readings")
    at = page("my_progress_page.py", demo_url, as_user="annotator2")
    frame = at.dataframe[0].value
    assert frame.to_dict("records") == [
        {"query": item.query_id, "question": item.query_text, "judged": 1, "unsure": 1}
    ]


def test_grading_on_the_page_writes_a_judgment(demo_url):
    at = page("label_page.py", demo_url, as_user="annotator1")
    item_button(at, "grade_3").click().run()
    assert not at.exception
    engine = make_engine(demo_url)
    judged = assignment.judged_items(engine, "demo-pool", user_id(demo_url, "annotator1"))
    assert [i.grade for i in judged] == [3]
    assert "This query: 1 /" in shown_text(at)


def test_a_key_sooner_than_anyone_could_read_the_item_writes_nothing(demo_url, monkeypatch):
    """Issue 36: a grade that reaches the server less than ``SEEN_SECONDS`` after it drew
    the item (the page's own guard missing, or a script) writes nothing and says so; the
    same key a moment later is saved."""
    monkeypatch.setattr(page_position, "SEEN_SECONDS", 0.2)
    at = page("label_page.py", demo_url, as_user="annotator1")
    item_button(at, "grade_3").click().run()  # milliseconds after the item was drawn
    engine, annotator = make_engine(demo_url), user_id(demo_url, "annotator1")
    assert assignment.judged_items(engine, "demo-pool", annotator) == []
    assert any("Key not applied" in toast.value for toast in at.toast)
    time.sleep(0.25)
    item_button(at, "grade_3").click().run()
    assert [i.grade for i in assignment.judged_items(engine, "demo-pool", annotator)] == [3]
    with session_scope(engine) as session:
        assert session.exec(select(Judgment.seconds)).one() >= 0.2


def test_each_item_has_its_own_buttons_and_a_revision_says_what_was_saved(demo_url):
    """Issue 20: the buttons of one item are never the buttons of the next (their keys
    carry the item), and a new grade on an earlier item says what it replaced."""
    at = page("label_page.py", demo_url, as_user="annotator1")
    first = item_button(at, "grade_3").key
    item_button(at, "grade_3").click().run()
    assert item_button(at, "grade_3").key != first
    at.button(key="previous").click().run()
    assert "Reviewing an earlier item (1 of 1)" in shown_text(at)
    assert item_button(at, "grade_3").key != first  # the same item, a new revision
    item_button(at, "grade_1").click().run()
    assert "Saved 1 on earlier item 1, replacing 3" in " ".join(s.value for s in at.success)
    engine = make_engine(demo_url)
    judged = assignment.judged_items(engine, "demo-pool", user_id(demo_url, "annotator1"))
    assert [(i.grade, i.revision) for i in judged] == [(1, 2)]


def test_unsure_without_a_note_asks_for_one(demo_url):
    at = page("label_page.py", demo_url, as_user="annotator1")
    item_button(at, "unsure").click().run()
    assert "Write a note saying why you are unsure" in shown_text(at)
    engine = make_engine(demo_url)
    assert assignment.judged_items(engine, "demo-pool", user_id(demo_url, "annotator1")) == []


def test_the_page_speaks_chinese(demo_url):
    at = AppTest.from_file(str(PAGES / "label_page.py"), default_timeout=60)
    at.session_state["user_id"] = user_id(demo_url, "annotator1")
    at.session_state["lang"] = "zh"
    at.run()
    text = shown_text(at)
    assert "相关性标注规则" in text and "跳过 (s)" in text and "本查询：" in text


def test_a_disabled_account_is_logged_out_at_the_next_render(demo_url):
    at = page("label_page.py", demo_url, as_user="annotator1")
    assert not at.warning
    with session_scope(make_engine(demo_url)) as session:
        accounts.disable_user("annotator1", session=session)
    at.run()
    assert [w.value for w in at.warning] == ["Please log in first."]


def test_a_lead_builds_and_tops_up_a_pool_in_the_app(demo_url):
    at = page("pools_page.py", demo_url, as_user="lead")
    build = [w for w in at.text_input if w.label == "Pool name"][0]
    build.input("second")
    systems = [w for w in at.text_input if w.label.startswith("Systems")][0]
    systems.input("bm25")
    at.button[[b.label for b in at.button].index("Build")].click().run()
    assert not at.exception
    assert any("pool 'second':" in literal(s) for s in at.success), [e.value for e in at.error]
    at = page("pools_page.py", demo_url, as_user="lead")
    systems = [w for w in at.text_input if w.label.startswith("Systems")][1]
    systems.input("vector")
    at.button[[b.label for b in at.button].index("Top up")].click().run()
    assert any("new candidates" in s.value for s in at.success), [e.value for e in at.error]
    at = page("pools_page.py", demo_url, as_user="lead")
    bad = [w for w in at.text_input if w.label.startswith("Systems")][1]
    bad.input("splade")
    at.button[[b.label for b in at.button].index("Top up")].click().run()
    assert [literal(e) for e in at.error] == [
        "unknown system 'splade'; valid: bm25, vector, rrf, combsum, combmnz, run:<name>"
    ]


def test_a_lead_builds_an_active_pool_and_sees_where_each_query_stands(demo_url):
    at = page("pools_page.py", demo_url, as_user="lead")
    [w for w in at.text_input if w.label == "Pool name"][0].input("active")  # default systems
    [w for w in at.checkbox if w.label.startswith("Active pooling")][0].check()
    [w for w in at.number_input if w.label.startswith("Active: judgments")][0].set_value(3)
    at.button[[b.label for b in at.button].index("Build")].click().run()
    assert any("pool 'active':" in literal(s) for s in at.success), [e.value for e in at.error]
    assert not at.exception
    first = assignment.next_item(make_engine(demo_url), "active", user_id(demo_url, "annotator1"))
    assert first is not None
    at = page("pools_page.py", demo_url, as_user="lead")
    [s for s in at.selectbox if s.label == "Pool"][0].select("active").run()
    at.toggle(key="table_active").set_value(True).run()
    table = at.dataframe[-1].value
    assert list(table.columns) == [
        "query",
        "chosen / budget",
        "judged",
        "relevant found",
        "estimated relevant left",
        "state",
    ]
    assert "1/3" in set(table["chosen / budget"]) and set(table["state"]) == {"going on"}


def disagree(url: str) -> tuple[str, str]:
    """annotator1 and annotator2 grade the same first candidate 3 and 0."""
    engine = make_engine(url)
    one, two = user_id(url, "annotator1"), user_id(url, "annotator2")
    first = assignment.next_item(engine, "demo-pool", one)
    assignment.submit(engine, first, one, grade=3, note="says it outright")
    while True:
        item = assignment.next_item(engine, "demo-pool", two)
        if (item.query_id, item.chunk_id) == (first.query_id, first.chunk_id):
            assignment.submit(engine, item, two, grade=0, note="wrong product")
            return first.query_id, first.chunk_id
        assignment.skip(engine, item, two)


def test_a_lead_adjudicates_a_disagreement(demo_url, monkeypatch):
    query_id, chunk_id = disagree(demo_url)
    counted = []
    queue = ui.FIGURES["adjudication"]
    monkeypatch.setitem(ui.FIGURES, "adjudication", lambda *a: counted.append(a) or queue(*a))
    at = page("adjudication_page.py", demo_url, as_user="lead")
    assert at.selectbox(key="candidate").value == (query_id, chunk_id)
    text = shown_text(at)
    assert "#1: 3  — says it outright" in text and "#2: 0  — wrong product" in text
    assert "annotator1" not in text  # names hidden by default
    at.radio(key="final_grade").set_value(2)
    at.text_input(key="rationale").input("partly answers")
    at.button(key="decide").click().run()
    assert not at.exception
    assert f"Recorded: {query_id} / {chunk_id} → 2" in shown_text(at)
    assert "Nothing needs a decision." in shown_text(at)  # decided: out of the queue
    # The decision changed the data: the queue is drawn again from the kept tables
    # (annotator.quality.kept.figures), reading the decision and nothing older.
    assert len(counted) == 2
    at.toggle(key="include_resolved").set_value(True).run()
    at.selectbox(key="candidate").set_value((query_id, chunk_id)).run()
    assert "Current decision: 2 (partly answers)" in shown_text(at)
    from storage.history import latest_adjudications
    from storage.pool_records import get_pool

    with session_scope(make_engine(demo_url)) as session:
        decisions = latest_adjudications(get_pool("demo-pool", session=session), session=session)
    assert decisions[(query_id, chunk_id)][:3] == (2, "partly answers", "lead")


def test_the_agreement_page_shows_the_modules_figures(demo_url):
    disagree(demo_url)
    at = page("agreement_page.py", demo_url, as_user="lead")
    assert not at.exception
    pairs = at.dataframe[0].value  # a row per figure of the pair, in the page's words
    assert set(pairs["pair"]) == {"annotator1 × annotator2"}
    assert list(pairs.columns) == ["pair", "shared", "measure", "value"]
    quadratic = pairs[pairs["measure"] == "quadratic weighted kappa"]
    assert quadratic["value"].tolist() == ["undefined: fewer than two shared items"]
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")


def test_a_lead_creates_and_downloads_a_release(demo_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    disagree(demo_url)
    at = page("releases_page.py", demo_url, as_user="lead")
    at.text_input[0].input("v1")
    at.button[0].click().run()
    refused = at.error[0].value
    assert "candidates are unresolved" in refused
    # The page's own control, never the command's option (issue 25).
    assert at.checkbox[0].label in refused and "--allow-unresolved" not in refused
    at.checkbox[0].check()
    at.button[0].click().run()
    assert not at.exception and "Release v1 written to" in at.success[0].value
    from pooling.release_folder import verify_release

    assert verify_release(tmp_path / "releases" / "v1") == []
    assert at.get("download_button")


def test_a_lead_reads_a_new_runs_coverage_and_tops_up_the_pool(demo_url, tmp_path, monkeypatch):
    from annotator.releases.releases import create_release
    from pooling.release_folder import read_qrels

    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    engine = make_engine(demo_url)
    one, two = user_id(demo_url, "annotator1"), user_id(demo_url, "annotator2")
    first = assignment.next_item(engine, "demo-pool", one)
    assignment.submit(engine, first, one, grade=2)
    item = assignment.next_item(engine, "demo-pool", two)
    while (item.query_id, item.chunk_id) != (first.query_id, first.chunk_id):
        assignment.skip(engine, item, two)
        item = assignment.next_item(engine, "demo-pool", two)
    assignment.submit(engine, item, two, grade=2)  # the release holds this one candidate
    release = tmp_path / "releases" / "v1"
    create_release(engine, "v1", "demo-pool", release.parent, policy="any", allow_unresolved=True)
    query, judged = next((q, list(c)) for q, c in read_qrels(release).items())
    with session_scope(engine) as session:
        unjudged = next(c for c in session.exec(select(Chunk.chunk_id)) if c not in judged)
    ranking = [*judged, unjudged]
    run = "".join(f"{query} Q0 {c} {i} {9 - i} new\n" for i, c in enumerate(ranking, start=1))

    at = page("releases_page.py", demo_url, as_user="lead")
    at.file_uploader(key="coverage_run").set_value(("new.trec", run.encode(), "text/plain"))
    at.run()
    assert not at.exception, at.exception
    overall = at.dataframe[-2].value
    assert list(overall["k"]) == [5, 10, 20]
    expected = len(judged) / len(ranking)  # Judged@k of the one query the release holds
    assert overall["Judged@k"].tolist() == pytest.approx([expected] * 3)
    assert at.dataframe[-1].value[["query", "chunk"]].values.tolist() == [[query, unjudged]]
    at.button(key="coverage_add").click().run()
    assert "1 new candidates" in at.success[0].value, [s.value for s in at.success]


def test_no_module_of_the_app_shadows_one_its_libraries_import():
    """Streamlit puts the entry's folder (annotator/app/) first on sys.path: a module there
    named like one that a library imports, even optionally (numba tries `coverage`), would
    replace it."""
    import subprocess
    import sys

    code = (
        f"import sys; sys.path.insert(0, {str(APP)!r}); "
        "import annotator.app.ui, annotator.app.charts, annotator.app.uploads, "
        "annotator.labeling.search, annotator.releases.releases, annotator.quality.agreement, "
        "annotator.evaluation.evaluation, annotator.evaluation.comparison, "
        "annotator.evaluation.evaluation_report, "
        "pooling.retrievers, numba, sklearn, bm25s, altair, ir_measures, pytrec_eval"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def guided_demo_pool(url: str, tmp_path: Path) -> None:
    """Active pool ``guided`` of the demo, guided by model account ``llm-guide`` that
    grades every other candidate 2."""
    from annotator.labeling.guidance import guide_pool
    from annotator.pools.pool_building import build_pool
    from storage.imports import import_judgments
    from storage.models import PoolCandidate, Query
    from storage.pool_records import get_pool

    engine = make_engine(url)
    build_pool(engine, "guided", systems="bm25,vector", budget=5, active=True, overlap=1)
    with session_scope(engine) as session:
        pool = get_pool("guided", session=session)
        pairs = session.exec(
            select(Query.query_id, Chunk.chunk_id)
            .join(PoolCandidate, PoolCandidate.query_id == Query.id)
            .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
            .where(PoolCandidate.pool_id == pool.id)
        ).all()
    lines = [f"{q}\t0\t{c}\t{2 * (i % 2)}\n" for i, (q, c) in enumerate(pairs)]
    path = tmp_path / "model.qrels"
    path.write_text("".join(lines))
    with session_scope(engine) as session:
        import_judgments(
            path, session=session, annotator="llm-guide", kind="model", rubric_version="v1"
        )
    guide_pool(engine, "guided", "llm-guide")


def test_a_guided_pool_shows_the_lead_how_it_goes_and_annotators_nothing_of_it(demo_url, tmp_path):
    guided_demo_pool(demo_url, tmp_path)
    engine, annotator = make_engine(demo_url), user_id(demo_url, "annotator1")
    for _ in range(4):
        item = assignment.next_item(engine, "guided", annotator)
        assert item is not None
        assert assignment.submit(engine, item, annotator, grade=2)
    at = page("label_page.py", demo_url, as_user="annotator1")
    [s for s in at.selectbox if s.label == "Pool"][0].select("guided").run()
    assert not at.exception
    text = shown_text(at)
    assert "llm-guide" not in text
    assert not re.search(r"guided|exploration|model", text, re.IGNORECASE), text
    at = page("pools_page.py", demo_url, as_user="lead")
    [s for s in at.selectbox if s.label == "Pool"][0].select("guided").run()
    assert not at.exception
    summary = [t.value for t in at.text if "guided by llm-guide" in str(t.value)]
    assert summary and "per 100 judged candidates" in summary[0]
    at.toggle(key="table_guide").set_value(True).run()
    table = at.dataframe[-1].value
    assert list(table.columns)[:3] == ["judged at", "judged", "relevant per 100 judged"]
    assert table["judged"].iloc[-1] == 4
    assert table["relevant per 100 judged"].iloc[-1] == 100.0
