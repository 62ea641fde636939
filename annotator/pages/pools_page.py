"""Leads: build and top up pools, and see how each is made up (sizes per query, each
system's contribution). Building runs the retrievers in this request; for large corpora the
CLI (`qrels pool build`) shows progress bars."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator import charts, pool_building, ui
from annotator.active_pooling import is_active


def build_form() -> None:
    query_sets, corpora = pool_building.version_names(ui.engine())
    with st.expander(ui.t("build_pool_title")), st.form("build_pool"):
        name = st.text_input(ui.t("field_pool_name"))
        query_set = st.selectbox(ui.t("kind_query_set"), query_sets)
        corpus_version = st.selectbox(ui.t("kind_corpus_version"), corpora)
        systems = st.text_input(ui.t("field_systems"), value="bm25,vector")
        depth = st.number_input(ui.t("field_depth"), min_value=1, value=10)
        overlap = st.number_input(ui.t("field_overlap"), min_value=1, value=2)
        active = st.checkbox(ui.t("field_active"))
        budget = st.number_input(ui.t("field_budget"), min_value=1, value=50)
        stop_below = st.number_input(ui.t("field_stop_below"), min_value=0.0, value=1.0)
        if st.form_submit_button(ui.t("build_button")):
            try:
                result = pool_building.build_pool(
                    ui.engine(),
                    name.strip(),
                    systems=systems,
                    depth=None if active else int(depth),
                    budget=int(budget) if active else None,
                    active=active,
                    stop_below=float(stop_below),
                    overlap=int(overlap),
                    query_set=query_set,
                    corpus_version=corpus_version,
                )
            except (ValueError, LookupError) as error:
                st.error(str(error))
            else:
                ui.pool_changed(result, overlap=int(overlap))


def topup_form(pool_name: str) -> None:
    with st.expander(ui.t("topup_title")), st.form("topup_pool"):
        systems = st.text_input(ui.t("field_systems"))
        depth = st.number_input(ui.t("field_depth"), min_value=1, value=10)
        if st.form_submit_button(ui.t("topup_button")):
            try:
                result = pool_building.topup_pool(
                    ui.engine(), pool_name, systems=systems, depth=int(depth)
                )
            except (ValueError, LookupError) as error:
                st.error(str(error))
            else:
                ui.pool_changed(result)


user = ui.require("lead")
ui.sidebar(user)
build_form()
pool_name = ui.choose_pool()
topup_form(pool_name)
moment, figures = ui.figures("pools", pool_name)
report = figures.report
st.text(  # the pool's and systems' names were typed by people: plain text
    ui.t(
        "pool_show_head",
        name=pool_name,
        systems=report.config.get("systems_spec", ""),
        strategy=report.config.get("strategy"),
        size=report.config.get("size"),
        overlap=report.overlap,
    )
)
ui.counted_at(moment)
charts.show("systems", charts.systems, figures.systems, ui.t("chart_systems"))
charts.show("combinations", charts.upset, figures.combinations, ui.t("chart_combinations"))
sizes = pd.DataFrame({"query": list(report.sizes), "candidates": list(report.sizes.values())})
st.dataframe(charts.labelled(sizes), hide_index=True)
if is_active(report.config):
    # Where each query stands against the stopping rule: the lead decides when to top up.
    _, status = ui.figures("active", pool_name)
    charts.show("active", charts.active, status, ui.t("active_title"))
