"""Leads: decide the candidates annotators disagree on or were unsure about, with a reason;
make decided candidates, or an earlier release, gold items, and set how gold is mixed in."""

from __future__ import annotations

import streamlit as st

from annotator.app import charts, ui
from annotator.quality import adjudication, gold, pool_quality
from annotator.releases import releases
from pooling.grades import GRADES
from pooling.i18n import LocalizedError
from pooling.readers import MAX_TEXT

# The decisions this lead made since the queue was counted: (what was counted, decisions).
SINCE_KEY = "decided_since"
# Candidates offered in the choice at once, most severe first: a large pool's queue holds
# hundreds of thousands, more than a select box can send to the browser on every click.
QUEUE_OFFERED = 500
# Queries drawn in the statuses chart, those with the most candidates needing a decision.
CHART_QUERIES = 40


@ui.guarded
def record(pool_name: str, key: tuple[str, str], policy: str, lead_id: int) -> None:
    grade = st.session_state["final_grade"]
    rationale = st.session_state.get("rationale", "")
    try:
        pool_quality.record_decision(ui.engine(), pool_name, key, grade, rationale, lead_id, policy)
    except LocalizedError as error:
        st.session_state["adjudication_flash"] = ("error", error)
    else:
        # The final grades changed: the figures that use them are counted again; the queue
        # is not (it takes seconds at a million judgments) but takes the decision over.
        ui.count_afresh(*(name for name in ui.FIGURES if name != "adjudication"))
        st.session_state[SINCE_KEY][1][key] = (grade, rationale)
        message = ui.t("decided", query=key[0], chunk=key[1], grade=grade)
        st.session_state["adjudication_flash"] = ("success", message)
        st.session_state["rationale"] = ""


@ui.guarded
def make_gold(pool_name: str, keys: list[tuple[str, str]], lead_id: int) -> None:
    added = ui.as_user(gold.add_from_adjudications, ui.engine(), pool_name, keys, lead_id)
    if added is not ui.REFUSED:
        ui.count_afresh()
        st.session_state["adjudication_flash"] = ("success", added.message(pool_name, ui.lang()))


def gold_section(pool_name: str, lead_id: int) -> None:
    """The pool's gold: how it is mixed in, and gold from an earlier release."""
    chosen = gold.settings(ui.engine(), pool_name)
    with st.expander(ui.t("gold_section")):
        st.caption(ui.t("gold_explained"))
        with st.form("gold_settings"):
            left, right = st.columns(2)
            rate = left.number_input(ui.t("gold_rate"), min_value=2, value=chosen.rate)
            floor = right.number_input(
                ui.t("gold_floor"), min_value=-1.0, max_value=1.0, value=chosen.floor, step=0.05
            )
            min_seen = left.number_input(ui.t("gold_min_seen"), min_value=1, value=chosen.min_seen)
            show = right.toggle(ui.t("gold_show"), value=chosen.show)
            if st.form_submit_button(ui.t("gold_save")):
                values = dict(rate=int(rate), floor=float(floor), min_seen=int(min_seen), show=show)
                if (
                    ui.as_user(gold.configure, ui.engine(), pool_name, lead_id, **values)
                    is not ui.REFUSED
                ):
                    ui.count_afresh()
                    st.success(ui.t("gold_saved"))
        versions = releases.app_releases(ui.engine())
        if not versions:
            return
        with st.form("gold_from_release"):
            version = st.selectbox(ui.t("gold_release"), versions)
            sample = st.number_input(ui.t("gold_sample"), min_value=0, value=0)
            if st.form_submit_button(ui.t("gold_add_release")):
                folder = releases.release_dir() / releases.check_version(version)
                added = ui.as_user(
                    gold.add_from_release,
                    ui.engine(),
                    pool_name,
                    folder,
                    sample=int(sample) or None,
                    by=lead_id,
                )
                if added is not ui.REFUSED:
                    ui.count_afresh()
                    ui.plain(added.message(pool_name, ui.lang()), "success")


user = ui.require("lead")
ui.sidebar(user)
pool_name = ui.choose_pool()
policy = ui.choose_policy()
ui.guarded(gold_section)(pool_name, user.id)
counted, counted_queue = ui.figures("adjudication", pool_name, policy)
since = st.session_state.get(SINCE_KEY)
if since is None or since[0] != (pool_name, policy, counted.moment):
    since = st.session_state[SINCE_KEY] = ((pool_name, policy, counted.moment), {})
decisions = {**counted_queue.decisions, **since[1]}

everyone = counted_queue.annotators
all_label = ui.t("filter_all")
left, middle, right = st.columns(3)
query_filter = left.selectbox(ui.t("filter_query"), [all_label, *counted_queue.query_ids])
slice_filter = middle.selectbox(ui.t("filter_slice"), [all_label, *counted_queue.slice_tags])
person_filter = right.selectbox(ui.t("filter_annotator"), [all_label, *everyone])
hide_names = st.toggle(ui.t("hide_names"), value=True)
include_resolved = st.toggle(ui.t("include_resolved"), key="include_resolved")
decided_here: dict = since[1]  # this lead's decisions since the queue was counted


def queued(everything: bool):
    """The queue under the page's filters: what needs a decision, or ``everything``."""
    found = adjudication.queue_of(
        counted_queue,
        everything=everything,
        query_id=None if query_filter == all_label else query_filter,
        slice_tag=None if slice_filter == all_label else slice_filter,
        annotator=None if person_filter == all_label else person_filter,
    )
    return adjudication.decided_since(found, decided_here, everything=everything)


needing = queued(everything=False)
shown = queued(everything=True) if include_resolved else needing
ui.counted_at(counted)
if not counted_queue.table.empty:
    per_query = adjudication.status_counts(counted_queue.table)
    drawn = adjudication.most_needing(per_query, CHART_QUERIES)
    charts.show("statuses", charts.statuses, drawn, ui.t("chart_statuses"))
    judged = per_query["query"].unique()
    if len(drawn["query"].unique()) < len(judged):
        st.caption(ui.t("chart_statuses_most", shown=CHART_QUERIES, count=len(judged)))
# What a decision or gold did is shown where the lead clicked: by the button.
flash = st.session_state.pop("adjudication_flash", None)
if shown.empty:
    if flash:
        ui.plain(flash[1], flash[0])
    st.success(ui.t("queue_empty"))
    st.stop()
if include_resolved:
    st.caption(ui.t("queue_count_all", shown=len(shown), count=len(needing)))
else:
    st.caption(ui.t("queue_count", count=len(needing)))
if len(shown) > QUEUE_OFFERED:
    st.caption(ui.t("queue_first", shown=QUEUE_OFFERED))
offered = adjudication.with_details(counted_queue, shown.head(QUEUE_OFFERED))
keys = list(zip(offered["query_id"], offered["chunk_id"], strict=True))
key = st.selectbox(
    ui.t("candidate"), keys, format_func=lambda k: f"{k[0]} / {k[1]}", key="candidate"
)
row = offered[(offered["query_id"] == key[0]) & (offered["chunk_id"] == key[1])].iloc[0]
view = pool_quality.candidate_view(ui.engine(), pool_name, key)

ui.show_pair(view.query_text, view.query_notes, view.title, view.text)
with st.expander(ui.t("show_context")):
    ui.show_context(view.before, view.after)

st.markdown(f"**{ui.t('grades_given')}**")
names = {name: (f"#{i + 1}" if hide_names else name) for i, name in enumerate(everyone)}
for annotator, grade in row["grades"].items():
    note = row["notes"].get(annotator, "")
    st.text(f"{names[annotator]}: {grade}" + (f"  — {note}" if note else ""))
for annotator in row["unsure"]:
    st.text(f"{names[annotator]}: {ui.t('unsure_button')}  — {row['notes'].get(annotator, '')}")
if key in decisions:
    ui.plain(ui.t("current_decision", grade=decisions[key][0], why=decisions[key][1]))
    if key in {(g.query_id, g.chunk_id) for g in gold.gold_items(ui.engine(), pool_name)}:
        st.caption(ui.t("gold_is"))
    else:
        st.button(
            ui.t("gold_make"), key="make_gold", on_click=make_gold, args=(pool_name, [key], user.id)
        )
if st.session_state.get("final_grade_for") != key:
    # A new candidate: the box starts at its current decision, else its resolved grade.
    st.session_state["final_grade_for"] = key
    st.session_state["final_grade"] = adjudication.proposed_grade(row, decisions.get(key))
st.radio(
    ui.t("final_grade"),
    GRADES,
    horizontal=True,
    key="final_grade",
    format_func=lambda g: f"{g:d}",
)
st.text_input(ui.t("rationale"), key="rationale", max_chars=MAX_TEXT)
st.button(
    ui.t("decide_button"),
    key="decide",
    on_click=record,
    args=(pool_name, key, policy, user.id),
    type="primary",
)
if flash:
    ui.plain(flash[1], flash[0])
