"""Messages live with the layer that shows them, in one table: ``pooling.i18n`` holds the
keys ``pooling`` and ``storage`` use, and ``annotator`` registers its own (the app's in
``annotator.app.page_messages``, the CLI's in ``annotator.cli.cli_messages``, the rest in
``annotator.messages``). Every registered key reads in English and Chinese with the same
fields.

A module uses a key when the key is one of its string literals (``"@key"`` too) or starts
with the literal head of one of its f-strings or sums ending in ``_`` (``f"col_{name}"``).
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import annotator.app  # noqa: F401  (registers the app's messages)
import annotator.cli  # noqa: F401  (registers the CLI's messages)
from pooling import i18n

ROOT = Path(__file__).resolve().parents[1]


def literals(source: str) -> tuple[set[str], set[str]]:
    """The string literals of ``source`` (without a leading ``@``), and the heads ending in
    ``_`` of its f-strings and of its sums that start with a literal; a table of messages
    (``MESSAGES = {...}``) uses none of its keys."""
    words, heads = set(), set()
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if not is_table(node)]
    for node in ast.walk(tree):
        head = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.add(node.value.removeprefix("@"))
        elif isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                head = first.value
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Add)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
        ):
            head = node.left.value
        if head and head.removeprefix("@").endswith("_"):
            heads.add(head.removeprefix("@"))
    return words, heads


def is_table(node: ast.stmt) -> bool:
    target = node.target if isinstance(node, ast.AnnAssign) else None
    return isinstance(target, ast.Name) and target.id == "MESSAGES"


def users(key: str, found: dict[str, tuple[set[str], set[str]]]) -> set[str]:
    """The modules (paths) of ``found`` that use ``key``."""
    return {
        path
        for path, (words, heads) in found.items()
        if key in words or any(key.startswith(head) for head in heads)
    }


def read(*packages: str, leave_out: tuple[str, ...] = ()) -> dict[str, tuple[set, set]]:
    return {
        str(path.relative_to(ROOT)): literals(path.read_text(encoding="utf-8"))
        for package in packages
        for path in sorted((ROOT / package).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in leave_out and "migrations" not in path.parts
    }


def test_pooling_holds_no_key_that_only_annotator_uses():
    below = read("pooling", "storage")
    own = i18n.own_keys()
    only_above = sorted(key for key in own if not users(key, below))
    assert only_above == []


def test_every_key_of_annotator_is_used_there():
    # A key registered by annotator but used below belongs in pooling.i18n.
    below = read("pooling", "storage")
    registered = set(i18n.MESSAGES) - set(i18n.own_keys())
    assert sorted(key for key in registered if users(key, below)) == []


def test_every_message_reads_in_both_languages_with_the_same_fields():
    def fields(text: str) -> list[str]:
        return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name)

    for key, texts in i18n.MESSAGES.items():
        assert set(texts) == set(i18n.LANGUAGES), key
        assert all(texts.values()), key
        assert fields(texts["en"]) == fields(texts["zh"]), key


def test_a_key_registered_twice_is_refused():
    key = next(iter(i18n.own_keys()))
    try:
        i18n.register({key: {"en": "x", "zh": "x"}})
    except ValueError as error:
        assert key in str(error)
    else:
        raise AssertionError("a repeated key was registered")
