"""Leads: everyone's progress on a pool, as charts with their tables behind toggles: the
team's pace and the pool's completion with a projected finish, then each annotator's
grades beside the team's and how they drift, and how each does on gold items."""

from __future__ import annotations

import streamlit as st

from annotator.app import charts, ui
from annotator.quality.progress import PERIODS, by_period

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
per = st.radio(
    ui.t("per_label"),
    list(PERIODS),
    format_func=lambda name: ui.t(f"period_{name}"),
    horizontal=True,
    key="team_per",
)
# Counted per hour once; a day's figures are the hours' grouped (no count again).
moment, hourly = ui.figures("team", pool_name, "hour")
figures = by_period(hourly, per)
summary = figures.summary
st.progress(
    summary.complete / max(summary.candidates, 1),
    text=ui.t(
        "pool_complete",
        complete=int(summary.complete),
        candidates=int(summary.candidates),
        overlap=int(summary.overlap),
    ),
)
if summary.pooled is not None and summary.pooled > summary.candidates:  # as qrels status says
    apart = summary.pooled - summary.candidates
    st.caption(ui.t("pool_set_apart", pooled=int(summary.pooled), apart=int(apart)))
if summary.candidates and summary.complete >= summary.candidates:
    st.text(ui.t("projection_done"))
elif figures.finish is None:
    st.text(ui.t("projection_none"))
else:
    finish, pace = f"{figures.finish:%Y-%m-%d %H:%M}", f"{figures.pace:.1f}"
    st.text(ui.t("projected_finish", finish=finish, pace=pace))
    if figures.active:
        st.caption(ui.t("projection_active"))
ui.counted_at(moment)
period = ui.t(f"period_{per}")

st.subheader(ui.t("section_team"))
charts.show(
    "timeline",
    lambda frame: charts.timeline(frame, per),
    figures.timeline,
    ui.t("chart_timeline", period=period),
)
charts.show(
    "completion",
    lambda frame: charts.completion(frame, summary.candidates, per),
    figures.completion,
    ui.t("chart_completion"),
)
charts.show("throughput", charts.throughput, figures.table, ui.t("chart_throughput"))

st.subheader(ui.t("section_annotators"))
charts.show("distribution", charts.distribution, figures.distribution, ui.t("chart_distribution"))
charts.show(
    "drift",
    lambda frame: charts.drift(frame, per),
    figures.drift,
    ui.t("chart_drift", period=period),
)

counted, gold = ui.figures("gold", pool_name)
if gold is not None:
    st.subheader(ui.t("section_gold"))
    chosen = gold.settings
    st.text(ui.t("gold_team_line", items=gold.items, rate=chosen.rate, floor=chosen.floor))
    if gold.standings["kappa"].notna().any():
        charts.show(
            "gold",
            lambda frame: charts.gold_standings(frame, chosen.floor),
            gold.standings,
            ui.t("chart_gold", floor=chosen.floor),
        )
    else:  # an empty chart would read as "no problem": say why there is none
        st.text(ui.t("gold_no_kappa"))
        st.dataframe(charts.labelled(charts.shown(gold.standings)), hide_index=True)
    flagged = gold.standings.loc[gold.standings["flagged"], "annotator"].tolist()
    if flagged:  # their judgments stay: the lead decides what to do
        ui.plain(ui.t("gold_flagged_names", names=", ".join(flagged)), "warning")
