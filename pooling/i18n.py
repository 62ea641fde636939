"""User-facing messages in English and Chinese, and the errors that carry them.

Every message a user can see is looked up by key in one table, ``MESSAGES``, so that the
CLI, the app and the errors raised anywhere speak the same language. The words themselves
are gettext catalogs (``pooling.catalogs``: ``locale/messages.pot`` in English,
``locale/zh.po`` in Chinese), one pair per layer beside the module that reads it: this
module's holds the keys of ``pooling`` and ``storage``; a layer above reads its own and adds
them with ``register`` (``annotator.messages``, ``annotator.app.page_messages``,
``annotator.cli.cli_messages``), and tests/test_messages.py checks that no key sits lower
than its users. The language comes from ``QRELS_LANG`` (``en`` or ``zh``), else from the
locale variables, else English.

Errors a user can act on are ``LocalizedError``: a message key and its parameters, rendered
when shown, so the same error reads in English on the command line and in Chinese in an
app session set to Chinese. A parameter that is itself a message key (a kind of thing, a
type name) is written ``"@key"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TypeGuard

from pooling import choices
from pooling.catalogs import catalog

LANGUAGES = choices.LANGUAGES

# The keys of pooling and storage: locale/messages.pot (English), locale/zh.po.
MESSAGES: dict[str, dict[str, str]] = catalog(Path(__file__).with_name("locale"))
_OWN = frozenset(MESSAGES)


def own_keys() -> frozenset[str]:
    """The keys of ``pooling`` and ``storage`` (those written in this module)."""
    return _OWN


def register(messages: dict[str, dict[str, str]]) -> None:
    """Add a layer's ``messages`` (key -> language -> text) to the one table. A key already
    there is a bug (two texts for one key): ``ValueError`` naming it."""
    repeated = sorted(set(messages) & set(MESSAGES))
    if repeated:
        raise ValueError(f"message keys registered twice: {', '.join(repeated)}")
    MESSAGES.update(messages)


def current_language(browser: str | None = None) -> str:
    """The language for messages (``pooling.choices``): the one the command chose
    (``--lang``), else ``QRELS_LANG``, else the ``browser``'s (the app's visitor), else the
    locale, else English."""
    return choices.language(browser=browser)


def t(key: str, lang: str | None = None, **params: object) -> str:
    """The message ``key`` in ``lang`` (default: the current language), filled with params;
    a parameter ``"@other_key"`` is replaced by that message first. A path's control or
    bidi characters (a ``Path``, or a ``file``/``folder``/``path`` parameter) are shown
    escaped (``printable``), never sent to a terminal or a page as they are."""
    lang = lang or current_language()
    filled = {k: _filled(k, v, lang) for k, v in params.items()}
    return MESSAGES[key][lang].format(**filled)


def _filled(name: str, value: object, lang: str) -> object:
    if _is_key(value):
        return t(value[1:], lang)
    if isinstance(value, PurePath) or name in PATH_PARAMS:
        return printable(str(value))
    return value


def _is_key(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith("@") and value[1:] in MESSAGES


PATH_PARAMS = ("file", "folder", "path")  # parameters that name a file or a folder


def printable(name: str) -> str:
    """A file name (or a text read from a file) as a message shows it: a character that
    is not printable (a control character, a bidi control) written as its escape
    (``\\x1b``, ``\\u202e``), so that it cannot act on the terminal or reorder the line
    it is shown in."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in name)


class LocalizedError(ValueError):
    """An error for the user: message ``key`` with ``params``, rendered in the current
    language by ``str()`` and in any language by ``message(lang)``."""

    def __init__(self, key: str, **params: object) -> None:
        self.key, self.params = key, params
        super().__init__(key)

    def message(self, lang: str | None = None) -> str:
        return t(self.key, lang, **self.params)

    def __str__(self) -> str:
        return self.message()


class NotFound(LocalizedError, LookupError):
    """A named thing (version, pool, user, run) does not exist, or a name is needed to
    choose among several."""


class Refused(LocalizedError, PermissionError):
    """The acting account may not do this: disabled, gone, or without the role."""


def check_name(name: str, valid: Iterable[str], what: str) -> None:
    """Raise ``LocalizedError`` naming the valid choices unless ``name`` is one of ``valid``
    (``what`` is the message key of what is being chosen, e.g. ``what_fusion``): the one way
    a registry refuses an unknown name."""
    valid = list(valid)
    if name not in valid:
        raise LocalizedError("unknown_name", what=f"@{what}", name=name, valid=", ".join(valid))
