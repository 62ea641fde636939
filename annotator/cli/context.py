"""What every command shares: the database named by ``--db``, errors shown as one line in
the user's language, numbers, and the options several commands take.

Command modules import only this, click and the message table at start; what a command
needs (pandas, scikit-learn, the retrievers, the database layer) it imports when it runs,
so that ``qrels --help`` starts at once.
"""

from __future__ import annotations

from pathlib import Path

import click

from pooling.i18n import LocalizedError, t

# Exit codes of every ``qrels`` command, for scripts and CI jobs: a failed gate is the only 1.
EXIT_OK, EXIT_GATE_FAILED, EXIT_CANNOT_RUN = 0, 1, 2


class QrelsError(click.ClickException):
    """An error for the user: printed as ``error: message`` in their language, exit code 2
    (the command could not run; click's own usage errors exit 2 as well)."""

    exit_code = EXIT_CANNOT_RUN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # Rendered now: by the time click shows it, a --lang given to this command is undone.
        self.line = t("located", where=t("error"), what=message)

    def show(self, file=None) -> None:
        click.echo(self.line, err=True)


# What a user can cause and read as one line; anything else is a bug and keeps its traceback.
USER_ERRORS = (LocalizedError, OSError, ImportError)


def engine(ctx: click.Context, *, require_schema: bool = True):
    """The engine for ``--db``; unless told otherwise, refuses a database whose schema is
    missing or out of date."""
    from storage.db import check_schema, make_engine

    made = make_engine(ctx.obj["db"])
    if require_schema:
        check_schema(made)
    return made


def say(key: str, **params: object) -> None:
    """Print message ``key`` in the user's language."""
    click.echo(t(key, None, **params))


def checked_alone(*folders: Path) -> None:
    """Say, on stderr (stdout may be JSON), that these release folders were checked against
    their own manifests only: a command that reads a release away from its database cannot
    tell whether it is the release that was created."""
    for folder in folders:
        click.echo(t("release_checked_alone", None, folder=folder), err=True)


def echo_lines(lines: list[str]) -> None:
    click.echo("\n".join(lines))


def choice(name: str, choices, default: str, help: str):
    """An option taking one of ``choices`` (shown in --help with its default)."""
    return click.option(
        name, type=click.Choice(list(choices)), default=default, show_default=True, help=help
    )


existing_file = click.Path(dir_okay=False, path_type=Path)
folder = click.Path(file_okay=False, path_type=Path)


def with_versions(command):
    """``--query-set`` and ``--corpus-version``, for files that refer to both."""
    command = click.option(
        "--corpus-version", help="Corpus version the file refers to (needed if several)."
    )(command)
    return click.option("--query-set", help="Query set the file refers to (needed if several).")(
        command
    )


def only_pool(ctx: click.Context, name: str | None) -> str:
    """``name``, or the only pool there is."""
    if name is not None:
        return name
    from storage.db import snapshot_scope
    from storage.pool_records import pool_names

    with snapshot_scope(engine(ctx)) as session:
        names = pool_names(session=session)
    if len(names) != 1:
        raise LocalizedError(
            "version_ambiguous",
            kind="@status_pools",
            known=", ".join(names) or "-",
            option="--pool",
        )
    return names[0]
