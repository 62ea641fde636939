"""What a command chose for its own run (``--lang``, ``--db``: ``pooling.settings.chosen``),
and the language of messages that follows from it, the environment and the locale.

Apart from the other settings because the messages (``pooling.i18n``) need the language
while the settings' own errors need the messages: read here, the language leaves
``pooling.i18n`` nothing to import from ``pooling.settings``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar

LANGUAGES = ("en", "zh")
LANGUAGE_VARIABLE = "QRELS_LANG"

# Settings by name -> the value the running command chose for them.
CHOSEN: ContextVar[Mapping[str, object] | None] = ContextVar("qrels_chosen", default=None)


def chosen_values() -> Mapping[str, object]:
    """The settings the running command chose (none outside ``settings.chosen``)."""
    return CHOSEN.get() or {}


def language(environ: Mapping[str, str] | None = None, browser: str | None = None) -> str:
    """The language of messages: the one the command chose, else ``QRELS_LANG`` in
    ``environ`` (the process's environment), else the ``browser``'s (a page's visitor:
    ``zh-CN``, ``en-GB``; the server's locale says nothing of them), else the locale's,
    else English."""
    env = os.environ if environ is None else environ
    picked = chosen_values().get("language")
    explicit = str(picked) if picked else env.get(LANGUAGE_VARIABLE, "").strip()
    if explicit.lower() in LANGUAGES:
        return explicit.lower()
    # The browser's language tag and the locale's variables, read by one rule.
    told = [(browser or "").strip(), *(env.get(v, "") for v in ("LC_ALL", "LC_MESSAGES", "LANG"))]
    for value in told:
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
