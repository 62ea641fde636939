"""Leads: how far annotators agree, per pair, per slice or split, and against the final
grades before and after adjudication. Alpha and a kappa of one's choice are drawn per
group as bars with their bootstrap intervals; each group's figures follow as tables. The
bootstrap takes seconds: the figures are kept a minute (``ui.figures``)."""

from __future__ import annotations

import streamlit as st

from annotator.app import charts, ui
from annotator.quality import agreement

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
policy = ui.choose_policy()
by = st.radio(
    ui.t("group_by"),
    ["all", "slice", "split"],
    format_func=lambda name: ui.t(f"group_{name}"),
    horizontal=True,
    key="agreement_by",
)
moment, view = ui.figures("agreement", pool_name, policy, None if by == "all" else by)
reports = view.reports
ui.counted_at(moment)

alpha = ui.t("measure_alpha")
charts.show(
    "alpha",
    lambda shown: charts.figure_bars(shown, alpha),
    agreement.figures_frame(reports, "alpha", ui.lang()),
    ui.t("chart_alpha"),
)
measure = st.selectbox(
    ui.t("measure_label"),
    agreement.MEASURES[1:],
    index=agreement.MEASURES[1:].index("quadratic"),
    format_func=lambda name: ui.t(f"measure_{name}"),
    key="agreement_measure",
)
named = ui.t(f"measure_{measure}")
charts.show(
    "pairs",
    lambda shown: charts.figure_bars(shown, named),
    agreement.figures_frame(reports, measure, ui.lang()),
    ui.t("chart_pairs", measure=named),
)

for result in reports:
    st.divider()
    # "slice:<tag>": a tag from the queries file
    ui.plain(ui.t("group_all") if result.group == "all" else result.group)
    st.text(ui.t("alpha_line", value=result.alpha.text(ui.lang())))
    st.caption(ui.t("pairs_table"))
    pairs = charts.shown(agreement.pairs_frame(result, ui.lang()))
    st.dataframe(charts.labelled(pairs), hide_index=True, key=f"pairs_{result.group}")
    if by == "all" and result.pairs:
        # One pair's heatmap at a time: a click draws one chart, however many pairs a
        # team makes (66 for twelve people).
        names = ["{} × {}".format(*pair.annotators) for pair in result.pairs]
        chosen = st.selectbox(
            ui.t("confusion_pair"),
            list(range(len(names))),
            format_func=names.__getitem__,
            key="confusion_pair",
        )
        pair = result.pairs[chosen]
        charts.show(
            "confusion",
            charts.confusion,
            agreement.confusion_frame(pair),
            ui.t("confusion_title", a=pair.annotators[0], b=pair.annotators[1]),
        )
st.subheader(ui.t("versus_final"))
st.caption(ui.t("versus_final_why"))
versus = view.versus_final.copy()
for column in ("before", "after"):  # a kappa, or why there is none: text either way
    versus[column] = [figure.text(ui.lang()) for figure in versus[column]]
st.dataframe(charts.labelled(versus), hide_index=True)
