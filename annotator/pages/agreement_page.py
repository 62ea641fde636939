"""Leads: how far annotators agree, per pair, per slice or split, and against the final
grades before and after adjudication."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from annotator import adjudication, agreement, ui
from pooling.grades import GRADES

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
policy = ui.choose_policy()
by = st.radio(ui.t("group_by"), ["all", "slice", "split"], horizontal=True, key="agreement_by")
table, decisions, frame = adjudication.pool_table(ui.engine(), pool_name, policy)
parts = agreement.groups(frame, None if by == "all" else by)
for name, part in parts.items():
    result = agreement.report(part, name, rounds=200)
    ui.plain(name)
    st.text(ui.t("alpha_line", value=result.alpha.text(ui.lang())))
    st.caption(ui.t("pairs_table"))
    rows = [
        {
            ui.t("col_pair"): f"{p.annotators[0]} × {p.annotators[1]}",
            ui.t("col_shared"): p.shared,
            ui.t("col_agreement"): p.percent.text(ui.lang()),
            **{kind: value.text(ui.lang()) for kind, value in p.kappas.items()},
        }
        for p in result.pairs
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    if by == "all":
        for pair in result.pairs:
            cells = pd.DataFrame(
                [(a, b, pair.confusion[a][b]) for a in GRADES for b in GRADES],
                columns=["first", "second", "count"],
            )
            chart = (
                alt.Chart(cells)
                .mark_rect()
                .encode(x=alt.X("second:O"), y=alt.Y("first:O"), color=alt.Color("count:Q"))
            )
            labels = alt.Chart(cells).mark_text().encode(x="second:O", y="first:O", text="count:Q")
            ui.plain(ui.t("confusion_title", a=pair.annotators[0], b=pair.annotators[1]))
            st.altair_chart(chart + labels, width="content")
st.subheader(ui.t("versus_final"))
versus = adjudication.versus_final(frame, table, decisions)
for column in ("before", "after"):  # a kappa, or why there is none: text either way
    versus[column] = [figure.text(ui.lang()) for figure in versus[column]]
st.dataframe(
    versus.rename(columns={"before": ui.t("col_before"), "after": ui.t("col_after")}),
    hide_index=True,
)
