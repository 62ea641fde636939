"""The labeling page: one (query, passage) at a time, the rubric in view, grades by key.

Annotators see the query, the passage as plain text and its document's title; never a
system, rank, score, provenance, or anyone else's grade.
"""

from __future__ import annotations

import time

import streamlit as st

from annotator import assignment, ui
from annotator.rubric import load_rubric
from annotator.search import ManualSearch

REVIEW, SHOWN, FLASH = "label_review", "label_shown", "label_flash"


@st.cache_resource(show_spinner=False)
def manual_search(pool_name: str) -> ManualSearch:
    return ManualSearch(ui.engine(), pool_name)


def flash(key: str) -> None:
    st.session_state[FLASH] = key


def note_key(item: assignment.Item) -> str:
    return f"note_{item.assignment_id}_{item.revision}"


def seconds_on(item: assignment.Item) -> float:
    shown = st.session_state.setdefault(SHOWN, {})
    return round(
        time.monotonic() - shown.get((item.assignment_id, item.revision), time.monotonic()), 1
    )


def grade(item: assignment.Item, user_id: int, value: int | None) -> None:
    note = st.session_state.get(note_key(item), "")
    if value is None and not note.strip():
        flash("unsure_needs_note")
        return
    saved = assignment.submit(
        ui.engine(),
        item,
        user_id,
        grade=value,
        unsure=value is None,
        note=note,
        seconds=seconds_on(item),
    )
    if not saved:
        flash("not_saved")
    st.session_state[REVIEW] = None


def skip(item: assignment.Item) -> None:
    if not item.judged:
        assignment.skip(ui.engine(), item)
    st.session_state[REVIEW] = None


def move(step: int, history_length: int) -> None:
    review = st.session_state.get(REVIEW)
    position = (history_length if review is None else review) + step
    # Past the last judged item is the current one (None); before the first stays there.
    st.session_state[REVIEW] = max(position, 0) if position < history_length else None


def add_found(search: ManualSearch, query_id: str, chunk_id: str, user_name: str) -> None:
    flash("added_to_pool" if search.add(query_id, chunk_id, user_name) else "already_in_pool")


@st.fragment
def labeling(pool_name: str, user_id: int, user_name: str) -> None:
    engine = ui.engine()
    history = assignment.judged_items(engine, pool_name, user_id)
    review = st.session_state.get(REVIEW)
    if review is not None and review < len(history):
        item = history[review]
        st.info(ui.t("reviewing", index=review + 1, total=len(history)))
    else:
        st.session_state[REVIEW] = None
        item = assignment.next_item(engine, pool_name, user_id)
    message = st.session_state.pop(FLASH, None)
    if message:
        (st.success if message == "added_to_pool" else st.warning)(ui.t(message))
    if item is None:
        st.success(ui.t("all_done"))
        st.button(
            ui.t("previous_button"),
            key="previous",
            shortcut="B",
            on_click=move,
            args=(-1, len(history)),
            disabled=not history,
        )
        return
    st.session_state.setdefault(SHOWN, {}).setdefault(
        (item.assignment_id, item.revision), time.monotonic()
    )

    done = assignment.progress(engine, pool_name, user_id, item.query_id)
    st.progress(
        done.query_done / max(done.query_total, 1),
        text=ui.t("progress_query", done=done.query_done, total=done.query_total),
    )
    st.progress(
        done.pool_done / max(done.pool_total, 1),
        text=ui.t("progress_pool", done=done.pool_done, total=done.pool_total),
    )

    ui.show_pair(item.query_text, item.query_notes, item.title, item.chunk_text)
    if st.toggle(ui.t("show_context"), key=f"context_{item.assignment_id}"):
        before, after = assignment.neighbours(engine, item)
        for label, text in ((ui.t("context_before"), before), (ui.t("context_after"), after)):
            st.caption(label)
            st.text(text if text is not None else ui.t("context_none"))

    if item.judged:
        st.caption(ui.t("saved_unsure") if item.unsure else ui.t("saved_grade", grade=item.grade))
    with st.container(key="note"):
        st.text_area(ui.t("note"), value=item.note, key=note_key(item), height=68)
    labels = load_rubric(ui.lang()).labels
    columns = st.columns(4)
    for value, column in zip(range(4), columns, strict=True):
        column.button(
            ui.t("grade_button", grade=value, label=labels.get(value, "")),
            key=f"grade_{value}",
            shortcut=str(value),
            on_click=grade,
            args=(item, user_id, value),
            width="stretch",
            help=labels.get(value, ""),
            type="primary" if item.judged and item.grade == value else "secondary",
        )
    left, middle, right, far = st.columns(4)
    left.button(
        ui.t("unsure_button"),
        key="unsure",
        shortcut="U",
        on_click=grade,
        args=(item, user_id, None),
        width="stretch",
    )
    middle.button(
        ui.t("skip_button"),
        key="skip",
        shortcut="S",
        on_click=skip,
        args=(item,),
        width="stretch",
        disabled=item.judged,
    )
    right.button(
        ui.t("previous_button"),
        key="previous",
        shortcut="B",
        on_click=move,
        args=(-1, len(history)),
        width="stretch",
        disabled=not history or review == 0,
    )
    far.button(
        ui.t("next_button") if review is not None else ui.t("back_to_current"),
        key="next",
        shortcut="F",
        on_click=move,
        args=(1, len(history)),
        width="stretch",
        disabled=review is None,
    )
    st.caption(ui.t("keys_help"))

    with st.expander(ui.t("search_title")):
        st.caption(ui.t("search_help"))
        words = st.text_input(ui.t("search_box"), key="search_text")
        if words.strip():
            search = manual_search(pool_name)
            hits = search.search(words, k=5)
            if not hits:
                st.caption(ui.t("search_none"))
            for number, hit in enumerate(hits):
                with st.container(border=True):
                    st.text(hit.text)
                    st.button(
                        ui.t("add_to_pool"),
                        key=f"add_{number}",
                        on_click=add_found,
                        args=(search, item.query_id, hit.chunk_id, user_name),
                    )


user = ui.require()
ui.sidebar(user)
pool_name = ui.choose_pool()
work, rubric = st.columns([3, 2], gap="large")
with work:
    labeling(pool_name, user.id, user.name)
with rubric, st.container(height=720, border=False):
    st.markdown(load_rubric(ui.lang()).compact)
ui.note_key()
