"""Messages live with the layer that shows them, in one table: ``pooling.i18n`` holds the
keys ``pooling`` and ``storage`` use, and ``annotator`` registers its own (the app's in
``annotator.app.page_messages``, the CLI's in ``annotator.cli.cli_messages``, the rest in
``annotator.messages``), each read from the gettext catalogs in a ``locale`` folder beside
it (``pooling.catalogs``). Every key of a catalog reads in English and Chinese with the
same fields, and ``msgfmt`` (where installed) reads the catalogs as gettext files.

A module uses a key when the key is one of its string literals (``"@key"`` too) or starts
with the literal head of one of its f-strings or sums ending in ``_`` (``f"col_{name}"``).
"""

from __future__ import annotations

import ast
import shutil
import string
import subprocess
from pathlib import Path

import pytest

import annotator.app  # noqa: F401  (registers the app's messages)
import annotator.cli  # noqa: F401  (registers the CLI's messages)
from pooling import catalogs, i18n

ROOT = Path(__file__).resolve().parents[1]
# The catalogs' folders: each layer's, beside the module that registers it.
LOCALES = {
    "pooling/i18n.py": ROOT / "pooling" / "locale",
    "annotator/messages.py": ROOT / "annotator" / "locale",
    "annotator/app/page_messages.py": ROOT / "annotator" / "app" / "locale",
    "annotator/cli/cli_messages.py": ROOT / "annotator" / "cli" / "locale",
}


def literals(source: str) -> tuple[set[str], set[str]]:
    """The string literals of ``source`` (without a leading ``@``), and the heads ending in
    ``_`` of its f-strings and of its sums that start with a literal."""
    words, heads = set(), set()
    for node in ast.walk(ast.parse(source)):
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


def fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name)


@pytest.mark.parametrize("module", sorted(LOCALES))
def test_each_catalog_translates_every_key_with_the_same_fields(module):
    folder = LOCALES[module]
    template = catalogs.read(folder / catalogs.TEMPLATE)
    keys = [entry.msgctxt for entry in template]
    assert len(keys) == len(set(keys)), "a key twice in one template"
    for name in catalogs.TRANSLATIONS.values():
        translation = {entry.msgctxt: entry for entry in catalogs.read(folder / name)}
        assert sorted(translation) == sorted(keys), f"{name}: keys differ from the template"
        for entry in template:
            mine = translation[entry.msgctxt]
            assert catalogs.translated(mine), f"{name}: {entry.msgctxt} not translated"
            assert mine.msgid == entry.msgid, f"{name}: {entry.msgctxt}'s English differs"
            assert fields(mine.msgstr) == fields(entry.msgid), entry.msgctxt
            formatted = "python-brace-format" in entry.flags
            assert formatted == bool(fields(entry.msgid)), entry.msgctxt
    module_text = (ROOT / module).read_text(encoding="utf-8")
    assert 'with_name("locale")' in module_text, f"{module} does not read {folder}"


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext's msgfmt not installed")
@pytest.mark.parametrize("module", sorted(LOCALES))
def test_msgfmt_reads_each_catalog_and_its_fields(module, tmp_path):
    # What a translator's tool does with the file: compile it, checking that every
    # translation keeps its {fields} (the python-brace-format flag).
    for name in catalogs.TRANSLATIONS.values():
        done = subprocess.run(
            ["msgfmt", "--check", "-o", str(tmp_path / "out.mo"), str(LOCALES[module] / name)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr


def test_an_untranslated_key_reads_in_english(tmp_path):
    # gettext's rule for a running program; the test above fails on it.
    for name in (catalogs.TEMPLATE, *catalogs.TRANSLATIONS.values()):
        (tmp_path / name).write_text(
            'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
            'msgctxt "k"\nmsgid "in English"\nmsgstr ""\n',
            encoding="utf-8",
        )
    assert catalogs.catalog(tmp_path) == {"k": {"en": "in English", "zh": "in English"}}
