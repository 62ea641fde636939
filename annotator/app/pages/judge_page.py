"""Leads: run a model judge on a pool, follow its progress, and read what it came to (the
figures of ``qrels judge report``): cost, failures by reason, the calibration against the
pool's final grades, and the candidates people must see. The run goes on in a thread of the
app's process and writes each answer to the database, which is where this page reads its
progress from. The API key is never typed here: only the name of the environment variable
that holds it on the server. Every string from a model or a document is shown as text."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator.app import charts, ui
from annotator.judge import judge_report as reports
from annotator.judge import runner
from pooling.i18n import LocalizedError

user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()

st.subheader(ui.t("judge_run_title"))
with st.form("judge_run"):
    model = st.text_input(ui.t("judge_model"), key="judge_model")
    base_url = st.text_input(ui.t("judge_base_url_label"), key="judge_base_url")
    variable = st.text_input(ui.t("judge_key_label"), help=ui.t("judge_key_help"), key="judge_key")
    left, middle, right, last = st.columns(4)
    concurrency = left.number_input(ui.t("judge_concurrency"), 1, 64, 4, key="judge_concurrency")
    retries = middle.number_input(ui.t("judge_retries"), 0, 10, 2, key="judge_retries")
    timeout = right.number_input(ui.t("judge_timeout"), 1, 600, 60, key="judge_timeout")
    limit = last.number_input(ui.t("judge_limit"), 0, None, 0, key="judge_limit")
    submitted = st.form_submit_button(ui.t("judge_start"))
if submitted:
    settings = runner.JudgeSettings(
        concurrency=int(concurrency), retries=int(retries), timeout=float(timeout),
        limit=int(limit) or None,
    )  # fmt: skip
    try:
        started = ui.as_user(
            runner.start_in_background, ui.engine(), pool_name, model, base_url,
            key_variable=variable.strip() or None, settings=settings, by=user.id,
        )  # fmt: skip
    except (LocalizedError, LookupError) as error:
        ui.plain(error, "error")
    else:
        if started is ui.REFUSED:
            st.rerun()
        ui.plain(ui.t("judge_started_page", run=started), "success")

st.subheader(ui.t("judge_runs_title"))
runs = reports.pool_runs(ui.engine(), pool_name)
if not runs:
    st.info(ui.t("judge_runs_none"))
    st.stop()


running = {r.run for r in runs if r.status == "running"}


@st.fragment(run_every=2 if running else None)
def follow() -> None:
    """The runs still going, with their progress and a stop button; read afresh every two
    seconds while one is going. When one ends (or another starts), the whole page is drawn
    again: the runs' table and the report then say what it did, without a Refresh."""
    now = reports.pool_runs(ui.engine(), pool_name)
    if {r.run for r in now if r.status == "running"} != running:
        ui.count_afresh("judge")
        st.rerun()
    for run in now:
        if run.status != "running":
            continue
        done = run.done / run.todo if run.todo else 1.0
        text = ui.t("judge_progress", run=run.run, model=run.model, done=run.done,
                    todo=run.todo, failed=run.failed)  # fmt: skip
        st.progress(min(1.0, done), text=ui.as_text(text))  # the model's name is typed
        if run.silent:
            ui.plain(ui.t("judge_silent", run=run.run, time=f"{run.heard:%H:%M:%S}"), "warning")
        if st.button(ui.t("judge_stop", run=int(run.run)), key=f"judge_stop_{run.run}"):
            if ui.as_user(runner.request_stop, ui.engine(), run.run, user.id) is ui.REFUSED:
                st.rerun()
            ui.plain(ui.t("judge_stop_asked", run=run.run), "info")


ui.guarded(follow)()
st.dataframe(
    pd.DataFrame(
        [
            {
                ui.t("col_run"): r.run,
                ui.t("col_model_asked"): r.model,
                ui.t("col_served_model"): r.served_model,
                ui.t("col_prompt"): r.prompt_hash[:12],
                ui.t("col_status"): ui.t(f"judge_status_{r.status}"),
                ui.t("col_started"): r.started,
                ui.t("col_candidates"): r.todo,
                ui.t("col_graded"): r.done - r.failed,
                ui.t("col_failed"): r.failed,
                ui.t("col_flags"): r.flagged,
                ui.t("col_reused"): r.reused,
                ui.t("col_requests"): r.requests,
                ui.t("col_tokens_in"): r.tokens_in,
                ui.t("col_tokens_out"): r.tokens_out,
                ui.t("col_detail"): r.error,
            }
            for r in runs
        ]
    ),
    hide_index=True,
    key="judge_runs",
)

st.subheader(ui.t("judge_report_title"))
judged = list(dict.fromkeys((r.model, r.prompt_hash) for r in runs))
chosen = st.selectbox(
    ui.t("judge_choose"),
    range(len(judged)),
    format_func=lambda i: f"{judged[i][0]} · {judged[i][1][:12]}",
    key="judge_chosen",
)
if st.button(ui.t("judge_refresh"), key="judge_refresh"):
    ui.count_afresh("judge")
moment, report = ui.figures("judge", pool_name, *judged[chosen])
ui.counted_at(moment)
ui.plain(
    ui.t(
        "judge_report_head", model=report.model, pool=report.pool, judge=report.judge,
        version=report.prompt_version, hash=report.prompt_hash[:12], rubric=report.rubric_version,
    )
)  # fmt: skip
ui.plain(ui.t("judge_report_served", models=", ".join(report.served_models) or "-"))
if len(report.served_models) > 1:
    ui.plain(ui.t("judge_report_served_several"), "warning")
figures = {
    "candidates": report.candidates,
    "graded": report.graded,
    "failed": report.failed,
    "not_asked": report.not_asked,
    "flags": report.flagged,
    "requests": report.requests,
    "tokens_in": report.tokens_in,
    "tokens_out": report.tokens_out,
    "request_seconds": round(report.request_seconds, 1),
    "run_seconds": round(report.seconds, 1),
}
st.dataframe(
    pd.DataFrame(
        {ui.t("col_figure"): [ui.t(f"col_{k}") for k in figures], "": list(figures.values())}
    ),
    hide_index=True,
    key="judge_figures",
)
failures = reports.failures_frame(report)
if len(failures):
    charts.show("judge_failures", charts.judge_failures, failures, ui.t("chart_judge_failures"))

st.subheader(ui.t("judge_calibration_title"))
calibration = report.calibration
if calibration is None:
    st.info(ui.t("judge_report_no_calibration"))
else:
    ui.plain(ui.t("calibration_head", judge=calibration.judge, shared=calibration.shared,
                  release=ui.t("judge_report_pool_grades", pool=report.pool)))  # fmt: skip
    st.dataframe(
        pd.DataFrame(
            {
                "kappa": list(calibration.kappas),
                ui.t("col_value"): [f.text(ui.lang()) for f in calibration.kappas.values()],
            }
        ),
        hide_index=True,
        key="judge_kappas",
    )
    charts.show(
        "judge_confusion",
        lambda cells: charts.confusion(cells, "people", "model"),
        reports.confusion_cells(calibration),
        ui.t("chart_judge_confusion"),
    )
    st.dataframe(
        pd.DataFrame(
            [
                {ui.t("col_group"): tag, ui.t("col_shared"): f["shared"],
                 "kappa": f["quadratic"].text(ui.lang())}
                for tag, f in calibration.per_slice.items()
            ]
        ),
        hide_index=True,
        key="judge_slices",
    )  # fmt: skip

st.subheader(ui.t("judge_review_title"))
if not report.probabilities and report.graded:
    st.caption(ui.t("judge_report_no_probabilities"))
st.dataframe(
    pd.DataFrame(
        [
            {
                ui.t("col_why"): ui.t(f"judge_why_{row['why']}"),
                ui.t("col_query"): row["query_id"],
                ui.t("col_chunk"): row["chunk_id"],
                ui.t("col_grade"): row["grade"],
                ui.t("col_probability"): row["probability"],
                ui.t("col_failure"): row["failure"] and ui.t(f"judge_failure_{row['failure']}"),
                ui.t("col_flags"): ", ".join(
                    ui.t(f"judge_flag_{flag.split(':')[1]}") for flag in row["flags"]
                ),
                ui.t("col_reason_given"): row["reason"],
                ui.t("col_evidence"): row["evidence"],
                ui.t("col_detail"): row["detail"],
            }
            for row in report.review
        ]
    ),
    hide_index=True,
    key="judge_review",
)
