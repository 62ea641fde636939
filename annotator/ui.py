"""What every page shares: the database, the logged-in user checked at every render, the
language, and keyboard shortcuts. Pages render and dispatch; the logic is elsewhere.

The app keeps nothing of its own but the login (``user_id`` in the session): the user is
read from the database on every render, so a disabled account or a changed role takes
effect at the next click, in every app process serving the database.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import streamlit as st
from sqlalchemy.engine import Engine

from annotator.agreement import pool_agreement
from annotator.auth import Account, account
from annotator.pool_building import pool_names
from annotator.pool_figures import active_queries, pool_figures
from annotator.progress import team_figures
from pooling.grades import DEFAULT_POLICY, POLICIES
from pooling.i18n import current_language
from pooling.i18n import t as translate
from storage.db import make_engine

USER_KEY, LANG_KEY, POOL_KEY = "user_id", "lang", "pool"


@st.cache_resource
def engine() -> Engine:
    """One engine per app process, on ``$QRELS_DATABASE_URL`` (set by ``qrels serve``)."""
    return make_engine()


# The figures behind the lead's charts, by name: counted from the whole pool (agreement
# with its bootstrap), they take seconds, so a page keeps them a minute (FIGURES_KEPT).
FIGURES: dict[str, Callable[..., Any]] = {
    "agreement": pool_agreement,
    "team": team_figures,
    "pools": pool_figures,
    "active": active_queries,
}
FIGURES_KEPT = 60


def figures(name: str, *args: object) -> tuple[datetime, Any]:
    """``FIGURES[name](engine, *args)`` and when it was counted: counted again when more
    than ``FIGURES_KEPT`` seconds old, shared by everyone looking at the same figures."""
    return _counted(engine().url.render_as_string(hide_password=True), name, *args)


def count_afresh() -> None:
    """Forget the kept figures: a lead changed what they count (a pool, a decision)."""
    _counted.clear()


@st.cache_data(ttl=FIGURES_KEPT, show_spinner=False, max_entries=64)
def _counted(database: str, name: str, *args: object) -> tuple[datetime, Any]:
    return datetime.now(UTC), FIGURES[name](engine(), *args)


def counted_at(moment: datetime) -> None:
    """Say when the figures on the page were counted."""
    st.caption(t("counted_at", time=f"{moment:%H:%M:%S}", seconds=FIGURES_KEPT))


def lang() -> str:
    if LANG_KEY not in st.session_state:
        st.session_state[LANG_KEY] = current_language()
    return st.session_state[LANG_KEY]


def t(key: str, **params: object) -> str:
    """A message in the language chosen on the page."""
    return translate(key, lang(), **params)


def current_user() -> Account | None:
    """The logged-in user as the database has it now; None when logged out or disabled."""
    user_id = st.session_state.get(USER_KEY)
    if user_id is None:
        return None
    user = account(engine(), user_id)
    if user is None:
        st.session_state.pop(USER_KEY, None)
    return user


def require(role: str | None = None) -> Account:
    """The logged-in user, if allowed here (``role="lead"`` for lead pages); otherwise the
    page shows a refusal and stops before rendering any content."""
    user = current_user()
    if user is None:
        st.warning(t("need_login"))
        st.stop()
    if role == "lead" and user.role != "lead":
        st.error(t("refused"))
        st.stop()
    return user


def sidebar(user: Account) -> None:
    """Who is logged in, the language switch and the logout button."""
    with st.sidebar:
        st.markdown(t("logged_in_as", name=user.name, role=t(f"role_{user.role}")))
        choice = st.radio(
            t("language"),
            ["en", "zh"],
            index=["en", "zh"].index(lang()),
            format_func=lambda code: {"en": "English", "zh": "中文"}[code],
            horizontal=True,
            key="language_switch",
        )
        if choice != lang():
            st.session_state[LANG_KEY] = choice
            st.rerun()
        if st.button(t("logout"), key="logout"):
            st.session_state.clear()
            st.rerun()


def choose_pool() -> str:
    """The pool chosen in the sidebar; with no pool at all, says so and stops the page."""
    names = pool_names(engine())
    if not names:
        st.info(t("no_pools"))
        st.stop()
    return st.sidebar.selectbox(t("pool_select"), names, key=POOL_KEY)


def choose_policy() -> str:
    """The disagreement policy chosen in the sidebar (default: different sides of 2)."""
    return st.sidebar.selectbox(
        t("policy"),
        list(POLICIES),
        index=list(POLICIES).index(DEFAULT_POLICY),
        format_func=lambda name: t(f"policy_{name}"),
        key="policy",
    )


def show_pair(query_text: str, query_notes: str, title: str, text: str) -> None:
    """The query and the passage, both as plain text: markup and scripts are shown."""
    st.markdown(f"**{t('query')}**")
    with st.container(border=True):
        st.text(query_text)
        if query_notes:
            st.caption(t("query_notes"))
            st.text(query_notes)
    st.markdown(f"**{t('chunk')}**")
    with st.container(border=True, key="passage"):
        if title:
            st.caption(t("from_document", title=title))
        st.text(text)


def pool_changed(result, overlap: int | None = None) -> None:
    """Say what a build (with ``overlap``) or a top-up did to a pool, whose figures are
    then counted afresh."""
    count_afresh()
    counts = {k: v for k, v in vars(result).items() if k != "name"}
    if overlap is None:
        st.success(t("pool_topped_up", name=result.name, **counts))
    else:
        st.success(t("pool_built", name=result.name, overlap=overlap, **counts))


def show_context(before: str | None, after: str | None) -> None:
    """The passages before and after the one being judged, as plain text."""
    for label, text in ((t("context_before"), before), (t("context_after"), after)):
        st.caption(label)
        st.text(text if text is not None else t("context_none"))


# Grades, unsure, skip and moving back and forth are the buttons' own shortcuts (Streamlit
# ignores them while a text field has the focus). Two keys need a script: `n` moves into the
# note field, Esc leaves it so that the shortcuts work again.
_NOTE_KEYS = """<script>
const doc = window.parent.document;
if (!window.parent.__qrelsNoteKeys) {
  window.parent.__qrelsNoteKeys = true;
  doc.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA"
                              || target.isContentEditable);
    if (typing) { if (event.key === "Escape") { target.blur(); } return; }
    if (event.key !== "n" || event.ctrlKey || event.metaKey || event.altKey) { return; }
    const note = doc.querySelector(".st-key-note textarea");
    if (note) { event.preventDefault(); note.focus(); }
  });
}
</script>"""


def note_key() -> None:
    """Install the `n` (into the note) and Esc (out of it) keys on the page."""
    st.iframe(_NOTE_KEYS, height=1)
