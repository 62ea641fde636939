"""Leads: create versioned releases, download them, and read how well a release covers a
new run (and top the pool up with what it lacks)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator.app import charts, ui
from annotator.app.uploads import saved
from annotator.evaluation.run_files import checked_against
from annotator.pools import judged
from annotator.releases import releases
from pooling.grades import DEFAULT_POLICY, POLICIES
from pooling.i18n import LocalizedError
from pooling.release_folder import read_qrels, zip_bytes
from pooling.run import Run

COVERAGE_KS = [5, 10, 20]

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
with st.form("release"):
    version = st.text_input(ui.t("release_version"))
    policy = st.selectbox(
        ui.t("policy"),
        list(POLICIES),
        index=list(POLICIES).index(DEFAULT_POLICY),
        format_func=lambda name: ui.t(f"policy_{name}"),
    )
    allow = st.checkbox(ui.t("allow_unresolved"))
    accept = st.checkbox(ui.t("accept_carried"))
    submitted = st.form_submit_button(ui.t("create_release"))
if submitted:
    try:  # the version is checked there, the one place for the CLI and the app
        result = releases.create_release(
            ui.engine(),
            version.strip(),
            pool_name,
            policy=policy,
            allow_unresolved=allow,
            accept_carried=accept,
            by=user.id,
        )
    except LocalizedError as error:
        ui.plain(error, "error")
    else:
        st.session_state["release_ready"] = str(result.folder)
        ui.plain(ui.t("release_created", version=result.version, folder=result.folder), "success")
ready = st.session_state.get("release_ready")
if ready:
    name = ready.rsplit("/", 1)[-1]
    st.download_button(
        ui.as_text(ui.t("download_release", version=name)),
        zip_bytes(ready),
        file_name=f"{name}.zip",
        mime="application/zip",
        key="download",
        on_click="ignore",  # a download changes nothing: no need to run the page again
    )
history = releases.release_history(releases.list_releases(ui.engine()))
if len(history):
    charts.show(
        "releases",
        lambda frame: charts.release_history(frame, releases.HISTORY_GRADES),
        history,
        ui.t("chart_releases"),
    )
else:
    st.info(ui.t("releases_none"))

st.subheader(ui.t("coverage_title"))
written = releases.app_releases(ui.engine())
uploaded = st.file_uploader(ui.t("coverage_run"), key="coverage_run")
# Keyed by the newest release, so that the box offers a release just made (a keyed box
# would keep the choice it had, empty when there was none).
newest = written[0] if written else ""
chosen = st.selectbox(ui.t("coverage_release"), written, key=f"coverage_release_{newest}")
if uploaded is not None and chosen:
    try:
        release_folder = releases.release_dir() / chosen
        with saved(uploaded.getvalue(), uploaded.name) as upload:
            run = checked_against(release_folder, Run.from_file(upload, name=upload.stem))
    except LocalizedError as error:
        ui.plain(error, "error")
        st.stop()
    report = judged.coverage(read_qrels(release_folder), run, COVERAGE_KS)
    st.dataframe(
        pd.DataFrame([{"k": k, "Judged@k": v} for k, v in report.overall.items()]), hide_index=True
    )
    st.caption(ui.t("coverage_unjudged", count=len(report.unjudged), k=COVERAGE_KS[-1]))
    st.dataframe(
        pd.DataFrame(report.unjudged, columns=["query", "chunk", "rank", "score"]), hide_index=True
    )
    if report.unjudged and st.button(ui.t("coverage_topup"), key="coverage_add"):
        result = ui.as_user(
            judged.topup, ui.engine(), pool_name, report, run.name, COVERAGE_KS[-1], by=user.id
        )
        if result is not ui.REFUSED:
            ui.pool_changed(result)
