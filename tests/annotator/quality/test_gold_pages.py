"""Gold items in the app (AppTest): a lead makes a decided candidate gold and sets the
rate on the Adjudication page, reads each annotator's standing on Team progress (a chart
whose table is ``gold.standings_frame``), and an annotator who has seen enough gold finds
their figures and the items they missed, with the lead's rationale, on My progress; in
English and Chinese."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotator.auth import add_user
from annotator.pools.pool_building import build_pool
from annotator.quality import gold, pool_quality
from annotator.quality.pool_quality import record_decision
from annotator.releases import releases
from pooling.i18n import t
from storage.db import session_scope
from tests.annotator.app.test_app import PAGES, literal, user_id
from tests.annotator.app.test_chart_pages import figure, same
from tests.annotator.quality.test_gold import CHUNKS, GOLD, gold_pool, judge  # noqa: F401  (a fixture)


def opened(url: str, page: str, user: str, lang: str = "en", **state) -> AppTest:
    at = AppTest.from_file(str(PAGES / page), default_timeout=120)
    at.session_state["user_id"] = user_id(url, user)
    at.session_state["lang"] = lang
    at.session_state["chosen_pool"] = "g"
    for name, value in state.items():
        at.session_state[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def checked(engine, gold_pool, db_url, tmp_path, monkeypatch):  # noqa: F811  (a fixture)
    """Pool ``g`` like ``gold_pool``'s, whose gold items come from release g2, in which a
    lead ``boss`` decided every ``GOLD`` candidate with a rationale; one item in three is
    gold; a1 judged 30 items (everything 3), a2 30 (everything as gold has it). The app is
    on its database."""
    monkeypatch.setenv("QRELS_DATABASE_URL", db_url)
    with session_scope(engine) as session:
        lead = add_user("boss", "lead", "password-1", session=session).id
    for (q, c), grade in GOLD.items():
        record_decision(engine, "earlier", (q, c), grade, f"why {q} {c}", lead, "threshold")
    releases.create_release(engine, "g2", "earlier", tmp_path)
    build_pool(engine, "g", systems="run:r", depth=CHUNKS)
    gold.add_from_release(engine, "g", tmp_path / "g2")
    gold.configure(engine, "g", rate=3, min_seen=5)
    judge(engine, gold_pool["a1"], 30, grade_of=lambda item: 3, pool="g")
    truth = lambda i: GOLD.get((i.query_id, i.chunk_id), 1)  # noqa: E731
    judge(engine, gold_pool["a2"], 30, grade_of=truth, pool="g")
    return engine


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lead_reads_each_annotators_standing(checked, db_url, lang):
    at = opened(db_url, "team_progress_page.py", "boss", lang, table_gold=True)
    found = gold.standings(gold.gold_checks(checked, "g"), gold.settings(checked, "g").floor)
    expected = gold.standings_frame(found)
    drawn, shown = figure(at, "gold")
    same(drawn, shown, expected)
    assert [s.annotator for s in found if s.flagged] == ["a1"]  # everything 3: kappa 0
    warned = " ".join(literal(w) for w in at.warning)
    assert t("gold_flagged_names", lang, names="a1") in warned
    assert t("section_gold", lang) in [h.value for h in at.subheader]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_annotator_sees_their_figures_and_what_they_missed(checked, db_url, lang):
    mine = gold.own_figures(checked, "g", "a1")
    assert mine.shown and mine.missed
    at = opened(db_url, "my_progress_page.py", "a1", lang)
    assert t("my_gold_title", lang) in [h.value for h in at.subheader]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics[t("col_seen", lang)] == str(mine.standing.seen)
    assert metrics[t("col_exact", lang)] == f"{mine.standing.exact:.0%}"
    assert len(at.expander) == len(mine.missed)
    texts = [x.value for x in at.text]
    first = mine.missed[0]
    assert first["rationale"] == f"why {first['query_id']} {first['chunk_id']}"
    assert first["query_text"] in texts and first["text"] in texts and first["rationale"] in texts
    assert at.expander[0].label == t("my_gold_item", lang, n=1, given=3, gold=first["gold"])
    gold.configure(checked, "g", show=False)  # the lead turned it off
    at = opened(db_url, "my_progress_page.py", "a1", lang)
    assert t("my_gold_title", lang) not in [h.value for h in at.subheader] and not at.metric


def test_a_lead_makes_gold_and_sets_the_rate_on_the_adjudication_page(checked, db_url):
    lead = user_id(db_url, "boss")
    table, _, _ = pool_quality.pool_table(checked, "g", "threshold")
    key = next(k for k in zip(table["query_id"], table["chunk_id"], strict=True) if k not in GOLD)
    record_decision(checked, "g", key, 2, "the limits are stated", lead, "threshold")
    at = opened(db_url, "adjudication_page.py", "boss", include_resolved=True)
    at.selectbox(key="candidate").set_value(key).run()
    at.button(key="make_gold").click().run()
    assert not at.exception
    assert "1 gold items added" in " ".join(s.value for s in at.success)
    gold_now = {(g.query_id, g.chunk_id): g for g in gold.gold_items(checked, "g")}
    assert gold_now[key].grade == 2 and gold_now[key].rationale == "the limits are stated"
    assert t("gold_is", "en") in [c.value for c in at.caption]

    at.number_input[0].set_value(7)  # one in seven
    at.button[0].click()  # the settings form's submit button comes first
    at.run()
    assert not at.exception and gold.settings(checked, "g").rate == 7
