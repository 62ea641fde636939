"""``qrels import``: a corpus version, a query set, a run or judgments, each one
transaction (``storage.imports``)."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.cli.context import choice, echo_lines, engine, existing_file, with_versions
from annotator.cli.formatting import import_lines
from pooling.readers import SPLITS


@click.group("import")
def import_group() -> None:
    """Import a corpus version, a query set, a run or judgments (each one transaction)."""


def _import(ctx: click.Context, function: str, message: str, kind: str | None, arguments: dict):
    """Run ``storage.imports.<function>(**arguments)`` in one transaction and say what it
    did (``kind``: the kind of version it imports, for the no-op message)."""
    from storage import imports
    from storage.db import session_scope

    with session_scope(engine(ctx)) as session:
        result = getattr(imports, function)(session=session, **arguments)
    echo_lines(import_lines(result, message, kind))


@import_group.command("corpus")
@click.argument("file", metavar="FILE|FOLDER", type=click.Path(path_type=Path))
@click.option("--corpus-version", required=True, help="Name of the new corpus version.")
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    help="Split documents (characters; a folder's: 800 unless given).",
)
@click.option("--chunk-overlap", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--allow-empty", is_flag=True, help="Keep documents whose text is empty.")
@click.option(
    "--documents",
    type=existing_file,
    help="Whole documents (BEIR JSONL) the chunk lines were cut from, to locate their spans.",
)
@click.pass_context
def import_corpus(ctx: click.Context, file: Path, corpus_version: str, **options) -> None:
    """Import a BEIR corpus.jsonl (_id, title, text, optional doc_id/parent_id, metadata), or
    a folder of .md, .txt, .html, .pdf and .docx files: one document per file, its path as id."""
    _import(
        ctx,
        "import_corpus",
        "imported_corpus",
        "kind_corpus_version",
        {"path": file, "version": corpus_version, **options},
    )


@import_group.command("queries")
@click.argument("file", type=existing_file)
@click.option("--query-set", required=True, help="Name of the new query set version.")
@choice("--default-split", SPLITS, "test", "Split of queries whose line has none.")
@click.pass_context
def import_queries(ctx: click.Context, file: Path, query_set: str, default_split: str) -> None:
    """Import questions: a .txt file (one a line), a .csv file with a text column, or a BEIR
    queries.jsonl (_id, text, optional slices, split, answerable, notes)."""
    _import(
        ctx,
        "import_queries",
        "imported_queries",
        "kind_query_set",
        {"path": file, "name": query_set, "default_split": default_split},
    )


@import_group.command("run")
@click.argument("file", type=existing_file)
@click.option("--system", required=True, help="Name of the system that produced the run.")
@with_versions
@click.pass_context
def import_run(ctx: click.Context, file: Path, **options) -> None:
    """Import a run as an external system: TREC (qid Q0 docid rank score tag), JSONL or CSV
    (query_id, chunk_id or doc_id, score, optional rank), told from the content."""
    _import(ctx, "import_run", "imported_run", "kind_run", {"path": file, **options})


@import_group.command("judgments")
@click.argument("file", type=existing_file)
@click.option("--annotator", required=True, help="Whose judgments these are.")
@choice("--kind", ("human", "model"), "human", "model: an automatic judge, kept apart.")
@click.option("--rubric-version", help="Rubric the grades were made under (default: current).")
@with_versions
@click.pass_context
def import_judgments(ctx: click.Context, file: Path, rubric_version: str | None, **options) -> None:
    """Import judgments: TREC qrels, BEIR qrels TSV or JSONL, told from the content."""
    from annotator.rubric import current_version

    # Grades under another version than the one in force count in no pool (one_grade).
    in_force = current_version()
    arguments = {"path": file, "rubric_version": rubric_version or in_force, **options}
    arguments["rubric_in_force"] = in_force
    _import(ctx, "import_judgments", "imported_judgments", None, arguments)


COMMANDS = [import_group]
