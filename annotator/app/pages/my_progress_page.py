"""An annotator's own progress: what they judged, per query, and how their grades fall
(theirs alone: the team's would be a hint of how others grade); once they have seen enough
gold items, how they did on them and the ones they missed, with the lead's rationale."""

from __future__ import annotations

import streamlit as st

from annotator.app import charts, ui
from annotator.quality import gold
from annotator.quality.progress import my_progress

user = ui.require()
ui.sidebar(user)
pool_name = ui.choose_pool()
figures = my_progress(ui.engine(), pool_name, user.name)
ui.plain(ui.t("my_progress_table", pool=pool_name))  # a pool name a lead typed
st.dataframe(charts.labelled(figures.table), hide_index=True)
if len(figures.table):
    charts.show("my_grades", charts.distribution, figures.distribution, ui.t("chart_my_grades"))

own = gold.own_figures(ui.engine(), pool_name, user.name)
if own.shown and own.standing is not None:
    st.subheader(ui.t("my_gold_title"))
    mine = own.standing
    columns = st.columns(4)
    columns[0].metric(ui.t("col_seen"), mine.seen)
    columns[1].metric(ui.t("col_exact"), f"{mine.exact:.0%}")
    columns[2].metric(ui.t("col_within_one"), f"{mine.within_one:.0%}")
    columns[3].metric(ui.t("col_kappa"), mine.kappa.text(ui.lang()))
    st.caption(ui.t("my_gold_missed", count=len(own.missed)))
    for i, item in enumerate(own.missed):
        unjudged = item["grade"] is None
        with st.expander(
            ui.t(
                "my_gold_item",
                # a grade, or the message saying why there is none
                given=("@gold_skipped" if item["skipped"] else "@unsure_button")
                if unjudged
                else int(item["grade"]),
                gold=int(item["gold"]),
                n=i + 1,
            )
        ):
            ui.plain(item["query_text"])  # texts from files, a rationale a lead typed
            ui.plain(item["text"])
            if item["rationale"]:
                st.caption(ui.t("rationale"))
                ui.plain(item["rationale"])
