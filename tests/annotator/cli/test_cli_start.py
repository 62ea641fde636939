"""``qrels status`` starts at once: the schema check is one SELECT against the revision read
from the migration scripts, and the summary is counted through SQLAlchemy's core, so neither
Alembic nor the models (nor pandas) are imported. Its figures round down, so that 100% means
every candidate is complete."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from annotator.cli.formatting import part_of
from tests.annotator.labeling.test_keypress import make_pool

ROOT = Path(__file__).resolve().parents[3]

STATUS = """
import sys
from annotator.cli import cli
try:
    cli(["--db", sys.argv[1], "status"], prog_name="qrels")
except SystemExit as exit:
    assert not exit.code, exit.code
slow = ("alembic", "sqlmodel", "storage.models", "pandas")
print("loaded:", ",".join(name for name in slow if name in sys.modules))
"""


def test_status_imports_neither_alembic_nor_the_models(engine, tmp_path):
    make_pool(engine, tmp_path, queries=2, chunks=3)
    url = engine.url.render_as_string(hide_password=False)
    done = subprocess.run(
        [sys.executable, "-c", STATUS, url], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert "p (q × c; systems run:r): 6 candidates, 0 with 2 judgments (0%)" in done.stdout
    assert done.stdout.splitlines()[-1] == "loaded: "


def test_a_share_rounds_down_so_that_all_means_all():
    assert part_of(498_000, 500_000) == "99%"  # 2,000 open: not "100%"
    assert part_of(500_000, 500_000) == "100%"
    assert part_of(1, 500) == "<1%"
    assert (part_of(0, 500), part_of(0, 0)) == ("0%", "-")
