"""Split a document into overlapping chunks without cutting words.

Sizes count characters: a Chinese character is one, and so is each letter of an English
word. A chunk ends only where a reader would allow a break: between two Chinese characters,
at whitespace, or after punctuation, never inside a run of Latin letters or digits
(``USB-C``, ``3.14``, ``don't``). Among the allowed breaks in the second half of the
window, the strongest wins: paragraph, then sentence, then clause, then any.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from pooling.i18n import LocalizedError

CHUNKER_VERSION = 1

_SENTENCE_END = set("。！？!?；;…")
_CLAUSE_END = set("，、,：:")
# Punctuation that belongs to the text before it: a chunk never starts with one.
_CLOSING = set("，。！？；：、）》」』】〉”’,.!?;:)]}…")


@dataclass(frozen=True)
class Span:
    """A chunk: its text (stripped) and where it lies in the document, as character offsets."""

    text: str
    start: int
    end: int


def is_cjk(char: str) -> bool:
    """True for Han, kana, hangul and full-width punctuation: text written without spaces."""
    code = ord(char)
    return (
        0x2E80 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF
        or 0x20000 <= code <= 0x2FA1F
    )


def _break_strength(text: str, i: int) -> int:
    """How good a place offset ``i`` is to end a chunk: 0 means never."""
    before, after = text[i - 1], text[i]
    if after in _CLOSING:
        return 0
    if not (before.isspace() or after.isspace() or is_cjk(before) or is_cjk(after)):
        return 0
    if before.isspace() and after.isspace():
        return 0  # inside a run of whitespace: break at its end instead
    if before == "\n" and i >= 2 and text[i - 2] == "\n":
        return 5
    if before == "\n":
        return 4
    last = text[i - 2] if before.isspace() and i >= 2 else before
    if last in _SENTENCE_END or (before.isspace() and last == "."):
        return 3
    if last in _CLAUSE_END:
        return 2
    if unicodedata.category(before).startswith("P") and is_cjk(before):
        return 2
    return 1


def chunk_text(text: str, size: int, overlap: int = 0) -> list[Span]:
    """Split ``text`` into chunks of at most ``size`` characters overlapping by at most
    ``overlap`` characters, breaking only at allowed places.

    A single word longer than ``size`` becomes a chunk of its own rather than being cut.
    Raises ``ValueError`` unless ``size >= 1`` and ``0 <= overlap < size``.
    """
    if size < 1 or not 0 <= overlap < size:
        raise LocalizedError("chunker_params", size=size, overlap=overlap)
    n = len(text)
    strength = [0] * (n + 1)
    for i in range(1, n):
        strength[i] = _break_strength(text, i)
    strength[n] = 6

    spans: list[Span] = []
    start = _skip_space(text, 0)
    while start < n:
        end = _choose_end(strength, start, size, n)
        piece = text[start:end]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            spans.append(Span(stripped, start + lead, start + lead + len(stripped)))
        if end >= n:
            break
        start = _skip_space(text, _next_start(strength, start, end, overlap))
    return spans


def _choose_end(strength: list[int], start: int, size: int, n: int) -> int:
    limit = start + size
    if limit >= n:
        return n
    half = start + max(1, size // 2)
    best = max(
        (i for i in range(half, limit + 1) if strength[i]),
        key=lambda i: (strength[i], i),
        default=None,
    )
    if best is None:
        best = next((i for i in range(limit, start, -1) if strength[i]), None)
    if best is None:  # one word longer than the window: keep it whole
        best = next(i for i in range(limit + 1, n + 1) if strength[i])
    return best


def _next_start(strength: list[int], start: int, end: int, overlap: int) -> int:
    # The overlap begins at the strongest break within reach (a clause, not mid-phrase).
    reach = [i for i in range(max(start + 1, end - overlap), end) if strength[i]]
    return max(reach, key=lambda i: (strength[i], -i)) if reach else end


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def chunking_config(size: int | None, overlap: int | None) -> dict:
    """The chunking config stored with a corpus version, so grades stay tied to it."""
    if size is None:
        return {"method": "none"}
    return {
        "method": "characters",
        "size": size,
        "overlap": overlap or 0,
        "chunker_version": CHUNKER_VERSION,
    }


def describe(config: dict) -> str:
    """A short label for a chunking config: ``300/60`` (size/overlap) or ``none``."""
    if config.get("method") == "characters":
        return f"{config['size']}/{config['overlap']}"
    return config.get("method", "none")
