"""The layers hold in one direction: ``pooling`` (pure retrieval and pooling, files in,
typed results out) <- ``storage`` (tables and their reads and writes) <- ``annotator``
(domain services, the CLI, the app). Within ``annotator``, only the app's shell
(``app/shell.py``, ``app/ui.py``, the modules of ``SHELL_MODULES``, ``app/pages/``)
knows Streamlit, and pages reach the database only through domain functions.

``annotator`` is a few shared modules (at most ``MAX_SHARED``, importing no room) and rooms,
subpackages named for what a person looks for. A room imports only the rooms listed as its
neighbours in ``ROOMS``, which go one way. No module of any package takes part in an import
cycle, and none imports another's private name (``_x``). Every import statement counts,
including those inside functions.
"""

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
    "shell": (("storage", *DATABASE), ()),  # app/shell.py, charts and pages/: render and dispatch
    "shell-ui": (("storage", *DATABASE), ("storage.db", "sqlalchemy.engine")),  # the engine
}

# annotator/app/ modules of the app's shell
SHELL_MODULES = ("shell.py", "charts.py", "guide_charts.py", "page_keys.py", "unchecked.py")

# The rooms of annotator/ and the rooms (or a room's module) each may import; the shared
# modules directly in annotator/ every room may import. One direction: no room is its own
# neighbour's neighbour (``test_the_rooms_go_one_way``).
ROOMS: dict[str, tuple[str, ...]] = {
    "labeling": (),  # who judges what next: assignment, page position, active choice
    # building and topping up pools (from a run's Judged@k too), their figures (from the
    # grades quality keeps)
    "pools": ("labeling", "quality.kept"),
    "quality": (),  # agreement, adjudication, gold, progress
    "evaluation": (),  # scoring runs against a release (Judged@k: pooling.judged_at_k)
    "releases": ("quality",),  # publishing releases, their files, carrying, their diff
    "judge": ("quality",),  # automatic judges against people (a carried judge's classes too)
    "app": ("labeling", "pools", "quality", "evaluation", "releases", "judge"),
    "cli": ("labeling", "pools", "quality", "evaluation", "releases", "judge"),  # the app by path
}
MAX_SHARED = 8  # modules directly in annotator/ (besides __init__.py)


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
        ("pooling/release_folder.py", "from annotator.quality import agreement\n"),
        ("storage/catalog.py", "from annotator.labeling import assignment\n"),
        ("annotator/quality/agreement.py", "import streamlit\n"),
        ("annotator/app/uploads.py", "import streamlit\n"),
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


# -- the rooms of annotator/ -------------------------------------------------------------------


def module_name(path: Path) -> str:
    """``annotator/quality/agreement.py`` -> ``annotator.quality.agreement`` (a package by
    its own name)."""
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def targets(
    source: str, known: set[str], packages: tuple[str, ...] = ("annotator",)
) -> list[tuple[int, str]]:
    """``(line, module)`` for every module of ``packages`` that ``source`` imports, at any
    depth: ``from a.b import c`` imports ``a.b.c`` where that is a module of ``known``,
    else ``a.b``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.append((node.lineno, name if name in known else node.module))
    return [(line, name) for line, name in found if within(name, packages)]


def room_of(module: str) -> str | None:
    """The room of a module of ``annotator`` (``annotator.quality.gold`` -> ``quality``),
    None for a shared module directly in ``annotator/`` or the package itself."""
    parts = module.split(".")
    if len(parts) < 2 or (ROOT / "annotator" / f"{parts[1]}.py").is_file():
        return None
    return parts[1]


def room_violations(path: Path, source: str, known: set[str] = frozenset()) -> list[str]:
    """Imports in ``source`` (the module at ``path`` in ``annotator/``) of a room that its
    own room does not list as a neighbour; a shared module may import no room, and a module
    must be in a declared room."""
    own = room_of(module_name(path))
    if own is not None and own not in ROOMS:
        return [f"{path}: annotator/{own}/ is not a room of ROOMS (list its neighbours)"]
    found = []
    for line, module in targets(source, known):
        room = room_of(module)
        if room is None or room == own:
            continue
        neighbours = () if own is None else ROOMS[own]
        relative = module.removeprefix("annotator.")
        if not within(relative, neighbours):
            found.append(f"{path}:{line}: {own or 'a shared module'} imports {module}")
    return found


def annotator_sources() -> dict[Path, str]:
    return {path: (ROOT / path).read_text() for path in modules() if path.parts[0] == "annotator"}


def import_graph(sources: dict[Path, str]) -> dict[str, set[str]]:
    """Module -> the modules of ``sources`` it imports (at any depth, itself left out)."""
    known = {module_name(path) for path in sources}
    return {
        module_name(path): {m for _, m in targets(source, known, PACKAGES) if m in known}
        - {module_name(path)}
        for path, source in sources.items()
    }


def cycle(graph: dict[str, set[str]] | dict[str, tuple[str, ...]]) -> list[str]:
    """One cycle of ``graph`` (node -> the nodes it points to) as its nodes, the first
    repeated at the end; empty when there is none."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if state.get(after) == "open":
                return [*path[path.index(after) :], after]
            if after not in state and (found := visit(after)):
                return found
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_every_room_imports_only_its_neighbours():
    sources = annotator_sources()
    known = {module_name(path) for path in sources}
    found = [v for path, source in sources.items() for v in room_violations(path, source, known)]
    assert found == []


def test_no_module_takes_part_in_an_import_cycle():
    sources = {path: (ROOT / path).read_text() for path in modules()}
    assert {path.parts[0] for path in sources} == set(PACKAGES)
    assert cycle(import_graph(sources)) == []


def test_the_rooms_go_one_way():
    rooms = {room: {n.split(".")[0] for n in neighbours} for room, neighbours in ROOMS.items()}
    assert cycle(rooms) == []


def documented_rooms(text: str) -> dict[str, tuple[str, ...]]:
    """The table of rooms in docs/architecture.md: the lines after ``room        may import``
    up to the end of its block, each a room and its neighbours (``-``: none)."""
    lines = text.split("room        may import\n", 1)[1].split("```", 1)[0].splitlines()
    rooms = {}
    for line in lines:
        room, neighbours = line.split(maxsplit=1)
        rooms[room] = () if neighbours == "-" else tuple(neighbours.split(", "))
    return rooms


def test_the_rooms_in_the_architecture_doc_are_the_rooms_checked_here():
    assert documented_rooms((ROOT / "docs" / "architecture.md").read_text()) == ROOMS


def test_at_most_eight_modules_are_directly_in_annotator():
    shared = [p for p in (ROOT / "annotator").glob("*.py") if p.name != "__init__.py"]
    assert len(shared) <= MAX_SHARED, sorted(p.name for p in shared)


@pytest.mark.parametrize(
    "path, source",
    [
        ("annotator/labeling/assignment.py", "from annotator.quality import gold\n"),
        ("annotator/labeling/assignment.py", "from annotator.quality.gold import due\n"),
        ("annotator/quality/progress.py", "import annotator.releases.releases\n"),
        (
            "annotator/quality/progress.py",
            "def f():\n    from annotator.releases.releases import create_release\n",
        ),
        ("annotator/evaluation/evaluation.py", "from annotator.quality import agreement\n"),
        ("annotator/quality/progress.py", "from annotator.labeling.active_pooling import x\n"),
        ("annotator/judge/calibration.py", "from annotator.releases.carry import carry\n"),
        ("annotator/releases/carry.py", "from annotator.app import ui\n"),
        ("annotator/cli/setup_commands.py", "from annotator.app.ui import engine\n"),
        ("annotator/auth.py", "from annotator.labeling.assignment import next_item\n"),
        ("annotator/stray/module.py", "import json\n"),  # a room nobody declared
    ],
)
def test_the_check_catches_an_import_against_the_rooms(path, source):
    known = {"annotator.quality.gold", "annotator.app.ui"}
    assert len(room_violations(Path(path), source, known)) >= 1


def test_the_check_lets_a_room_import_its_neighbours_its_own_and_the_shared_modules():
    known = {"annotator.app.uploads", "annotator.labeling.active_pooling"}
    allowed = [
        ("annotator/pools/pool_figures.py", "from annotator.labeling import active_pooling\n"),
        ("annotator/quality/gold.py", "from annotator.quality.agreement import Figure\n"),
        ("annotator/releases/carry.py", "from annotator.rubric import current_version\n"),
        ("annotator/cli/judge_commands.py", "from annotator.judge import runner\n"),
        ("annotator/app/uploads.py", "from annotator.app import ui\n"),
        ("annotator/app/pages/label_page.py", "from annotator.labeling import assignment\n"),
    ]
    for path, source in allowed:
        assert room_violations(Path(path), source, known) == [], (path, source)


def test_the_cycle_check_sees_a_cycle_below_annotator():
    sources = {
        Path("pooling/settings.py"): "def f():\n    from pooling.i18n import LocalizedError\n",
        Path("pooling/i18n.py"): "from pooling import settings\n",
    }
    assert cycle(import_graph(sources)) == ["pooling.i18n", "pooling.settings", "pooling.i18n"]


def test_the_cycle_check_sees_an_import_inside_a_function():
    sources = {
        Path("annotator/quality/agreement.py"): (
            "def pool_agreement():\n    from annotator.quality.adjudication import pool_table\n"
        ),
        Path("annotator/quality/adjudication.py"): "from annotator.quality import agreement\n",
        Path("annotator/quality/gold.py"): "from annotator.quality.agreement import Figure\n",
    }
    assert cycle(import_graph(sources)) == [
        "annotator.quality.adjudication",
        "annotator.quality.agreement",
        "annotator.quality.adjudication",
    ]
    del sources[Path("annotator/quality/agreement.py")]
    assert cycle(import_graph(sources)) == []


# -- every module --------------------------------------------------------------------------


def private_imports(path: Path, source: str) -> list[str]:
    """Names starting with ``_`` that ``source`` (the module at ``path``) imports from
    another module of the packages: a helper another module needs is public, or it is a
    second copy waiting to happen."""
    return [
        f"{path}:{node.lineno}: imports {node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module and within(node.module, PACKAGES)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_no_module_imports_a_private_name_of_another():
    found = [v for path in modules() for v in private_imports(path, (ROOT / path).read_text())]
    assert found == []


def test_the_private_name_check_catches_one_and_lets_public_names_pass():
    path = Path("storage/judge_tables.py")
    assert private_imports(path, "from storage.models import _created, json_field\n") == [
        "storage/judge_tables.py:1: imports storage.models._created"
    ]
    inside = "def f():\n    from annotator.quality.kept.current_grades import _ranges\n"
    assert len(private_imports(path, inside)) == 1
    assert private_imports(path, "from storage.columns import one_of\nimport _thread\n") == []
    assert private_imports(path, "from __future__ import annotations\n") == []


def test_no_module_name_repeats_across_packages():
    names: dict[str, list[str]] = {}
    for path in modules():
        if path.name != "__init__.py":
            names.setdefault(path.stem, []).append(str(path))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_no_module_is_longer_than_500_lines():
    # the messages too: they are catalogs (locale/), not Python
    long = {
        str(path): n
        for path in modules()
        if (n := len((ROOT / path).read_text().splitlines())) > 500
    }
    assert long == {}
