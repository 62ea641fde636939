"""``qrels agreement`` and ``qrels calibrate``: how far annotators agree, and how far an
automatic judge agrees with the humans."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotator.cli.context import echo_lines, engine, folder, only_pool
from annotator.cli.formatting import agreement_lines, calibration_lines


@click.command("agreement")
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option("--by", type=click.Choice(["slice", "split"]), help="Also per slice or split.")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON layout.")
@click.option(
    "--rounds",
    type=click.IntRange(min=0),
    default=500,
    show_default=True,
    help="Bootstrap rounds for the 95% interval.",
)
@click.pass_context
def agreement(ctx, pool_name, by, as_json, rounds) -> None:
    """Cohen's kappa per pair of annotators and Krippendorff's alpha."""
    from annotator.quality.agreement import report, to_json
    from annotator.quality.pool_quality import judgments_frame
    from pooling.grouping import groups

    frame = judgments_frame(engine(ctx), only_pool(ctx, pool_name))
    parts = {"all": frame} if by is None else {"all": frame, **groups(frame, by)}
    reports = [report(part, name, rounds=rounds) for name, part in parts.items()]
    if as_json:
        click.echo(json.dumps(to_json(reports), ensure_ascii=False, indent=2))
    else:
        echo_lines(agreement_lines(reports))


@click.command("calibrate")
@click.option("--judge", required=True, help="The model judge's name (from import judgments).")
@click.option("--release", "release_dir", type=folder, required=True)
@click.option("--worst", type=click.IntRange(min=0), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def calibrate(ctx, judge: str, release_dir: Path, worst: int, as_json: bool) -> None:
    """An automatic judge against the adjudicated human grades of a release."""
    import dataclasses

    from annotator.judge.calibration import calibrate_judge

    result = calibrate_judge(engine(ctx), judge, release_dir, worst)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result), ensure_ascii=False, indent=2))
    else:
        echo_lines(calibration_lines(result, str(release_dir)))


COMMANDS = [agreement, calibrate]
