"""The labeling page: one (query, passage) at a time, the rubric in view, grades by key.

Annotators see the query, the passage as plain text and its document's title; never a
system, rank, score, provenance, or anyone else's grade.

A key grades the item on the screen when it was pressed, or nothing (issue 20). The widget
keys of the item's buttons carry its identity (``item_key``), so a key pressed while the
page is being redrawn for the next item cannot trigger the next item's button; a callback
writes only when its item is the one this session last drew (``page_position.on_screen``)
and the database's revision check agrees. Anything else writes nothing and says so.
"""

from __future__ import annotations

import time

import streamlit as st

from annotator.app import ui
from annotator.labeling import assignment, page_position
from annotator.labeling.search import ManualSearch
from annotator.rubric import load_rubric
from pooling.grades import GRADES
from pooling.i18n import LocalizedError
from pooling.readers import MAX_SEARCH, MAX_TEXT

POSITION, SHOWN, FLASH = "label_position", "label_shown", "label_flash"
DRAWN = "label_drawn"  # the item on the screen: its (assignment id, revision)
NOT_APPLIED = "key_not_applied"
# The item a passage was last added for from the search box: "added" is said there, where
# the click was, for as long as that item is on the screen (a message dropped after one
# drawing is lost when another rerun cuts that drawing short: a click under load in CI).
SEARCH_FLASH = "label_search_flash"
SEARCH_OPEN = "search_open"  # the search panel's toggle

# One screen, from a laptop's (1366×768) up: the query, the passage, the grade buttons and
# the rubric's grade lines without scrolling the page. The passage and the query scroll
# inside their boxes, whose heights follow the window's; so does the rubric's whole text.
LAYOUT = """<style>
.stMainBlockContainer { padding-top: 4rem; padding-bottom: 2rem; }
.st-key-query { max-height: 7rem; overflow-y: auto; }
.st-key-passage { max-height: max(7rem, calc(100vh - 33rem)); overflow-y: auto; }
.st-key-passage_heading [data-testid="stText"] { font-weight: 600; }
.st-key-rubric_grades p { font-size: 0.875rem; margin-bottom: 0.25rem; }
.st-key-rubric_full { max-height: max(10rem, calc(100vh - 23rem)); overflow-y: auto; }
.st-key-rubric_full :is(p, li) { font-size: 0.875rem; }
.st-key-rubric_full :is(h4, h5, h6) { font-size: 1rem; padding: 0.5rem 0 0.25rem; }
</style>"""


@st.cache_resource(show_spinner=False)
def manual_search(pool_name: str) -> ManualSearch:
    return ManualSearch(ui.engine(), pool_name)


def flash(message: str | LocalizedError, **params: object) -> None:
    """Say ``message`` (a message key with its ``params``, or an error the annotator can
    act on) on the next run of the fragment: a callback cannot draw into it."""
    st.session_state[FLASH] = (message, params)


def item_key(name: str, item: assignment.Item) -> str:
    """A widget key that names the item it acts on: no widget of one item is the same
    widget as another item's, however fast the keys come."""
    return f"{name}_{item.assignment_id}_{item.revision}"


def note_key(item: assignment.Item) -> str:
    return item_key("note", item)


def still_on_screen(item: assignment.Item) -> bool:
    """Whether ``item`` is the one this session drew last, drawn long enough ago to have
    been read (``page_position.seen``); if not, say that the key was not applied (the page
    was changing, the item had only just appeared, or it was saved already)."""
    drawn_last = page_position.on_screen(st.session_state.get(DRAWN), item)
    if drawn_last and page_position.seen(seconds_shown(item)):
        return True
    flash(NOT_APPLIED)
    return False


def seconds_shown(item: assignment.Item) -> float:
    """How long ago this session first drew ``item`` at its revision (0 if it never did)."""
    shown = st.session_state.setdefault(SHOWN, {})
    now = time.monotonic()
    return now - shown.get((item.assignment_id, item.revision), now)


def seconds_on(item: assignment.Item) -> float:
    return round(seconds_shown(item), 1)


# -- what the buttons do ------------------------------------------------------------------


@ui.guarded
def grade(item: assignment.Item, user_id: int, value: int | None) -> None:
    if not still_on_screen(item):
        return
    note = st.session_state.get(note_key(item), "")
    try:
        saved = ui.as_user(
            assignment.submit,
            ui.engine(),
            item,
            user_id,
            grade=value,
            unsure=value is None,
            note=note,
            seconds=seconds_on(item),
            login=ui.login_session(),
        )
    except LocalizedError as error:  # unsure without a note, a control character: the note stays
        flash(error)
        return
    if saved is False:
        flash("not_saved")
    elif saved is not ui.REFUSED and st.session_state.get(POSITION) is not None:
        flash(
            "revised_grade",
            index=st.session_state[POSITION] + 1,
            new=grade_word(value),
            old=grade_word(item.grade),
        )
    st.session_state[POSITION] = None


def grade_word(value: int | None) -> str:
    return ui.t("unsure_word") if value is None else str(value)


@ui.guarded
def skip(item: assignment.Item, user_id: int) -> None:
    if not still_on_screen(item):
        return
    if not item.judged:
        ui.as_user(assignment.skip, ui.engine(), item, user_id, login=ui.login_session())
    st.session_state[POSITION] = None


def move(step: int, judged: int) -> None:
    st.session_state[POSITION] = page_position.moved(st.session_state.get(POSITION), step, judged)


@ui.guarded
def add_found(search: ManualSearch, item: assignment.Item, chunk_id: str, user_id: int) -> None:
    if ui.as_user(search.add, item.query_id, chunk_id, user_id) is not ui.REFUSED:
        # The same answer whether or not a system had found it, by the button clicked.
        st.session_state[SEARCH_FLASH] = item.assignment_id


# -- what the page shows ------------------------------------------------------------------


def progress_bars(done: assignment.Progress) -> None:
    for column, (key, part, whole) in zip(
        st.columns(2),
        (
            ("progress_query", done.query_done, done.query_total),
            ("progress_pool", done.pool_done, done.pool_total),
        ),
        strict=True,
    ):
        column.progress(part / max(whole, 1), text=ui.t(key, done=int(part), total=int(whole)))


def back_button(view: page_position.View, **style) -> None:
    st.button(
        ui.t("previous_button"),
        key="previous",
        shortcut="B",
        on_click=move,
        args=(page_position.BACK, view.judged),
        disabled=not view.judged or view.position == 0,
        **style,
    )


def grade_buttons(item: assignment.Item, user_id: int) -> None:
    # The grade and a short label, wrapped rather than cut; the rubric's heading on hover.
    labels = load_rubric(ui.lang()).labels
    for value, column in zip(GRADES, st.columns(len(GRADES)), strict=True):
        with column, st.container(key=f"grade_{value}"):
            st.button(  # markdown: the app's own (its short labels, page_messages)
                ui.t("grade_button", grade=value, label=ui.t(f"grade_short_{value}")),
                key=item_key(f"grade_{value}", item),
                shortcut=str(value),
                on_click=grade,
                args=(item, user_id, value),
                width="stretch",
                wrap=True,
                help=labels.get(value, ""),
                type="primary" if item.judged and item.grade == value else "secondary",
            )


def other_buttons(view: page_position.View, item: assignment.Item, user_id: int) -> None:
    left, middle, right, far = st.columns(4)
    with left:
        st.button(
            ui.t("unsure_button"),
            key=item_key("unsure", item),
            shortcut="U",
            on_click=grade,
            args=(item, user_id, None),
            width="stretch",
            wrap=True,  # a long label (zh, with its key badge) wraps rather than is cut
        )
    with middle:
        st.button(
            ui.t("skip_button"),
            key=item_key("skip", item),
            shortcut="S",
            on_click=skip,
            args=(item, user_id),
            width="stretch",
            wrap=True,
            disabled=item.judged,
        )
    with right:
        back_button(view, width="stretch", wrap=True)
    with far:
        st.button(
            ui.t("next_button") if view.reviewing else ui.t("back_to_current"),
            key="next",
            shortcut="F",
            on_click=move,
            args=(page_position.FORWARD, view.judged),
            width="stretch",
            wrap=True,
            disabled=not view.reviewing,
        )


def search_box(pool_name: str, item: assignment.Item, user_id: int) -> None:
    added = st.session_state.get(SEARCH_FLASH) == item.assignment_id
    if not added:  # another item since: what was said was for the last one
        st.session_state.pop(SEARCH_FLASH, None)
    # Opened by a toggle that stays as left, item after item: drawn closed, the panel is one
    # widget. An expander drew its box on every key, and in the annotator's browser that
    # alone held the next passage back by a fifth (docs/deployment.md).
    if not st.toggle(ui.t("search_title"), key=SEARCH_OPEN):
        return
    with st.container(key="search_panel", border=True):
        if added:
            st.success(ui.t("added_to_pool"))
        st.caption(ui.t("search_help"))
        words = st.text_input(ui.t("search_box"), key="search_text", max_chars=MAX_SEARCH)
        if not words.strip():
            return
        search = manual_search(pool_name)
        try:
            hits = search.search(words, k=5)
        except LocalizedError as error:  # too long: said here, the panel stays
            ui.plain(error, "error")
            return
        if not hits:
            st.caption(ui.t("search_none"))
        for number, hit in enumerate(hits):
            with st.container(border=True):
                st.text(hit.text)
                st.button(
                    ui.t("add_to_pool"),
                    key=f"add_{number}",
                    on_click=add_found,
                    args=(search, item, hit.chunk_id, user_id),
                )


def notices(view: page_position.View) -> None:
    """Whether an earlier item is under review, and what the last action said."""
    if view.reviewing and view.position is not None:
        st.info(ui.t("reviewing", index=view.position + 1, total=int(view.judged)))
    message, params = st.session_state.pop(FLASH, (None, {}))
    if isinstance(message, LocalizedError):
        ui.plain(message, "error")
    elif message in (NOT_APPLIED, "not_saved"):  # brief, and the passage does not move
        st.toast(ui.t(message), icon=":material/block:")
    elif message:
        alert = st.success if message == "revised_grade" else st.warning
        alert(ui.t(message, **params))


@st.fragment
@ui.guarded
def labeling_panel(pool_name: str, user_id: int) -> None:
    engine = ui.engine()
    # A fragment reruns alone: the login is checked again here, not only by the page, in
    # the transaction that reads the view (one round trip less on every key).
    view = ui.as_user(
        page_position.view,
        engine,
        pool_name,
        user_id,
        st.session_state.get(POSITION),
        login=ui.login_session(),
    )
    if view is ui.REFUSED:  # logged out meanwhile: the whole page says so
        st.rerun(scope="app")
    st.session_state[POSITION] = view.position
    item = view.item
    # What comes and goes (notices, the saved grade, the context) sits in containers that
    # are always drawn, so that the passage and the buttons keep their places: a passage
    # or button drawn at a new place would stay beside the new one, stale, until the redraw
    # ends, and a key could reach a button under another passage than the one read.
    with st.container(key="label_notices"):
        notices(view)
    st.session_state[DRAWN] = page_position.drawn(item)
    if item is None:  # said where the passage was, at the top of the page
        with st.container(key="all_done"):
            st.success(ui.t("all_done"))
            back_button(view)
        return
    st.session_state.setdefault(SHOWN, {}).setdefault(
        (item.assignment_id, item.revision), time.monotonic()
    )
    progress_bars(view.progress)
    place = item.place.label(ui.lang(), title=item.title)
    ui.show_pair(item.query_text, item.query_notes, item.title, item.chunk_text, place)
    # The buttons right under the passage: on a laptop's screen they are in view with it.
    grade_buttons(item, user_id)
    other_buttons(view, item, user_id)
    with st.container(key="label_saved"):
        if item.judged:
            st.caption(
                ui.t("saved_unsure")
                if item.unsure
                else ui.t("saved_grade", grade=f"{item.grade:d}")
            )
    with st.container(key="note"):
        st.text_area(
            ui.t("note"), value=item.note, key=note_key(item), height=68, max_chars=MAX_TEXT
        )
    with st.container(key="label_context"):
        if st.toggle(ui.t("show_context"), key=f"context_{item.assignment_id}"):
            ui.show_context(*assignment.neighbours(engine, item))
    st.caption(ui.t("keys_help"))
    search_box(pool_name, item, user_id)


def rubric_pane() -> None:
    """The rubric's four grade lines, always in view, and its whole text in a pane of its
    own that scrolls."""
    rubric = load_rubric(ui.lang())
    with st.container(key="rubric_grades"):
        for heading, first in rubric.grade_lines.values():
            st.markdown(f"**{heading}** {first}")  # markdown: the app's own (rubrics/)
    with st.container(key="rubric_full", border=True):
        st.markdown(rubric.compact)  # markdown: the app's own (rubrics/)


user = ui.require()
ui.sidebar(user, labeling=True)
pool_name = ui.choose_pool()
st.html(LAYOUT)
work, rubric = st.columns([3, 2], gap="large")
with work:
    labeling_panel(pool_name, user.id)
with rubric:
    rubric_pane()
