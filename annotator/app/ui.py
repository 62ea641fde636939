"""What every page shares: the database, the logged-in user checked at every render, the
language, and keyboard shortcuts. Pages render and dispatch; the logic is elsewhere.

The app keeps nothing of its own but the login (the login session's id and ``user_id`` in
the Streamlit session): the user is read from the database on every render, so a disabled
account, a changed role or a logout elsewhere takes effect at the next click, in every app
process serving the database. The login session is the server's (``login_session``); the
browser carries its id in a cookie, so that a reload or a dropped connection finds the same
person logged in.

Streamlit renders Markdown (links, images, colours, LaTeX) in captions, headers, alerts and
widget labels. Anything that came from a user or a file, and any message quoting it, is
shown through ``plain``; labels and alerts otherwise hold only the app's own messages.
No traceback reaches a user: pages, fragments and callbacks run ``guarded``.
"""

from __future__ import annotations

import functools
import gc
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import streamlit as st
from sqlalchemy.engine import Engine

from annotator.app.page_keys import page_keys
from annotator.app.session_cookie import (
    LEADS,
    ROUTE_COOKIE,
    cookie_script,
    cookie_session_id,
    other_port,
    route_script,
)
from annotator.auth import (
    Account,
    account,
    end_session,
    remember_language,
    remember_pool,
    session_account,
)
from annotator.judge.judge_report import judge_report
from annotator.labeling.assignment import pool_with_work
from annotator.labeling.guidance import guide_progress
from annotator.pools.pool_building import pool_names
from annotator.pools.pool_figures import active_queries, pool_figures
from annotator.quality.gold import team_gold
from annotator.quality.kept.figures import pool_agreement, pool_queue
from annotator.quality.progress import data_version, team_figures
from pooling.grades import DEFAULT_POLICY, POLICIES
from pooling.i18n import MESSAGES, LocalizedError, Refused, current_language
from pooling.i18n import t as translate
from pooling.settings import serving_process
from storage.db import make_engine

logger = logging.getLogger(__name__)

USER_KEY, LANG_KEY, POOL_KEY, SESSION_KEY = "user_id", "lang", "pool", "login_session"
CHOSEN_POOL = "chosen_pool"  # the pool box's choice, kept across pages (the box's own is not)


# Whether ``freeze_libraries`` has run in this process. Not ``gc.get_freeze_count()``: that
# walks every frozen object, some 11 ms, and every run of every page (each key) asks.
_frozen = False


def freeze_libraries() -> None:
    """Once per process, at its first run: the libraries the pages draw with imported, then
    every object alive moved out of the garbage collector's reach (``gc.freeze``). One
    process serves every session, and a full collection holds the GIL: over the libraries'
    190,000 objects, which never become garbage, each took about 130 ms in which no other
    session's key moved (benchmarks/served_keys.py). Frozen objects are still freed when
    nothing refers to them; at the first run little but the libraries is alive."""
    global _frozen
    if _frozen:
        return
    _frozen = True
    import altair  # noqa: F401  (the lead pages' charts: their largest library)

    gc.collect()
    gc.freeze()


@st.cache_resource(show_spinner=False)
def engine() -> Engine:
    """One engine per app process, on ``$QRELS_DATABASE_URL`` (set by ``qrels serve``), with
    no query spread over the database's cores (``storage.db.make_engine``)."""
    return make_engine(parallel=False)


# The figures behind the lead's charts, by name: counted from the whole pool (agreement
# with its bootstrap), they take seconds at a million judgments. So they are counted once
# per version of the data (``progress.data_version``) and shared by every lead looking;
# while judgments keep arriving, figures up to FIGURES_KEPT seconds old are shown rather
# than counted again on every click.
FIGURES: dict[str, Callable[..., Any]] = {
    "agreement": pool_agreement,
    "team": team_figures,
    "pools": pool_figures,
    "active": active_queries,
    "guide": guide_progress,
    "gold": team_gold,
    "adjudication": pool_queue,
    "judge": judge_report,
}
FIGURES_KEPT = 60
# Figures kept up to date as judgments arrive (``annotator.quality.kept.figures``): counting
# them again costs what changed, so they are never shown older than the data.
MAINTAINED = {"agreement", "adjudication", "team", "pools"}
FIGURES_HELD = 64  # sets of figures kept, the least recently counted dropped first


@dataclass(frozen=True)
class Counted:
    """When figures were counted, and whether the data changed since."""

    moment: datetime
    version: tuple[int, ...]
    current: bool = True


def figures(name: str, *args: object) -> tuple[Counted, Any]:
    """``FIGURES[name](engine, *args)`` and when it was counted: counted again when the
    data changed and the kept figures are more than ``FIGURES_KEPT`` seconds old."""
    kept, version = _kept(), data_version(engine())
    key = (engine().url.render_as_string(hide_password=True), name, args)
    counted, value = kept.get(key, (None, None))
    now = datetime.now(UTC)
    if counted is None or (
        counted.version != version
        and (name in MAINTAINED or (now - counted.moment).total_seconds() > FIGURES_KEPT)
    ):
        counted, value = Counted(now, version), FIGURES[name](engine(), *args)
        kept.pop(key, None)
        kept[key] = counted, value
        while len(kept) > FIGURES_HELD:
            kept.pop(next(iter(kept)))
    return replace(counted, current=counted.version == version), value


@st.cache_resource(show_spinner=False)
def _kept() -> dict:
    """The figures this process counted, by database, name and arguments."""
    return {}


def count_afresh(*names: str) -> None:
    """Forget the kept figures named ``names`` (all of them when none is named): a lead
    changed what they count (a pool, a decision) and should see it at once."""
    kept = _kept()
    for key in [k for k in kept if not names or k[1] in names]:
        kept.pop(key, None)


def counted_at(counted: Counted) -> None:
    """Say when the figures on the page were counted, and whether they are the latest."""
    key = "counted_at" if counted.current else "counted_before_changes"
    st.caption(t(key, time=f"{counted.moment:%H:%M:%S}", seconds=FIGURES_KEPT))


def lang() -> str:
    if LANG_KEY not in st.session_state:
        # Before a login: the deployment's QRELS_LANG, else the browser's language.
        st.session_state[LANG_KEY] = current_language(browser=st.context.locale)
    return st.session_state[LANG_KEY]


def t(key: str, **params: object) -> str:
    """A message in the language chosen on the page."""
    return translate(key, lang(), **params)


def message_of(message: object) -> str:
    """What the app says for ``message``: an error in the page's language, in the app's
    own words (``app_<key>``: its controls, never a command to type) where it has them."""
    if not isinstance(message, LocalizedError):
        return str(message)
    if f"app_{message.key}" in MESSAGES:
        return translate(f"app_{message.key}", lang(), **message.params)
    return message.message(lang())


# CommonMark lets a backslash escape any ASCII punctuation, and an escaped character is
# only itself. These are the ones that start something: code, emphasis, strikethrough, a
# link or an image, HTML or an autolink, an entity, LaTeX (remark-math), a table, a heading,
# a quote; a colour (remark-directive) needs a "[" straight after its name; a colon
# starts an emoji's `:shortcode:` and a bare web address (GFM links "https://" as it is).
# Other punctuation (a quote mark, a full stop) is left as it is, to read as written.
_MARKUP = re.compile(r"([\\`*_\[\]<>!&$|~#:])")
# At a line's start a list item ("- ", "1. ") or a rule ("---", "===") needs its mark escaped.
_LINE_START = re.compile(r"^(\d*)([-+=.)])")


def as_text(message: object) -> str:
    """Markdown that shows ``message`` (or an error's message) as the text it is, in the
    element's own type, for the elements that render Markdown: alerts, headers, widget
    labels, a progress bar's text. On one line (a line's start could make a heading, a
    list or a block of code), every character that could start markup escaped with a
    backslash: a `:shortcode:` stays words and a bare web address stays text."""
    line = " ".join(message_of(message).splitlines()).strip()
    escaped = _MARKUP.sub(r"\\\1", line)
    return _LINE_START.sub(r"\1\\\2", escaped)


def plain(message: object, kind: str = "text") -> None:
    """Show ``message`` as text, never as Markdown: a title, an id, a slice, a note, a
    rationale, a name, a file name, or a message (or error) that quotes one. ``kind`` is
    ``"text"``, or ``"success"``, ``"info"``, ``"warning"``, ``"error"`` for that alert's
    colours, or ``"subheader"`` for a heading (both hold ``as_text``)."""
    if kind == "text":
        st.text(message_of(message))
        return
    getattr(st, kind)(as_text(message))


def guarded(function: Callable) -> Callable:
    """``function`` (a page, a fragment, a button's callback) made to show errors instead
    of tracebacks: an error the user can act on (``LocalizedError``) as its message; any
    other is logged here with its traceback under a short incident id, and the user sees
    only that id. Streamlit's own stop and rerun signals pass through."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except LocalizedError as error:
            plain(error, "error")
        except Exception:
            incident = secrets.token_hex(4)
            logger.exception("incident %s", incident)
            plain(t("internal_error", incident=incident), "error")

    return run


def current_user() -> Account | None:
    """The logged-in user as the database has it now (one statement); None when logged
    out, disabled, or when their login session ended (logout, expiry, a new password).
    A new Streamlit session (a reload, a new tab, a reconnection) takes up the login
    session its cookie names, and the language the account chose."""
    session_id = st.session_state.get(SESSION_KEY)
    if session_id is None and USER_KEY in st.session_state:
        user = account(engine(), st.session_state[USER_KEY])  # logged in in-process (tests)
    else:
        resumed = session_id is None
        if session_id is None and not other_port(st.context.headers):
            session_id = cookie_session_id(st.context.cookies)
        user = session_account(engine(), session_id) if session_id else None
        if user is not None and resumed:
            st.session_state[SESSION_KEY] = session_id
            if user.language:
                st.session_state[LANG_KEY] = user.language
    if user is None:
        st.session_state.pop(USER_KEY, None)
        st.session_state.pop(SESSION_KEY, None)
    else:
        st.session_state[USER_KEY] = user.id
    return user


def login_session() -> str | None:
    """The id of this Streamlit session's login session (None when logged in in-process,
    as tests do): ``storage.accounts.acting`` checks it is still live where a fragment,
    rerunning alone, would otherwise ask ``current_user`` again."""
    return st.session_state.get(SESSION_KEY)


def to_own_process(user: Account | None) -> None:
    """Where the app runs as ``qrels serve``'s two processes (or behind deploy/nginx), send
    this page to the one for ``user`` (a lead's, or the annotators' for everyone else,
    logged out too) when the route cookie its connection came with names another: the
    cookies are written and the page reloads once, drawing nothing here. So a lead's pages
    never compute in the process that serves the annotators' keys."""
    if serving_process() is None:
        return
    lead = user is not None and user.role == "lead"
    if (st.context.cookies.get(ROUTE_COOKIE) or "") == (LEADS if lead else ""):
        return
    st.iframe(route_script(st.session_state.get(SESSION_KEY), lead), height=1)
    st.stop()


def logged_in(user: Account, session_id: str) -> None:
    """Remember a login in this Streamlit session, in the account's language if it chose
    one; the cookie is set by ``sidebar`` on the next render."""
    st.session_state[USER_KEY], st.session_state[SESSION_KEY] = user.id, session_id
    if user.language:
        st.session_state[LANG_KEY] = user.language


def log_out() -> None:
    """End the login session on the server (its cookie is refused from now on) and forget
    everything of this Streamlit session; the login form then clears the cookie."""
    session_id = st.session_state.get(SESSION_KEY)
    if session_id:
        end_session(engine(), session_id)
    st.session_state.clear()


def session_cookie(session_id: str | None) -> None:
    """Write the login session's id into the browser's cookie, or clear it (None)."""
    st.iframe(cookie_script(session_id), height=1)


REFUSED = object()  # what ``as_user`` returns when the server refused the action


def as_user(action, *args, **kwargs):
    """``action(*args, **kwargs)`` on behalf of the logged-in user: when the server refuses
    it (the account was disabled or lost its role meanwhile), nothing is written, the user
    is logged out and ``REFUSED`` is returned."""
    try:
        return action(*args, **kwargs)
    except Refused:
        st.session_state.pop(USER_KEY, None)
        return REFUSED


def act(action, *args, **kwargs) -> tuple[bool, Any]:
    """``action(*args, **kwargs)`` on behalf of the logged-in user (``as_user``): whether it
    was done and its result. An error the user can act on is shown as plain text; when the
    server refused (the account changed meanwhile) the page is drawn again, logged out."""
    try:
        done = as_user(action, *args, **kwargs)
    except LocalizedError as error:
        plain(error, "error")
        return False, None
    if done is REFUSED:
        st.rerun()
    return True, done


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


def sidebar(user: Account, *, labeling: bool = False) -> None:
    """Who is logged in, the language switch and the logout button; the page's keys
    (``page_keys``: the labeling page's when ``labeling``)."""
    with st.sidebar:
        plain(t("logged_in_as", name=user.name, role=t(f"role_{user.role}")))
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
            as_user(remember_language, engine(), user.id, choice)  # kept for the next login
            st.rerun()
        if st.button(t("logout"), key="logout"):
            log_out()
            st.rerun()
        if st.session_state.get(SESSION_KEY):
            session_cookie(st.session_state[SESSION_KEY])
        page_keys(lang(), st.session_state.get(POOL_KEY), t("key_not_applied"), labeling=labeling)


def choose_pool() -> str:
    """The pool chosen in the sidebar; with no pool at all, says so and stops the page. The
    choice holds on every page and, kept by the account, after a reload and in a new tab
    (a page's own box starts afresh on each page); before any choice, an annotator lands in
    the first pool with work for them."""
    names = pool_names(engine())
    if not names:
        st.info(t("no_pools"))
        st.stop()
    chosen = st.session_state.get(CHOSEN_POOL)
    if chosen not in names:
        user = account(engine(), st.session_state[USER_KEY])
        chosen = user.pool if user is not None else None
        if chosen not in names and user is not None and user.role != "lead":
            chosen = pool_with_work(engine(), names, user.id)
        chosen = chosen if chosen in names else names[0]
        st.session_state[CHOSEN_POOL] = chosen
    picked = st.sidebar.selectbox(t("pool_select"), names, index=names.index(chosen), key=POOL_KEY)
    if picked != chosen:
        st.session_state[CHOSEN_POOL] = picked
        as_user(remember_pool, engine(), st.session_state[USER_KEY], picked)
    return picked


def choose_policy() -> str:
    """The disagreement policy chosen in the sidebar (default: different sides of 2)."""
    return st.sidebar.selectbox(
        t("policy"),
        list(POLICIES),
        index=list(POLICIES).index(DEFAULT_POLICY),
        format_func=lambda name: t(f"policy_{name}"),
        key="policy",
    )


HEADING_TITLE = 80  # characters of a document's title in a passage's heading


def show_pair(query_text: str, query_notes: str, title: str, text: str, place: str = "") -> None:
    """The query and the passage, both as plain text: markup and scripts are shown;
    ``place`` is where the passage lies in its document (``page 3 · Brakes``)."""
    st.markdown(f"**{t('query')}**")
    with st.container(border=True, key="query"):
        st.text(query_text)
        if query_notes:
            st.caption(t("query_notes"))
            st.text(query_notes)
    # The document's title is said once, with the heading, not inside the passage's box;
    # a text file's title is its first line, which may be a whole paragraph: cut to a line.
    if len(title) > HEADING_TITLE:
        title = title[: HEADING_TITLE - 1].rstrip() + "…"
    with st.container(key="passage_heading"):
        heading = t("passage_from", title=title) if title else t("chunk")
        st.text(f"{heading} · {place}" if place else heading)
    with st.container(border=True, key="passage"):
        st.text(text)


def pool_changed(result, overlap: int | None = None) -> None:
    """Say what a build (with ``overlap``) or a top-up did to a pool, whose figures are
    then counted afresh."""
    count_afresh()
    counts = {k: v for k, v in vars(result).items() if k != "name"}
    if overlap is None:
        key = "pool_topped_up" if result.changed else "pool_topup_unchanged"
        plain(t(key, name=result.name, **counts), "success" if result.changed else "info")
    else:
        plain(t("pool_built", name=result.name, overlap=overlap, **counts), "success")


def show_context(before: str | None, after: str | None) -> None:
    """The passages before and after the one being judged, as plain text."""
    for key, text in (("context_before", before), ("context_after", after)):
        st.caption(t(key))
        st.text(text if text is not None else t("context_none"))
