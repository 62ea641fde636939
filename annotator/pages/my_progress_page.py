"""An annotator's own progress: what they judged, per query."""

from __future__ import annotations

import streamlit as st

from annotator import ui
from annotator.progress import my_progress

user = ui.require()
ui.sidebar(user)
pool_name = ui.choose_pool()
table = my_progress(ui.engine(), pool_name, user.name)
ui.plain(ui.t("my_progress_table", pool=pool_name))
st.dataframe(
    table.rename(
        columns={
            "query": ui.t("col_query"),
            "judged": ui.t("col_judged"),
            "unsure": ui.t("col_unsure"),
        }
    ),
    hide_index=True,
)
