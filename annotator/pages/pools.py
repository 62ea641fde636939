"""Leads: how each pool is made up (sizes per query, systems' contributions)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator import ui
from storage.db import session_scope
from storage.pools import get_pool, pool_report

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
with session_scope(ui.engine()) as session:
    report = pool_report(get_pool(pool_name, session=session), session=session)
st.subheader(pool_name)
st.caption(
    f"{report.config.get('systems_spec', '')} · {report.config.get('strategy')} "
    f"{report.config.get('size')} · overlap {report.overlap}"
)
systems = pd.DataFrame(
    {
        ui.t("col_system"): list(report.found),
        ui.t("col_found"): list(report.found.values()),
        ui.t("col_unique"): [report.unique[name] for name in report.found],
    }
)
st.dataframe(systems, hide_index=True)
sizes = pd.DataFrame(
    {ui.t("col_query"): list(report.sizes), ui.t("col_candidates"): list(report.sizes.values())}
)
st.dataframe(sizes, hide_index=True)
