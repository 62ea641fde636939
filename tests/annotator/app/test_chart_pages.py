"""The lead's charts with Streamlit's AppTest: each page draws its charts, and for each,
what the chart is given and what its table toggle shows are what the plain module
computes; in English and in Chinese."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from annotator.pools.pool_figures import pool_figures
from annotator.quality import agreement, pool_quality
from annotator.quality.progress import my_progress, team_figures
from annotator.releases import releases
from tests.annotator.app.test_app import PAGES, user_id

TEAM_CHARTS = ["timeline", "completion", "throughput", "distribution", "drift"]


def opened(name: str, url: str, charts: list[str], user: str = "lead", lang: str = "en"):
    """Page ``name`` as ``user`` sees it in ``lang``, with the tables of ``charts`` shown
    (their toggles set before the page runs: AppTest cannot run a page twice in Chinese,
    as it looks for a translated radio option among the untranslated ones)."""
    at = AppTest.from_file(str(PAGES / name), default_timeout=120)
    at.session_state["user_id"] = user_id(url, user)
    at.session_state["lang"] = lang
    for key in charts:
        at.session_state[f"table_{key}"] = True
    return at.run()


def figure(at: AppTest, key: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data the chart ``key`` draws (of its data sets, the frame's; a chart may add a
    one-column set for a rule) and the table its toggle shows."""
    assert not at.exception, at.exception
    block = at.get_by_key(f"figure_{key}")
    [chart] = block.get("vega_lite_chart")
    # The app skips Altair's check of each chart against Vega-Lite's schema (charts.unchecked).
    validate_jsonschema(json.loads(chart.proto.spec), load_schema())
    sets = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    [table] = block.get("dataframe")
    return max(sets, key=lambda data: len(data.columns)), table.value


def same(drawn: pd.DataFrame, shown: pd.DataFrame, computed: pd.DataFrame) -> None:
    """The chart's data, the table (titled columns) and the function's frame hold the same
    values, column by column; names the page translates are compared as the page shows
    them (``drawn`` and ``shown`` agree on those)."""
    assert len(drawn) == len(shown) == len(computed) > 0
    assert list(drawn.columns) == list(computed.columns)
    for i, column in enumerate(computed.columns):
        values = computed[column]
        if pd.api.types.is_datetime64_any_dtype(values):
            for other in (drawn[column], shown.iloc[:, i]):
                assert pd.to_datetime(other, utc=True).tolist() == values.tolist()
        elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            expected = values.astype(float).tolist()
            assert drawn[column].astype(float).tolist() == pytest.approx(expected, nan_ok=True)
            assert shown.iloc[:, i].astype(float).tolist() == pytest.approx(expected, nan_ok=True)
        else:
            assert drawn[column].astype(str).tolist() == shown.iloc[:, i].astype(str).tolist()


def past(frame: pd.DataFrame) -> pd.DataFrame:
    """A completion frame without its projection (drawn from the time it is computed)."""
    return frame[~frame.iloc[:, 3].astype(bool)].reset_index(drop=True)


def test_team_progress_charts_draw_what_team_figures_computes(worked, demo_url):
    at = opened("team_progress_page.py", demo_url, TEAM_CHARTS)
    figures = team_figures(worked, "demo-pool")
    assert figures.table["judged"].tolist() == [5, 5]  # what the fixture did
    assert figures.summary.complete > 0 and len(figures.distribution) == 15
    frames = {
        "timeline": figures.timeline,
        "completion": past(figures.completion),
        "throughput": figures.table,
        "distribution": figures.distribution,
        "drift": figures.drift,
    }
    assert list(frames) == TEAM_CHARTS
    for key, computed in frames.items():
        drawn, shown = figure(at, key)
        if key == "completion":
            drawn, shown = past(drawn), past(shown)
        same(drawn, shown, computed)
    drawn, shown = figure(at, "distribution")
    assert "(team)" in set(drawn["annotator"]) and "unsure" in set(shown["grade"])


def test_team_progress_speaks_chinese(worked, demo_url):
    at = opened("team_progress_page.py", demo_url, ["distribution"], lang="zh")
    drawn, shown = figure(at, "distribution")
    assert list(shown.columns) == ["标注者", "等级", "数量", "占比"]
    assert "（团队）" in set(drawn["annotator"]) and "不确定" in set(drawn["grade"])
    assert "按最近 7 天的速度" in at.text[0].value or "无法预计" in at.text[0].value
    chart = at.get_by_key("figure_timeline").get("vega_lite_chart")[0]
    assert json.loads(chart.proto.spec)["title"]["text"] == "每小时标注条目数（按标注者）"
    assert chart.proto.alt == "每小时标注条目数（按标注者）"  # what a screen reader says


def test_pools_charts_draw_what_pool_figures_computes(worked, demo_url):
    at = opened("pools_page.py", demo_url, ["systems", "combinations"])
    figures = pool_figures(worked, "demo-pool")
    assert figures.systems["judged"].sum() > 0
    same(*figure(at, "systems"), figures.systems)
    same(*figure(at, "combinations"), figures.combinations)
    # The share of the relevant reads 0-100% in whole percents, even with nothing relevant
    # yet (an axis without extent read "0.000000%").
    spec = json.loads(at.get_by_key("figure_systems").get("vega_lite_chart")[0].proto.spec)
    share = spec["vconcat"][1]["encoding"]["x"]
    assert (share["scale"]["domain"], share["axis"]["format"]) == ([0, 1], ".0%")


def test_agreement_charts_draw_what_the_reports_say(worked, demo_url):
    at = opened("agreement_page.py", demo_url, ["alpha", "pairs"])
    reports = pool_quality.pool_agreement(worked, "demo-pool", "threshold").reports
    for key, measure in (("alpha", "alpha"), ("pairs", "quadratic")):
        computed = agreement.figures_frame(reports, measure, "en")
        drawn, shown = figure(at, key)
        defined = computed.dropna(subset=["value"])  # the chart leaves undefined ones out
        assert len(shown) == len(computed)
        assert drawn["value"].tolist() == pytest.approx(defined["value"].astype(float).tolist())
        assert drawn["high"].tolist() == pytest.approx(defined["high"].astype(float).tolist())


def test_release_history_chart_draws_the_manifests(worked, demo_url, tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_RELEASE_DIR", str(tmp_path / "releases"))
    for version in ("v1", "v2"):
        releases.create_release(
            worked, version, "demo-pool", tmp_path / "releases", allow_unresolved=True
        )
    at = opened("releases_page.py", demo_url, ["releases"])
    history = releases.release_history(releases.list_releases(worked))
    drawn, shown = figure(at, "releases")
    same(
        drawn.drop(columns="created"),
        shown.drop(columns="created"),
        history.drop(columns="created"),
    )


def test_an_annotator_sees_their_own_grades_only(worked, demo_url):
    at = opened("my_progress_page.py", demo_url, ["my_grades"], user="annotator2")
    mine = my_progress(worked, "demo-pool", "annotator2")
    drawn, shown = figure(at, "my_grades")
    same(drawn, shown, mine.distribution)
    assert set(drawn["annotator"]) == {"annotator2"}


def test_figures_are_counted_once_per_change_of_the_data(worked, monkeypatch):
    """Two looks at unchanged data count once; a judgment since is counted in once the kept
    figures are FIGURES_KEPT old (until then they are shown, said to be older than the
    data); a lead's own change is counted at once. The gold figures: the kept ones (Team
    progress, Pools, Agreement, Adjudication) are counted in at every change."""
    from annotator.app import ui
    from annotator.labeling import assignment
    from annotator.quality.pool_quality import record_decision
    from storage.accounts import get_user
    from storage.db import session_scope

    calls = []
    monkeypatch.setitem(ui.FIGURES, "gold", lambda engine, *args: calls.append(args) or args)
    first, _ = ui.figures("gold", "demo-pool", "hour")
    again, _ = ui.figures("gold", "demo-pool", "hour")
    assert len(calls) == 1 and first == again and again.current
    ui.figures("gold", "demo-pool", "day")  # other arguments, other figures
    assert len(calls) == 2

    with session_scope(worked) as session:
        uid, lead = (get_user(n, session=session).id for n in ("annotator1", "lead"))
    item = assignment.next_item(worked, "demo-pool", uid)
    assignment.submit(worked, item, uid, grade=1)
    kept, _ = ui.figures("gold", "demo-pool", "hour")
    assert len(calls) == 2 and kept.moment == first.moment and not kept.current
    monkeypatch.setattr(ui, "FIGURES_KEPT", 0)
    fresh, _ = ui.figures("gold", "demo-pool", "hour")
    assert len(calls) == 3 and fresh.current and fresh.version != first.version

    monkeypatch.setattr(ui, "FIGURES_KEPT", 3600)
    record_decision(
        worked, "demo-pool", (item.query_id, item.chunk_id), 2, "why", lead, "threshold"
    )
    ui.count_afresh()  # what the Adjudication page does after a decision
    after, _ = ui.figures("gold", "demo-pool", "hour")
    assert len(calls) == 4 and after.current and after.version != fresh.version


@pytest.mark.parametrize("groups", [1, 3])
def test_a_team_of_twelve_keeps_the_kappa_chart_to_the_page(groups):
    # Vega gives a width step to each bar offset within a group: 66 pairs once drew bars
    # 3,696 px wide each, a chart some 366,000 px across, and its intervals beside the bars.
    from itertools import combinations

    from annotator.app import charts

    people = [f"a{i:02d}" for i in range(12)]
    pairs = [f"{a} × {b}" for a, b in combinations(people, 2)]
    frame = pd.DataFrame(
        [
            {"group": f"slice:{g}", "pair": pair, "value": 0.4, "low": 0.3, "high": 0.5}
            for g in range(groups)
            for pair in pairs
        ]
    )
    chart = charts.figure_bars(frame, "kappa")
    bars = len(pairs) * groups
    assert chart.spec.width.step * bars <= max(charts.ACROSS, 4 * bars)
    # Bars and intervals are placed by the same x (the pair), a column per group.
    assert "xOffset" not in json.dumps(chart.to_dict())
    assert chart.to_dict()["facet"]["column"]["field"] == "group"
    few = frame[frame["pair"].isin(pairs[:3]) & (frame["group"] == "slice:0")]
    assert charts.figure_bars(few, "kappa").spec.width.step == 56  # a small team's bars
