"""Drawing a sample from the Pools page with Streamlit's AppTest (issue 40): a first draw is
recorded as ``qrels sample`` records it; once people judged a sampled query, a new draw
without a reason is refused as plain text and records nothing, and with one is recorded
with its reason."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from annotator.labeling import assignment, sampling
from storage.db import make_engine
from tests.annotator.app.test_app import lead_page, literal, user_id


def pools_page(url: str, lang: str = "en") -> AppTest:
    return lead_page("pools_page.py", url, lang)


def draw(at: AppTest, size: str, why: str = "") -> AppTest:
    at.text_input(key="sample_size").input(size)
    at.text_area(key="sample_why").input(why)
    return at.button(key="sample_submit").click().run()


def test_a_lead_draws_and_a_redraw_of_judged_work_needs_a_why(demo_url):
    engine = make_engine(demo_url)
    at = draw(pools_page(demo_url), "2")
    assert not at.exception and not at.error
    assert literal(at.success[0]).startswith("pool demo-pool: 2 of ")
    first = sampling.current(engine, "demo-pool")
    assert first is not None and len(first.draws) == 1
    ann = user_id(demo_url, "annotator1")
    item = assignment.next_item(engine, "demo-pool", ann)  # a sampled query comes first
    assert item.query_id in {m.query_id for m in first.members}
    assert assignment.submit(engine, item, ann, grade=2)
    at = pools_page(demo_url, "zh")
    assert "已有 1 条查询被人工标注" in at.warning[0].value
    at = draw(at, "3")
    assert not at.success
    assert "为何重新抽样" in literal(at.error[0])
    assert len(sampling.current(engine, "demo-pool").draws) == 1  # nothing recorded
    at = draw(at, "3", "the **first** draw left out a slice")
    assert not at.error
    again = sampling.current(engine, "demo-pool")
    assert again.size == 3 and len(again.draws) == 2
    assert again.draws[-1].reason == "the **first** draw left out a slice"
    assert again.draws[-1].judged_before == 1
