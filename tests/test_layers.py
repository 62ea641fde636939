"""The layers hold in one direction: ``pooling`` (pure retrieval and pooling, files in,
typed results out) <- ``storage`` (tables and their reads and writes) <- ``annotator``
(domain services, the CLI, the app). Within ``annotator``, only the app's shell (``app.py``,
``ui.py``, ``pages/``) knows Streamlit, and pages reach the database only through domain
functions. Checked on every import statement, including those inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pooling", "storage", "annotator")
UI = ("streamlit", "altair")
DATABASE = ("sqlmodel", "sqlalchemy", "alembic", "psycopg")

# What a module may not import, by where it lives, and the exceptions to that.
RULES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "pooling": (("storage", "annotator", *UI, *DATABASE), ()),
    "storage": (("annotator", *UI), ()),
    "annotator": (UI, ()),  # domain services and the CLI
    "shell": (("storage", *DATABASE), ()),  # app.py and pages/: render and dispatch
    "shell-ui": (("storage", *DATABASE), ("storage.db", "sqlalchemy.engine")),  # the engine
}


SHELL_MODULES = ("shell.py", "charts.py")  # annotator/app/ modules of the app's shell


def area(path: Path) -> str:
    """Which rule a module (a path relative to the repository) falls under."""
    parts = path.parts
    if parts[0] != "annotator":
        return parts[0]
    app = parts[1] == "app" and len(parts) == 3  # annotator/app/<module>.py
    if app and path.name == "ui.py":
        return "shell-ui"
    if "pages" in parts or (app and path.name in SHELL_MODULES):
        return "shell"
    return "annotator"


def imported(source: str) -> list[tuple[int, str]]:
    """``(line, module)`` for every import in ``source``, at any depth."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def violations(path: Path, source: str) -> list[str]:
    """Imports in ``source`` (the module at ``path``) that break its layer's rule."""
    forbidden, allowed = RULES[area(path)]
    return [
        f"{path}:{line}: imports {module}"
        for line, module in imported(source)
        if within(module, forbidden) and not within(module, allowed)
    ]


def within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in packages)


def modules() -> list[Path]:
    return sorted(
        path.relative_to(ROOT)
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def test_every_module_keeps_to_its_layer():
    found = [v for path in modules() for v in violations(path, (ROOT / path).read_text())]
    assert found == []


@pytest.mark.parametrize(
    "path, source",
    [
        ("pooling/fusion.py", "from storage.models import Pool\n"),
        ("pooling/fusion.py", "def f():\n    import streamlit as st\n"),
        ("pooling/run.py", "import sqlalchemy\n"),
        ("storage/catalog.py", "from annotator import assignment\n"),
        ("annotator/quality/agreement.py", "import streamlit\n"),
        ("annotator/app/pages/label_page.py", "from storage.db import session_scope\n"),
        ("annotator/app/pages/label_page.py", "from storage import slots\n"),
        ("annotator/app/charts.py", "from storage import counts\n"),
        ("annotator/quality/progress.py", "import altair as alt\n"),
    ],
)
def test_the_check_catches_an_import_against_the_layers(path, source):
    assert len(violations(Path(path), source)) >= 1


def test_the_check_lets_the_layers_import_downwards():
    assert violations(Path("storage/catalog.py"), "from pooling.run import Run\n") == []
    assert violations(Path("annotator/cli/main.py"), "from storage import catalog\n") == []
    assert violations(Path("annotator/app/ui.py"), "from storage.db import make_engine\n") == []
    assert violations(Path("annotator/app/charts.py"), "import altair as alt\n") == []


def test_no_module_name_repeats_across_packages():
    names: dict[str, list[str]] = {}
    for path in modules():
        if path.name != "__init__.py":
            names.setdefault(path.stem, []).append(str(path))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_no_module_is_longer_than_500_lines():
    exempt = {Path("pooling/i18n.py")}  # the translation table
    long = {
        str(path): n
        for path in modules()
        if path not in exempt and (n := len((ROOT / path).read_text().splitlines())) > 500
    }
    assert long == {}
