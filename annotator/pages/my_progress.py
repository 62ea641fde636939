"""An annotator's own progress: what they judged, per query."""

from __future__ import annotations

import streamlit as st

from annotator import ui
from annotator.progress import my_progress
from storage.db import session_scope
from storage.pools import pool_names

user = ui.require()
ui.sidebar(user)
with session_scope(ui.engine()) as session:
    names = pool_names(session=session)
if not names:
    st.info(ui.t("no_pools"))
    st.stop()
pool_name = st.sidebar.selectbox(ui.t("pool_select"), names, key=ui.POOL_KEY)
table = my_progress(ui.engine(), pool_name, user.name)
st.subheader(ui.t("my_progress_table", pool=pool_name))
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
