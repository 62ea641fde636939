"""``qrels carry``: carry a release's judgments to a corpus version chunked differently, as a
pool for people to grade again (``annotator.releases.carry``)."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.cli.context import echo_lines, engine, folder
from annotator.cli.formatting import carry_lines
from pooling.spans import DEFAULT_MIN_OVERLAP


@click.command("carry")
@click.option("--release", "release_dir", type=folder, required=True, help="A release folder.")
@click.option(
    "--to-corpus-version",
    "corpus_version",
    required=True,
    help="The same documents, chunked differently.",
)
@click.option("--pool", "pool_name", required=True, help="Name of the new pool on that version.")
@click.option("--overlap", type=int, default=2, show_default=True, help="Judgments per candidate.")
@click.option(
    "--min-overlap",
    type=float,
    default=DEFAULT_MIN_OVERLAP,
    show_default=True,
    help="Share of either chunk's characters a new chunk must share with a judged one.",
)
@click.pass_context
def carry(
    ctx, release_dir: Path, corpus_version: str, pool_name: str, overlap: int, min_overlap: float
) -> None:
    """Map a release's judged chunks onto another chunking of the same documents, and pool
    the chunks they overlap for people to grade again (the mapped grades are kept only as
    the automatic judge carried:<release>)."""
    from annotator.releases.carry import carry as carry_release

    result = carry_release(
        engine(ctx),
        release_dir,
        corpus_version,
        pool_name,
        overlap=overlap,
        min_overlap=min_overlap,
    )
    echo_lines(carry_lines(result, overlap))


COMMANDS = [carry]
