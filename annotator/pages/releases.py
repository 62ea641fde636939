"""Leads: create versioned releases and download them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator import adjudication, releases, ui
from storage.db import session_scope
from storage.releases import list_releases

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
with st.form("release"):
    version = st.text_input(ui.t("release_version"))
    policy = st.selectbox(
        ui.t("policy"),
        list(adjudication.POLICIES),
        index=1,
        format_func=lambda name: ui.t(f"policy_{name}"),
    )
    allow = st.checkbox(ui.t("allow_unresolved"))
    submitted = st.form_submit_button(ui.t("create_release"))
if submitted:
    folder = releases.release_dir() / version.strip()
    try:
        result = releases.create_release(
            ui.engine(), version.strip(), pool_name, folder, policy=policy, allow_unresolved=allow
        )
    except (ValueError, LookupError) as error:
        st.error(str(error))
    else:
        st.session_state["release_ready"] = str(result.folder)
        st.success(ui.t("release_created", version=result.version, folder=result.folder))
ready = st.session_state.get("release_ready")
if ready:
    name = ready.rsplit("/", 1)[-1]
    st.download_button(
        ui.t("download_release", version=name),
        releases.zip_bytes(ready),
        file_name=f"{name}.zip",
        mime="application/zip",
        key="download",
    )
with session_scope(ui.engine()) as session:
    known = [
        (
            r.version,
            r.manifest.get("pool", {}).get("name"),
            r.created_at,
            r.manifest.get("counts", {}).get("judged_candidates"),
        )
        for r in list_releases(session=session)
    ]
st.subheader(ui.t("releases_table"))
st.dataframe(pd.DataFrame(known, columns=["version", "pool", "created", "graded"]), hide_index=True)
