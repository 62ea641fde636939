"""``qrels gold``: gold items mixed into annotators' work, and how each annotator does on
them (``annotator.quality.gold``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotator.cli.context import echo_lines, engine, folder, only_pool, say


@click.group()
def gold() -> None:
    """Gold items: add them to a pool, set how often they come, read how annotators do."""


@gold.command("add")
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option("--release", "release_dir", type=folder, required=True)
@click.option("--sample", type=click.IntRange(min=1), help="Only this many, drawn at random.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sample.")
@click.pass_context
def gold_add(ctx, pool_name: str | None, release_dir: Path, sample: int | None, seed: int):
    """Make the graded candidates of an earlier release (same query set and corpus version)
    gold items of a pool."""
    from annotator.quality.gold import add_from_release

    name = only_pool(ctx, pool_name)
    added = add_from_release(engine(ctx), name, release_dir, sample=sample, seed=seed)
    click.echo(added.message(name))


@gold.command("settings")
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option("--rate", type=click.IntRange(min=2), help="One gold item in this many items.")
@click.option("--floor", type=click.FloatRange(-1, 1), help="Flag annotators below this kappa.")
@click.option("--min-seen", type=click.IntRange(min=1), help="Gold seen before they see figures.")
@click.option("--show/--hide", default=None, help="Annotators see their own figures or not.")
@click.pass_context
def gold_settings(ctx, pool_name: str | None, rate, floor, min_seen, show) -> None:
    """Show (and with options, change) how a pool mixes in gold."""
    from annotator.quality.gold import configure, settings

    name = only_pool(ctx, pool_name)
    asked = {"rate": rate, "floor": floor, "min_seen": min_seen, "show": show}
    values = {key: value for key, value in asked.items() if value is not None}
    chosen = configure(engine(ctx), name, **values) if values else settings(engine(ctx), name)
    say("gold_settings_line", pool=name, **vars(chosen))


@gold.command("report")
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option("--rounds", type=click.IntRange(min=0), default=500, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One object per annotator.")
@click.pass_context
def gold_report(ctx, pool_name: str | None, rounds: int, as_json: bool) -> None:
    """How each annotator does on the gold items they were checked on."""
    import dataclasses

    from annotator.cli.formatting import gold_lines
    from annotator.quality.gold import gold_checks, settings, standings

    name = only_pool(ctx, pool_name)
    chosen = settings(engine(ctx), name)
    found = standings(gold_checks(engine(ctx), name), chosen.floor, rounds)
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(s) for s in found], ensure_ascii=False, indent=2))
    else:
        echo_lines(gold_lines(found, chosen.floor))


COMMANDS = [gold]
