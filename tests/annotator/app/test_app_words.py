"""The app never asks a person to type a command, and its feedback is where the person
looks (issue 25): the app's own words for errors, the adjudication page's button feedback,
default grade and counts, gold items on the Pools page, and ``status``'s systems."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from annotator.app import ui
from annotator.pools.pool_figures import pool_figures
from annotator.quality import adjudication, gold, pool_quality
from pooling.i18n import MESSAGES, LocalizedError
from storage.db import make_engine
from tests.annotator.app.test_app import disagree, page, shown_text, user_id
from tests.conftest import run_qrels

APP = Path(__file__).resolve().parents[3] / "annotator" / "app"
COMMAND = re.compile(r"`?qrels [a-z]|--[a-z]")


def keys_the_app_shows() -> set[str]:
    """Every message key the app's modules name in a literal (``ui.t("key")``, ``t("key")``
    and the keys of the errors the pages show, through ``ui.plain``)."""
    found = set()
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found & MESSAGES.keys()


def test_no_message_the_app_shows_asks_to_type_a_command():
    asking = {
        key: MESSAGES[key][lang]
        for key in keys_the_app_shows() | {k for k in MESSAGES if k.startswith("app_")}
        for lang in ("en", "zh")
        # an error with words of the app's own (app_<key>) is shown in those (ui.message_of)
        if COMMAND.search(MESSAGES[key][lang]) and f"app_{key}" not in MESSAGES
    }
    assert asking == {}


def test_an_error_is_shown_in_the_apps_own_words_where_it_has_them(monkeypatch):
    monkeypatch.setattr(ui, "lang", lambda: "en")
    refused = LocalizedError("release_unresolved", count=3, query="q1", chunk="c1")
    assert "--allow-unresolved" in refused.message("en")
    shown = ui.message_of(refused)
    assert "tick “Leave unresolved candidates out” above" in shown and "--" not in shown
    assert MESSAGES["allow_unresolved"]["en"] == "Leave unresolved candidates out"
    assert ui.message_of(LocalizedError("pool_exists", name="p")).endswith("another name")
    monkeypatch.setattr(ui, "lang", lambda: "zh")
    assert "勾选上方的“排除未解决的候选”" in ui.message_of(refused)


def test_adjudication_feedback_sits_by_the_button_and_the_grade_starts_at_the_decision(
    demo_url,
):
    query_id, chunk_id = disagree(demo_url)
    at = page("adjudication_page.py", demo_url, as_user="lead")
    assert at.radio(key="final_grade").value == 0  # grades 3 and 0: the lower median
    at.button(key="decide").click().run()  # no rationale
    assert at.error, "the missing rationale is said"
    elements = list(at.main)
    place = {id(e.proto): i for i, e in enumerate(elements)}
    button = next(i for i, e in enumerate(elements) if getattr(e, "key", None) == "decide")
    assert place[id(at.error[0].proto)] > button  # below the button, not atop the page
    at.radio(key="final_grade").set_value(1)
    at.text_input(key="rationale").input("partly answers")
    at.button(key="decide").click().run()
    assert "Recorded:" in shown_text(at)
    at.toggle(key="include_resolved").set_value(True).run()
    at.selectbox(key="candidate").set_value((query_id, chunk_id)).run()
    assert at.radio(key="final_grade").value == 1  # the decision, not 0
    captions = [c.value for c in at.caption]
    assert any(
        re.fullmatch(r"\d+ candidates shown, of which 0 need a decision", c) for c in captions
    )


def test_proposed_grade():
    row = pd.Series({"auto_grade": None, "grades": {"a": 3, "b": 0, "c": 2}})
    assert adjudication.proposed_grade(row, None) == 2
    assert adjudication.proposed_grade(row, (1, "why")) == 1
    assert adjudication.proposed_grade(pd.Series({"auto_grade": 3, "grades": {}}), None) == 3
    assert adjudication.proposed_grade(pd.Series({"auto_grade": None, "grades": {}}), None) == 0


def test_a_gold_item_is_not_a_system_on_the_pools_page(demo_url):
    engine = make_engine(demo_url)
    key = disagree(demo_url)
    lead = user_id(demo_url, "lead")
    pool_quality.record_decision(engine, "demo-pool", key, 2, "read it", lead, "threshold")
    gold.add_from_adjudications(engine, "demo-pool", [key], by=lead)
    figures = pool_figures(engine, "demo-pool")
    assert set(figures.systems["system"]) == {"bm25", "vector", "rrf"}
    assert not figures.combinations["systems"].str.contains("gold").any()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_status_names_a_pools_systems(demo_url, monkeypatch, lang):
    monkeypatch.setenv("QRELS_LANG", lang)
    shown = run_qrels(demo_url, "status").output
    assert ("systems bm25,vector,rrf" if lang == "en" else "检索系统 bm25,vector,rrf") in shown


def test_pool_show_in_chinese_names_the_strategy_in_chinese_and_no_gold_system(
    demo_url, monkeypatch
):
    engine = make_engine(demo_url)
    key = disagree(demo_url)
    lead = user_id(demo_url, "lead")
    pool_quality.record_decision(engine, "demo-pool", key, 2, "read it", lead, "threshold")
    gold.add_from_adjudications(engine, "demo-pool", [key], by=lead)
    monkeypatch.setenv("QRELS_LANG", "zh")
    shown = run_qrels(demo_url, "pool", "show", "demo-pool").output
    assert "demo-pool：bm25,vector,rrf（深度 5，" in shown and "depth" not in shown
    assert "gold:" not in shown


def test_an_hourly_axis_names_the_day_of_each_hour(demo_url):
    from tests.annotator.app.test_chart_pages import opened

    disagree(demo_url)
    at = opened("team_progress_page.py", demo_url, [])
    chart = at.get_by_key("figure_timeline").get("vega_lite_chart")[0]
    axis = json.loads(chart.proto.spec)["encoding"]["x"]["axis"]
    assert axis["format"] == "%b %d %H:00"  # "14:00" alone came twice over two days


def test_added_after_a_search_is_said_in_the_search_box(demo_url):
    at = page("label_page.py", demo_url, as_user="annotator1")
    assert not at.text_input  # the search panel is closed until its toggle opens it
    at.toggle(key="search_open").set_value(True).run()
    at.text_input(key="search_text").input("battery charge").run()
    at.button(key="add_0").click().run()
    assert not at.exception
    [added] = [e for e in at.success if "Added" in e.value]
    elements = [e.proto for e in at.main]
    where = {id(proto): i for i, proto in enumerate(elements)}
    search = next(i for i, e in enumerate(at.main) if getattr(e, "key", None) == "search_text")
    assert where[id(added.proto)] < search and where[id(added.proto)] > where[id(at.text[0].proto)]


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "(grade 0: 0, grade 1: 0, "), ("zh", "（0 级 0 个，")]
)
def test_release_create_prints_counts_in_words_not_a_python_dict(
    demo_url, tmp_path, monkeypatch, lang, said
):
    monkeypatch.setenv("QRELS_LANG", lang)
    args = [
        "release",
        "create",
        "v1",
        "--pool",
        "demo-pool",
        "--out",
        tmp_path,
        "--allow-unresolved",
    ]
    shown = run_qrels(demo_url, *args).output
    assert said in shown and "{'" not in shown


def test_no_cached_function_shows_streamlits_english_spinner():
    """A cached function's default spinner says "Running name(...)" in English, also on a
    Chinese page: every cache in the app turns it off (a page shows its own words)."""
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for decorator in getattr(node, "decorator_list", []):
                call = decorator if isinstance(decorator, ast.Call) else None
                target = call.func if call else decorator
                if ast.unparse(target) not in ("st.cache_data", "st.cache_resource"):
                    continue
                spinner = [
                    k.value for k in (call.keywords if call else []) if k.arg == "show_spinner"
                ]
                assert spinner and isinstance(spinner[0], ast.Constant), (path.name, node.name)
                assert spinner[0].value is False, (path.name, node.name)


def test_gold_without_a_kappa_says_so_instead_of_an_empty_chart(demo_url):
    """One gold item gives nobody a kappa against gold: the page says why, with the table,
    rather than drawing an empty chart."""
    from tests.annotator.app.test_chart_pages import opened

    engine = make_engine(demo_url)
    key = disagree(demo_url)
    lead = user_id(demo_url, "lead")
    pool_quality.record_decision(engine, "demo-pool", key, 2, "read it", lead, "threshold")
    gold.add_from_adjudications(engine, "demo-pool", [key], by=lead)
    at = opened("team_progress_page.py", demo_url, [])
    assert not at.exception, at.exception
    with pytest.raises(KeyError):
        at.get_by_key("figure_gold")
    assert MESSAGES["gold_no_kappa"]["en"] in shown_text(at)
