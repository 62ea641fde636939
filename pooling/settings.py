"""qrels-studio's settings, read from the environment in one place (``current``): the
database URL, the language of messages, the upload limit, the largest file read, the index
cache and the folder the app writes releases to. A command may choose some of them for its own run
(``chosen``: ``--lang``, ``--db``) without touching the environment, which a child process
(``qrels serve``) gets with the choices written in (``child_environment``).

Read at each call rather than once, so that a shell's or a test's change of a variable
holds for the next command in the same process.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pooling import choices
from pooling.choices import CHOSEN, LANGUAGE_VARIABLE, chosen_values, language
from pooling.i18n import LocalizedError

LANGUAGES = choices.LANGUAGES

# Setting -> the environment variable it is read from.
VARIABLES = {
    "database_url": "QRELS_DATABASE_URL",
    "language": LANGUAGE_VARIABLE,
    "upload_limit_mb": "QRELS_UPLOAD_LIMIT_MB",
    "file_limit_mb": "QRELS_FILE_LIMIT_MB",
    "cache_dir": "QRELS_CACHE_DIR",
    "release_dir": "QRELS_RELEASE_DIR",
    "rubric_dir": "QRELS_RUBRIC_DIR",
}
UPLOAD_LIMIT_MB = 200  # also Streamlit's, at serve
# The largest file read (an imported corpus, query set, run or judgments file, each document
# of a folder, a release's files): checked before a file is read, since an import holds
# what it reads (a 40 MB corpus took 468 MB) and a device or a growing file never ends.
FILE_LIMIT_MB = 256


@dataclass(frozen=True)
class Settings:
    """The settings in force. ``database_url`` is None where nothing names one
    (``storage.db.database_url`` then takes the default SQLite file)."""

    database_url: str | None
    language: str
    upload_limit_mb: int
    file_limit_mb: int
    cache_dir: Path
    release_dir: Path
    rubric_dir: Path | None = None  # a team's own rubrics (``qrels rubric new``); else rubrics/


def current(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings in force: what the running command chose (``chosen``), else
    ``environ`` (the process's environment), else the defaults. Raises ``LocalizedError``
    for an upload or file limit that is not a whole number of megabytes."""
    env = os.environ if environ is None else environ
    chosen = chosen_values()

    def read(name: str) -> str:
        value = chosen.get(name)
        return str(value) if value else env.get(VARIABLES[name], "").strip()

    return Settings(
        database_url=read("database_url") or None,
        language=language(env),
        upload_limit_mb=_megabytes(read("upload_limit_mb"), "upload_limit_mb", UPLOAD_LIMIT_MB),
        file_limit_mb=_megabytes(read("file_limit_mb"), "file_limit_mb", FILE_LIMIT_MB),
        cache_dir=Path(read("cache_dir") or Path.home() / ".cache" / "qrels-studio"),
        release_dir=Path(read("release_dir") or "releases"),
        rubric_dir=Path(read("rubric_dir")) if read("rubric_dir") else None,
    )


def _megabytes(text: str, name: str, default: int) -> int:
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise LocalizedError("setting_not_megabytes", variable=VARIABLES[name], value=text)
    return int(text)


@contextmanager
def chosen(**values: object) -> Iterator[Settings]:
    """Within the block, ``values`` (settings by name; None leaves one as it is) override
    the environment's; the environment itself is left alone."""
    unknown = set(values) - set(VARIABLES)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    picked = {name: value for name, value in values.items() if value is not None}
    token = CHOSEN.set({**chosen_values(), **picked})
    try:
        yield current()
    finally:
        CHOSEN.reset(token)


# One BLAS thread per process (OpenBLAS, OpenMP, MKL) unless the environment says otherwise:
# the app serves its sessions on threads of its own, and its figures multiply small count
# tables (a bootstrap's draws). On 2 cores a pool of BLAS threads made a (200 x 400) by
# (400 x 16) product 70 times slower, spinning on the core an annotator's key needed.
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# Which of ``qrels serve``'s app processes this one is ("annotators" or "leads"), set by
# ``qrels serve`` for its processes (or ``--process`` behind a proxy): the app then writes
# the cookie the front or the proxy routes a lead's connections by (docs/deployment.md).
PROCESS_VARIABLE = "QRELS_PROCESS"
PROCESSES = ("annotators", "leads")


def serving_process(environ: Mapping[str, str] | None = None) -> str | None:
    """Which of the routed app processes this is, or None when the app is not routed."""
    value = (os.environ if environ is None else environ).get(PROCESS_VARIABLE, "").strip()
    return value if value in PROCESSES else None


def child_environment(**extra: str) -> dict[str, str]:
    """The environment for a child process (the app): this one, with the settings chosen
    in this process and ``extra`` (settings by name) written in, and ``ONE_BLAS_THREAD``
    where it sets none."""
    environment = {**ONE_BLAS_THREAD, **os.environ}
    for name, value in {**chosen_values(), **extra}.items():
        environment[VARIABLES[name]] = str(value)
    return environment
