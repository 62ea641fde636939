"""The ``qrels`` command: set up the database, import versions, build pools, publish and
check releases, run the app.

One module per group of commands (``setup_commands``, ``import_commands``,
``pool_commands``, ``release_commands``, ``quality_commands``, ``evaluate_commands``,
``carry_commands``, ``gold_commands``, ``sample_commands``, ``judge_commands``); what they
print comes from ``formatting`` (``annotator.evaluation.evaluation_text`` for ``evaluate``)
in the user's language (``--lang``, else ``QRELS_LANG``, else the locale).
Commands parse arguments and call ``storage`` and the domain modules of ``annotator``; each
imports what it needs when it runs, and a command module is itself imported only when one
of its commands runs (or ``--help`` lists them all), so the command starts at once.
"""

from __future__ import annotations

import importlib
import io
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import click

from annotator.cli import cli_messages  # noqa: F401  (registers the CLI's messages)
from annotator.cli.context import EXIT_CANNOT_RUN, USER_ERRORS, QrelsError
from pooling.i18n import LANGUAGES, t
from pooling.settings import chosen

# Each command module and the commands in its ``COMMANDS``, by name (a test checks them):
# ``qrels status`` imports ``setup_commands`` alone, not the imports of the other nine.
COMMAND_MODULES = {
    "setup_commands": ("init", "status", "demo", "serve", "user", "rubric"),
    "import_commands": ("import",),
    "pool_commands": ("pool",),
    "release_commands": ("release", "coverage"),
    "quality_commands": ("agreement", "calibrate"),
    "evaluate_commands": ("evaluate",),
    "carry_commands": ("carry",),
    "gold_commands": ("gold",),
    "sample_commands": ("sample",),
    "judge_commands": ("judge",),
}
_MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}


class _Group(click.Group):
    """Turns the errors users cause into one clear line instead of a traceback, exit code
    2; an interrupted command exits 2 too (click's own would be 1, a failed gate's code).
    Its commands are loaded from their modules when first named (``COMMAND_MODULES``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_MODULE_OF)

    def get_command(self, ctx: click.Context | None, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _MODULE_OF:
            module = importlib.import_module(f"annotator.cli.{_MODULE_OF[cmd_name]}")
            for command in module.COMMANDS:
                self.commands.setdefault(str(command.name), command)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except USER_ERRORS as exc:
            raise QrelsError(str(exc)) from exc
        except (click.Abort, KeyboardInterrupt, EOFError) as exc:
            raise QrelsError(t("cli_interrupted")) from exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Database URL (default: $QRELS_DATABASE_URL, else sqlite:///qrels.db).",
)
@click.option("--lang", type=click.Choice(LANGUAGES), help="Language of messages (en or zh).")
@click.pass_context
def cli(ctx: click.Context, db_url: str | None, lang: str | None) -> None:
    """qrels-studio: build versioned, trustworthy relevance judgments for RAG retrieval."""
    # For this command only (in one process, tests and notebooks run several); the
    # environment is left as it was.
    ctx.with_resource(chosen(language=lang))
    ctx.obj = {"db": db_url}


class ReaderMayLeave(io.RawIOBase):
    """A standard stream's file descriptor whose reader may stop reading (``qrels evaluate
    | head -60``): once a write finds the pipe closed, what follows is discarded, so the
    command runs to its end (writes ``--out``, checks the gate) and exits with its own code
    instead of stopping at the next ``echo`` with an error about a pipe."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd, self.gone = fd, False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        if not self.gone:
            try:
                return os.write(self.fd, data)
            except BrokenPipeError:
                self.gone = True
        return size


@contextmanager
def reader_may_leave() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr``, where they are files, write through
    ``ReaderMayLeave`` (keeping their encoding and buffering) while the block runs."""
    kept = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, io.TextIOWrapper) and _has_fd(stream):
            stream.flush()
            kept[name] = stream
            setattr(sys, name, _through_reader_may_leave(stream))
    try:
        yield
    finally:
        for name, stream in kept.items():
            getattr(sys, name).flush()
            setattr(sys, name, stream)


def _through_reader_may_leave(stream: io.TextIOWrapper) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.BufferedWriter(ReaderMayLeave(stream.fileno())),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )


def _has_fd(stream: io.TextIOWrapper) -> bool:
    try:
        stream.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return False
    return True


def main() -> None:
    """Entry point of the ``qrels`` console script. Exit codes: 0 done (a gate passed), 1 a
    gate failed, 2 the command could not run (bad input, a missing file, a usage error; and
    a bug, whose traceback is printed), so that a CI job never reads a broken run as a
    regression. A reader that stops early (``| head``) changes none of them: the rest of
    the output is discarded and the command finishes (``ReaderMayLeave``)."""
    with reader_may_leave():
        try:
            cli(prog_name="qrels")
        except Exception:  # a bug: click lets it through; keep its traceback, not the gate's 1
            traceback.print_exc()
            sys.exit(EXIT_CANNOT_RUN)


if __name__ == "__main__":
    main()
