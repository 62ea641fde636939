"""Which characters are refused where, and the checks of what people type (names, notes,
rationales, searches), in the app and on the command line alike.

Control characters are refused wherever they are (``pooling.readers`` for files): NUL
cannot be stored in PostgreSQL text (SQLite would keep it), and the others (escape
sequences, backspace, C1 codes) would act unseen on terminals and in files. Tab, line feed
and carriage return are text, except in ids and names. Format characters (Unicode category
Cf: bidi controls such as U+202E, zero-width spaces and joiners) are refused in ids and
names, where they make two look alike or one read backwards; texts may hold them. A name
or text read from a file is shown with what is not printable escaped (``printable``).
"""

from __future__ import annotations

import re
import unicodedata

from pooling.i18n import LocalizedError
from pooling.i18n import printable as printable  # where messages need it, below this module

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
ID_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # also tab and line breaks
SURROGATE = re.compile("[\ud800-\udfff]")  # only a JSON escape can make one
# What may be typed into the app or given on the CLI, in characters: a name (an account, a
# pool, a corpus version, a query set, a system), a note or a rationale, a search of the
# corpus (each word of which costs a look-up in the index).
MAX_NAME = 200
MAX_TEXT = 20_000
MAX_SEARCH = 500


def format_character(value: str) -> str | None:
    """The first format character (Unicode category Cf: U+202E and the other bidi
    controls, zero-width spaces and joiners, the soft hyphen, U+FEFF) in ``value``, or
    None. Refused in ids and names: unseen, they make two names look alike, or one read
    backwards, on every screen and terminal."""
    if value.isascii():
        return None
    return next((c for c in value if unicodedata.category(c) == "Cf"), None)


def format_code(character: str) -> str:
    """A character as a reader sees it named: U+202E."""
    return f"U+{ord(character):04X}"


def control_code(found: re.Match) -> str:
    """A control character found, as a reader sees it named: U+001B."""
    return f"U+{ord(found.group()):04X}"


def refuse_control(
    value: str, what: str, *, line_breaks: bool = True, limit: int = MAX_TEXT
) -> str:
    """``value`` as typed into the app or CLI (a note, a rationale, a search), or
    ``LocalizedError`` naming ``what`` (a message key) when it holds a control character,
    for the same reasons as in files, or is longer than ``limit`` characters;
    ``line_breaks=False`` refuses tab and line breaks too, for names."""
    if found := (CONTROL if line_breaks else ID_CONTROL).search(value):
        raise LocalizedError("typed_control_character", what=f"@{what}", code=control_code(found))
    if found := SURROGATE.search(value):
        raise LocalizedError("typed_surrogate", what=f"@{what}", code=control_code(found))
    if len(value) > limit:
        raise LocalizedError("typed_too_long", what=f"@{what}", length=len(value), limit=limit)
    return value


def typed_name(value: str, what: str) -> str:
    """``value`` when it may name something (an account, a pool, a corpus version, a query
    set, a system; ``what`` is the message key of which): no control character, tab or
    line break, no format character (``format_character``), not blank, at most
    ``MAX_NAME`` characters. Raises ``LocalizedError``."""
    if not refuse_control(value, what, line_breaks=False, limit=MAX_NAME).strip():
        raise LocalizedError("typed_name_empty", what=f"@{what}")
    if hidden := format_character(value):
        raise LocalizedError("typed_format_character", what=f"@{what}", code=format_code(hidden))
    return value
