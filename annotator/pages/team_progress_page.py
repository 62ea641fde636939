"""Leads: everyone's progress on a pool."""

from __future__ import annotations

import streamlit as st

from annotator import ui
from annotator.progress import team_progress

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
table, summary = team_progress(ui.engine(), pool_name)
st.progress(
    summary.complete / max(summary.candidates, 1),
    text=ui.t(
        "pool_complete",
        complete=summary.complete,
        candidates=summary.candidates,
        overlap=summary.overlap,
    ),
)
st.subheader(ui.t("team_table"))
st.dataframe(
    table.rename(
        columns={
            "annotator": ui.t("col_annotator"),
            "judged": ui.t("col_judged"),
            "unsure": ui.t("col_unsure"),
            "seconds": ui.t("col_seconds"),
        }
    ),
    hide_index=True,
)
