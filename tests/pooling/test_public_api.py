"""What ``pooling`` offers an evaluator: every name of ``__all__`` is there, from the
module that defines it, and importing ``pooling`` loads none of them until asked."""

from __future__ import annotations

import subprocess
import sys

import pooling
from pooling.qrels import Qrels
from pooling.release_folder import read_qrels
from pooling.run import Run


def test_every_public_name_is_there():
    assert sorted(pooling.__all__) == sorted(pooling._HOMES)
    for name in pooling.__all__:
        value = getattr(pooling, name)
        assert getattr(sys.modules[pooling._HOMES[name]], name) is value
    assert (pooling.Qrels, pooling.Run, pooling.read_qrels) == (Qrels, Run, read_qrels)


def test_an_unknown_name_is_an_attribute_error():
    try:
        pooling.nothing_here  # noqa: B018
    except AttributeError as error:
        assert "nothing_here" in str(error)
    else:
        raise AssertionError("pooling.nothing_here was found")


def test_importing_pooling_loads_no_pandas():
    code = "import sys, pooling.i18n; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_packages_say_they_are_typed():
    from pathlib import Path

    root = Path(pooling.__file__).parents[1]
    assert all(
        (root / package / "py.typed").is_file() for package in ("pooling", "storage", "annotator")
    )
