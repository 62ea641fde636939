"""``qrels sample``: the queries people judge completely, drawn at random and recorded, so
that ``qrels evaluate --estimate`` can combine them with a model judge's grades on every
query (``annotator.labeling.sampling``)."""

from __future__ import annotations

import json

import click

from annotator.cli.context import echo_lines, engine, only_pool
from pooling.i18n import t

SHOWN = 20  # query ids listed before "and N more"


@click.command("sample")
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option(
    "--queries",
    required=True,
    help="How many queries people judge completely: a number (50) or a share (20%).",
)
@click.option(
    "--by",
    type=click.Choice(["slice", "uncertainty"]),
    help="Stratified by slice, or unequal probabilities from a model's uncertainty (--model).",
)
@click.option("--model", help="The model judge whose grades set the probabilities.")
@click.option("--seed", type=int, help="Seed of the draw (default: a random one, recorded).")
@click.option(
    "--redraw",
    is_flag=True,
    help="Draw again although people have judged queries of the sample in force (needs --why).",
)
@click.option("--why", help="Why the sample is drawn again: kept, and shown with every estimate.")
@click.option("--json", "as_json", is_flag=True, help="Print the sample as JSON.")
@click.pass_context
def sample(ctx, pool_name, queries: str, by, model, seed, redraw, why, as_json: bool) -> None:
    """Choose, at random, the queries people judge completely (the app hands them out
    first), and record the draw: its design, seed and each query's probability. Once
    people have judged sampled queries, a new draw needs --redraw --why TEXT; every draw
    is kept, travels in releases and is shown with every estimate."""
    from annotator.labeling.sampling import draw_sample

    name = only_pool(ctx, pool_name)
    record = draw_sample(
        engine(ctx), name, queries, by=by, seed=seed, model=model, redraw=redraw, why=why
    )
    if as_json:
        click.echo(json.dumps(record.to_dict(), ensure_ascii=False, indent=2))
    else:
        echo_lines(sample_lines(record))


def sample_lines(record, lang: str | None = None) -> list[str]:
    """What ``qrels sample`` prints: the draw, its strata or probabilities, which draw of
    the pool it is, the queries."""
    from annotator.evaluation.estimation_text import draw_line

    lines = [
        t(
            "sample_drawn",
            lang,
            pool=record.pool,
            size=record.size,
            population=record.population,
            design=t(f"sample_design_{record.design}", lang),
            seed=record.seed,
        )
    ]
    for stratum, counts in sorted(record.config.get("strata", {}).items()):
        lines.append(t("sample_stratum", lang, stratum=stratum, **counts))
    if record.design == "uncertainty":
        probabilities = [m.probability for m in record.members] or [0.0]
        lines.append(
            t(
                "sample_probabilities",
                lang,
                model=record.model,
                expected=record.config.get("expected_size", record.size),
                low=min(probabilities),
                high=max(probabilities),
            )
        )
    lines.append(f"  {draw_line([d.to_dict() for d in record.draws], lang)}")
    ids = [m.query_id for m in record.members]
    more = f" {t('sample_more', lang, count=len(ids) - SHOWN)}" if len(ids) > SHOWN else ""
    lines.append(t("sample_queries", lang, ids=", ".join(ids[:SHOWN]) + more))
    return lines


COMMANDS = [sample]
