"""Message catalogs: each layer's words in gettext's files, which translators' tools read.

A layer keeps its catalogs in a ``locale`` folder beside the module that registers them:

- ``messages.pot``, the template: every key (``msgctxt``) and its English text (``msgid``);
- ``zh.po``, the same entries with the Chinese text (``msgstr``).

Why gettext: Poedit, Lokalize, Weblate and ``msgfmt`` read these files as they are, so a
translator works in the tool they know and never opens a Python file; the
``python-brace-format`` flag lets ``msgfmt --check-format`` see that a translation keeps the
English text's ``{fields}``. Why keys as ``msgctxt``: the code asks for a message by its key,
which stays put while the English wording changes. Why ``polib`` and not Babel: only reading
is needed (a single pure-Python module); Babel's extraction and locale data serve code that
marks its English source strings, which this code does not.

A key left untranslated (an empty or ``fuzzy`` ``msgstr``) reads in English, gettext's rule
for a running program; tests/test_messages.py fails on it.
"""

from __future__ import annotations

from pathlib import Path

import polib

TEMPLATE = "messages.pot"
TRANSLATIONS = {"zh": "zh.po"}  # language -> its catalog in the same folder


def read(path: Path) -> polib.POFile:
    """The catalog at ``path`` (UTF-8, as ``msgfmt`` writes it)."""
    return polib.pofile(str(path), encoding="utf-8")


def translated(entry: polib.POEntry) -> bool:
    return bool(entry.msgstr) and not entry.obsolete and "fuzzy" not in entry.flags


def catalog(folder: Path) -> dict[str, dict[str, str]]:
    """The messages of the catalogs in ``folder``: key -> language -> text."""
    messages = {entry.msgctxt: {"en": entry.msgid} for entry in read(folder / TEMPLATE)}
    for lang, name in TRANSLATIONS.items():
        texts = {entry.msgctxt: entry.msgstr for entry in read(folder / name) if translated(entry)}
        for key, text in messages.items():
            text[lang] = texts.get(key) or text["en"]
    return messages
