"""The app's own keys, as one ``st.components.v2`` component (page_keys.js) that every page
mounts from its sidebar.

Grades, unsure, skip and moving back and forth are the buttons' own shortcuts (Streamlit
ignores them while a field has the focus). On the labeling page the component adds: `n`
moves into the note field, Esc leaves a field so that the shortcuts work again, and an item
key is stopped before it reaches a button, with a brief notice in the page's language,
while the item's buttons are being redrawn (Streamlit marks them stale; a click on a button
already gone from the server would be dropped without a word), while the page has lost its
connection (Streamlit disables the buttons: the key would do nothing, unsaid), and until the
item on the screen has been there for ``SEEN_MS``: a key pressed as the next passage
appears was meant for the one before, and no one reads a query and a passage in a fifth of
a second. The
server refuses a key for any item but the one it drew last (label_page); what it cannot
know is what was painted. On every page, a language switch gives the focus back to the page.

Why a components.v2 component: its script runs in the page's own window, where nothing
Streamlit redraws can take it away. The script it replaced ran in an ``st.iframe`` and
installed its listener once per window; a language switch changed the iframe's text, so
the iframe was replaced, the listener died with it and was never installed again (issue
36). The listener's module is evaluated once per window (a reload or a new tab is a new
window) and holds no words; the notice's text comes with each mount, in the page's
language. The labeling surface itself (query, passage, buttons, note) stays Streamlit's
widgets: their keys carry the item's identity, which the server checks, and a component
drawing them would have to redo the buttons, the note, the toasts and their accessibility
for no gain in what the guard knows.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import streamlit as st

SEEN_MS = 250
_component = st.components.v2.component(
    "qrels_page_keys",
    js=(Path(__file__).parent / "page_keys.js").read_text(encoding="utf-8"),
)


def page_keys(language: str, pool: str | None, notice: str, *, labeling: bool) -> None:
    """Mount the keys on this page: the labeling page's keys when ``labeling``, saying
    ``notice`` when one is stopped; on every page, the focus back after a switch to
    ``language`` or to ``pool`` (the pool box's choice)."""
    # The pool only as a digest: the script needs to see it change, not to read it.
    shown = hashlib.sha256(str(pool).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    data = {"labeling": labeling, "notice": notice, "seenMs": SEEN_MS}
    _component(key="page_keys", data={**data, "language": language, "pool": shown}, height=0)
