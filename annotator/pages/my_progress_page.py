"""An annotator's own progress: what they judged, per query, and how their grades fall
(theirs alone: the team's would be a hint of how others grade)."""

from __future__ import annotations

import streamlit as st

from annotator import charts, ui
from annotator.progress import my_progress

user = ui.require()
ui.sidebar(user)
pool_name = ui.choose_pool()
figures = my_progress(ui.engine(), pool_name, user.name)
ui.plain(ui.t("my_progress_table", pool=pool_name))  # a pool name a lead typed
st.dataframe(charts.labelled(figures.table), hide_index=True)
if len(figures.table):
    charts.show("my_grades", charts.distribution, figures.distribution, ui.t("chart_my_grades"))
