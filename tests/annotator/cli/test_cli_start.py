"""``qrels status`` starts at once (issue 27): the command module alone is imported, the
schema check is one SELECT against the revision read from the migration scripts, and the
summary is counted in plain SQL on the driver's own connection, so neither SQLAlchemy nor
Alembic nor the models (nor pandas) are imported. Its figures are right while candidates
are open and round down, so that 100% means every candidate is complete."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from annotator.cli import COMMAND_MODULES, cli
from annotator.cli.formatting import part_of
from storage.db import session_scope
from storage.imports import import_judgments
from tests.annotator.labeling.test_keypress import grade, make_pool
from tests.conftest import write

ROOT = Path(__file__).resolve().parents[3]

STATUS = """
import sys
from annotator.cli import cli
try:
    cli(["--db", sys.argv[1], "status"], prog_name="qrels")
except SystemExit as exit:
    assert not exit.code, exit.code
slow = ("alembic", "sqlalchemy", "sqlmodel", "storage.models", "pandas")
print("loaded:", ",".join(name for name in slow if name in sys.modules))
"""


def status_of(engine) -> str:
    """``qrels status`` on ``engine``'s database, in a fresh process (as a user runs it);
    its last line names the slow modules it imported."""
    url = engine.url.render_as_string(hide_password=False)
    done = subprocess.run(
        [sys.executable, "-c", STATUS, url], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout


def test_status_imports_neither_sqlalchemy_nor_alembic_nor_the_models(engine, tmp_path):
    make_pool(engine, tmp_path, queries=2, chunks=3)
    shown = status_of(engine)
    assert "p (q × c; systems run:r): 6 candidates, 0 with 2 judgments (0%)" in shown
    assert shown.splitlines()[-1] == "loaded: "


def test_status_counts_what_is_complete_while_candidates_are_open(engine, tmp_path):
    """The issue's status said "100%" with 2,000 candidates open: the count of complete
    candidates is checked against one made here from the judgments themselves (distinct
    human judges per candidate, from the app or an import; a model's do not count)."""
    users = make_pool(engine, tmp_path, queries=2, chunks=3)
    grade(engine, users["busy"], 4)
    grade(engine, users["other"], 3)
    with session_scope(engine) as session:
        for annotator, kind in (("offline", "human"), ("model", "model")):
            trec = write(tmp_path, f"{annotator}.trec", "q1 0 c2 1\n")
            import_judgments(
                trec, session=session, annotator=annotator, rubric_version="v1", kind=kind
            )
        judges = session.execute(
            text(
                "SELECT count(DISTINCT judgment.user_id) FROM pool_candidate"
                " JOIN judgment ON judgment.query_id = pool_candidate.query_id"
                " AND judgment.chunk_id = pool_candidate.chunk_id"
                " JOIN app_user ON app_user.id = judgment.user_id AND app_user.kind = 'human'"
                " GROUP BY pool_candidate.id"
            )
        ).scalars()
        complete = sum(count >= 2 for count in judges)
    assert 0 < complete < 6  # some complete, some open: the case the issue met
    shown = status_of(engine)
    line = f"6 candidates, {complete} with 2 judgments ({part_of(complete, 6)})"
    assert line in shown, shown
    assert "(100%)" not in shown


def test_every_command_is_found_in_the_module_named_for_it():
    """The group imports a command's module when the command is named: the table of
    modules must name each module's commands, no more, no fewer."""
    for module, names in COMMAND_MODULES.items():
        commands = importlib.import_module(f"annotator.cli.{module}").COMMANDS
        assert tuple(command.name for command in commands) == names
    assert sorted(cli.list_commands(None)) == sorted(
        name for names in COMMAND_MODULES.values() for name in names
    )


def test_a_share_rounds_down_so_that_all_means_all():
    assert part_of(498_000, 500_000) == "99%"  # 2,000 open: not "100%"
    assert part_of(500_000, 500_000) == "100%"
    assert part_of(1, 500) == "<1%"
    assert (part_of(0, 500), part_of(0, 0)) == ("0%", "-")
