"""Leads: evaluate uploaded runs against a release. The overall table, a chart per slice or
split with its intervals, each candidate's queries against the baseline, the regressions,
and the report to download; every figure comes from ``annotator.evaluation.evaluation`` and
``annotator.evaluation.evaluation_report`` (what ``qrels evaluate`` prints)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from annotator.app import ui
from annotator.app.unchecked import unchecked
from annotator.app.uploads import saved
from annotator.evaluation import comparison, evaluation, evaluation_report
from annotator.evaluation.estimation_text import (
    estimate_head_lines,
    estimate_part,
    estimate_table,
)
from annotator.evaluation.evaluation_text import (
    head_lines,
    low_judged_items,
    low_judged_lines,
    table,
    unanswerable_lines,
)
from annotator.evaluation.run_files import read_run_file, stored_run_names, stored_runs
from annotator.releases import releases
from pooling.i18n import LocalizedError
from pooling.metrics import DEFAULT_METRICS
from pooling.release_folder import read_model_judgments, read_sample


# No default spinner: it names the function in English; the calls show the page's own words.
@st.cache_resource(max_entries=4, show_spinner=False)
def evaluated(
    folder: str, files: tuple[tuple[str, bytes], ...], options: tuple, stored: tuple[str, ...]
):
    """The evaluation of the runs ``stored`` in the database then the uploaded ``files``
    (name, bytes) against the release in ``folder``, and its report; kept while the same
    inputs come back."""
    metrics, level, split, by, context_k, condensed = options
    settings = evaluation.Settings.parse(
        metrics, context_k or None, level=level, split=split, by=by, condensed=condensed
    )
    runs = gathered(folder, files, stored)
    result = evaluation.evaluate(evaluation.load_release(folder), runs, settings)
    return result, evaluation_report.report(result)


@st.cache_resource(max_entries=8, show_spinner=False)
def release_models(folder: str) -> list[str]:
    """The model judges a release holds grades of, when it holds a human sample too (what
    estimates need); a release never changes, so read once."""
    return sorted(read_model_judgments(folder)) if read_sample(folder) else []


@st.cache_resource(max_entries=4, show_spinner=False)
def estimated(
    folder: str,
    files: tuple[tuple[str, bytes], ...],
    options: tuple,
    stored: tuple[str, ...],
    model: str,
):
    """``estimate_part`` of the evaluation ``evaluated`` made of the same inputs."""
    result, _ = evaluated(folder, files, options, stored)
    runs = gathered(folder, files, stored)
    return estimate_part(result, runs, model)


def gathered(folder: str, files: tuple[tuple[str, bytes], ...], stored: tuple[str, ...]):
    """The runs ``stored`` in the database (chosen by name among those of the release's
    queries and corpus, never a path), then the uploaded ``files``."""
    runs = stored_runs(ui.engine(), folder, list(stored))
    for name, data in files:
        with saved(data, name) as upload:  # the client's name is a label, never a path
            runs.append(read_run_file(upload, name=upload.stem))
    return runs


def frame_of(kind: str, data: dict) -> pd.DataFrame:
    header, rows = table(kind, data, ui.lang())
    return pd.DataFrame(rows, columns=header)


def behind_toggle(chart: alt.Chart, frame: pd.DataFrame, key: str) -> None:
    """A chart, and the table it is drawn from when the toggle is on."""
    st.altair_chart(unchecked(chart), width="stretch")
    if st.toggle(ui.t("eval_show_table"), key=key):
        st.dataframe(frame, hide_index=True)


user = ui.require("lead")
ui.sidebar(user)
written = releases.app_releases(ui.engine())  # recorded ones only: no hidden or forged folder
if not written:
    st.info(ui.t("eval_no_releases"))
    st.stop()
chosen = st.selectbox(ui.t("eval_release"), written, key="eval_release")
try:
    folder = str(releases.recorded_folder(ui.engine(), chosen))  # checked on every use
    known = stored_run_names(ui.engine(), folder)
except (LocalizedError, OSError) as error:
    ui.plain(error, "error")
    st.stop()
# Runs imported into the database are offered by name, all chosen at first: the demo's two
# are scored as the page opens. Uploads come after them.
stored = st.multiselect(ui.t("eval_stored_runs"), known, default=known, key="eval_stored")
uploads = st.file_uploader(ui.t("eval_runs"), accept_multiple_files=True, key="eval_runs")
with st.expander(ui.t("eval_metrics"), expanded=False):
    metrics = st.text_input(ui.t("eval_metrics"), DEFAULT_METRICS, key="eval_metrics")
    level = st.radio(ui.t("eval_level"), ["chunk", "doc"], horizontal=True, key="eval_level")
    split = st.selectbox(
        ui.t("eval_split"),
        [None, "dev", "test"],
        format_func=lambda s: s or ui.t("eval_all_splits"),
        key="eval_split",
    )
    by = st.radio(ui.t("group_by"), ["slice", "split"], horizontal=True, key="eval_by")
    context_k = st.number_input(ui.t("eval_context_k"), 0, 1000, 0, key="eval_context_k")
    condensed = st.checkbox(ui.t("eval_condensed_option"), key="eval_condensed")
if not uploads and not stored:
    st.info(ui.t("eval_upload_hint"))
    st.stop()
try:
    with st.spinner(ui.t("eval_scoring")):
        result, data = evaluated(
            folder,
            tuple((u.name, u.getvalue()) for u in uploads or []),
            (metrics, level, split, by, int(context_k), condensed),
            tuple(stored),
        )
except (LocalizedError, OSError) as error:
    ui.plain(error, "error")
    st.stop()

for line in head_lines(data, ui.lang()):
    st.text(line)
st.subheader(ui.t("eval_overall"))
overall = [row for row in data["summary"] if row["group"] == "all"]
st.dataframe(frame_of("figures", {**data, "summary": overall}), hide_index=True)
if data["comparisons"]:
    st.subheader(ui.t("eval_md_comparisons"))
    st.caption(ui.t("eval_test_name"))
    st.caption(ui.t("eval_adjusted", count=len(data["comparisons"])))
    st.dataframe(frame_of("comparisons", data), hide_index=True)

names = [m.name for m in result.settings.metrics]
metric = st.selectbox(ui.t("eval_chart_metric"), names, key="eval_chart_metric")
ui.plain(ui.t("eval_chart_title", metric=metric), "subheader")
per_group = result.summary[result.summary["metric"] == metric][
    ["run", "group", "queries", "value", "low", "high"]
]
bars = (
    alt.Chart(per_group)
    .mark_bar()
    .encode(
        x=alt.X("group:N", title=None),
        xOffset="run:N",
        y=alt.Y("value:Q", title=metric, scale=alt.Scale(domain=[0, 1])),
        color="run:N",
        tooltip=["run", "group", "queries", "value", "low", "high"],
    )
)
errors = (
    alt.Chart(per_group)
    .mark_errorbar()
    .encode(x="group:N", xOffset="run:N", y=alt.Y("low:Q", title=metric), y2="high:Q")
)
behind_toggle(bars + errors, per_group, "eval_group_table")

if len(result.runs) > 1:
    candidates = [info.name for info in result.runs[1:]]
    run = st.selectbox(ui.t("eval_candidate"), candidates, key="eval_candidate")
    title = ui.t("eval_scatter_title", metric=metric, baseline=result.baseline, run=run)
    ui.plain(title, "subheader")  # run names come from the uploaded files
    pairs = comparison.paired(result, run, metric, result.groups["all"])
    points = (
        alt.Chart(pairs)
        .mark_circle(size=60)
        .encode(
            x=alt.X("baseline:Q", title=result.baseline, scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("value:Q", title=run, scale=alt.Scale(domain=[0, 1])),
            tooltip=["query_id", "baseline", "value", "difference"],
        )
    )
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="y:Q")
    )
    behind_toggle(points + diagonal, pairs, "eval_scatter_table")
    ui.plain(ui.t("eval_regressions", metric=metric), "subheader")
    movers = frame_of("movers", data)
    regressed = [
        m["run"] == run and m["metric"] == metric and m["change"] == "regressed"
        for m in data["movers"]
    ]
    st.dataframe(movers[regressed], hide_index=True)

models = release_models(folder)
if models:
    st.subheader(ui.t("estimate_section"))
    model = st.selectbox(
        ui.t("estimate_choose_model"),
        [None, *models],
        format_func=lambda m: m or ui.t("estimate_off"),
        key="eval_estimate_model",
    )
    if model:
        try:
            with st.spinner(ui.t("eval_estimating")):
                found = estimated(
                    folder,
                    tuple((u.name, u.getvalue()) for u in uploads or []),
                    (metrics, level, split, by, int(context_k), condensed),
                    tuple(stored),
                    model,
                )
        except (LocalizedError, OSError) as error:
            ui.plain(error, "error")
            st.stop()
        for line in estimate_head_lines(found, ui.lang()):
            st.text(line.strip())
        st.dataframe(estimate_table(found, "figures", ui.lang()), hide_index=True)
        if found["differences"]:
            st.caption(ui.t("estimate_differences"))
            st.dataframe(estimate_table(found, "differences", ui.lang()), hide_index=True)
        st.caption(ui.t("estimate_what"))

st.subheader(ui.t("eval_md_unanswerable"))
for line in unanswerable_lines(data, ui.lang(), brief=True):
    st.text(line)
# One warning however many runs and groups it concerns; each one a click away.
low_judged = low_judged_items(data, ui.lang())
if len(low_judged) == 1:
    ui.plain(low_judged_lines(data, ui.lang(), key="app_eval_low_judged")[0], "warning")
elif low_judged:
    st.warning(ui.t("app_eval_low_judged_folded", count=len(low_judged)))
    with st.expander(ui.t("app_eval_low_judged_list", count=len(low_judged))):
        st.text("\n".join(low_judged))  # names runs and groups
files = evaluation_report.report_files(result, data, ui.lang())
st.download_button(
    ui.t("eval_download"),
    evaluation_report.zip_report(files, f"evaluation-{result.release.version}"),
    file_name=f"evaluation-{result.release.version}.zip",
    mime="application/zip",
    key="eval_download",
    on_click="ignore",  # a download changes nothing: no need to run the page again
)
