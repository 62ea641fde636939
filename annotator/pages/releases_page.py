"""Leads: create versioned releases and download them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from annotator import adjudication, judged, releases, ui
from pooling.run import Run
from storage.db import session_scope
from storage.pool_records import get_pool, topup_pool
from storage.release_records import list_releases

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
columns = [ui.t(f"col_{name}") for name in ("version", "pool", "created", "graded")]
st.dataframe(pd.DataFrame(known, columns=columns), hide_index=True)

st.subheader(ui.t("coverage_title"))
written = sorted(path.parent.name for path in releases.release_dir().glob("*/manifest.json"))
uploaded = st.file_uploader(ui.t("coverage_run"), key="coverage_run")
chosen = st.selectbox(ui.t("coverage_release"), written, key="coverage_release")
if uploaded is not None and chosen:
    run_path = releases.release_dir() / f".{uploaded.name}"
    run_path.write_bytes(uploaded.getvalue())
    try:
        run = Run.from_file(run_path, name=Path(uploaded.name).stem)
    except ValueError as error:
        st.error(str(error))
        st.stop()
    finally:
        run_path.unlink(missing_ok=True)
    report = judged.coverage(releases.read_qrels(releases.release_dir() / chosen), run, [5, 10, 20])
    st.dataframe(
        pd.DataFrame([{"k": k, "Judged@k": v} for k, v in report.overall.items()]), hide_index=True
    )
    st.caption(ui.t("coverage_unjudged", count=len(report.unjudged), k=20))
    st.dataframe(
        pd.DataFrame(report.unjudged, columns=["query", "chunk", "rank", "score"]), hide_index=True
    )
    if report.unjudged and st.button(ui.t("coverage_topup", pool=pool_name), key="coverage_add"):
        with session_scope(ui.engine()) as session:
            result = topup_pool(
                get_pool(pool_name, session=session),
                judged.topup_candidates(report, f"run:{run.name}"),
                session=session,
                config={"systems_spec": f"run:{run.name}", "source": "coverage"},
            )
        counts = {k: v for k, v in vars(result).items() if k != "name"}
        st.success(ui.t("pool_topped_up", name=result.name, **counts))
