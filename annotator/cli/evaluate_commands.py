"""``qrels evaluate``: score runs against a release, per slice or split, compare them with
the first (the baseline), and gate a candidate on the frozen test split."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotator.cli.context import choice, echo_lines, folder
from pooling.i18n import t
from pooling.metrics import DEFAULT_METRICS

run_file = click.Path(dir_okay=False, path_type=Path)


@click.command("evaluate")
@click.option("--release", "release_dir", type=folder, required=True, help="A release folder.")
@click.option(
    "--run",
    "run_paths",
    type=run_file,
    multiple=True,
    required=True,
    help="A TREC run; repeat for more. The first is the baseline of comparisons.",
)
@click.option(
    "--metrics",
    default=DEFAULT_METRICS,
    show_default=True,
    help="recall@k, hit@k, p@k, mrr[@k], ndcg[@k], map[@k], comma-separated.",
)
@click.option("--by", type=click.Choice(["slice", "split"]), help="Also per slice or split.")
@click.option("--split", type=click.Choice(["dev", "test"]), help="Only the queries of a split.")
@choice(
    "--level",
    ("chunk", "doc"),
    "chunk",
    "doc: the release's qrels-doc.trec; a chunk run is reduced to its best chunks.",
)
@click.option(
    "--threshold",
    type=click.IntRange(1, 3),
    default=1,
    show_default=True,
    help="The lowest grade that counts as relevant.",
)
@click.option(
    "--context-k",
    type=click.IntRange(min=1),
    help="The generator's context budget: Recall and Hit at it, shown first.",
)
@click.option("--condensed", is_flag=True, help="Also score with unjudged items removed.")
@click.option("--gate", "gate_text", help="e.g. 'ndcg@10>=-0.01,recall@20>=0' (on the test split).")
@click.option("--gate-on-dev", is_flag=True, help="Allow a gate on --split dev.")
@click.option(
    "--rounds",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Rounds of the bootstrap and of the randomization test.",
)
@click.option(
    "--estimate",
    "estimate_model",
    metavar="MODEL",
    help="Also estimate each figure from this model judge's grades on every query and "
    "people's on the release's sample (qrels sample); a --gate then applies to the estimates.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--out", type=folder, help="Write report.json, per_query.csv and report.md here.")
def evaluate(
    release_dir: Path,
    run_paths: tuple[Path, ...],
    metrics: str,
    by: str | None,
    split: str | None,
    level: str,
    threshold: int,
    context_k: int | None,
    condensed: bool,
    gate_text: str | None,
    gate_on_dev: bool,
    rounds: int,
    estimate_model: str | None,
    as_json: bool,
    out: Path | None,
) -> None:
    """Score runs against a release: metrics per query, slice and split, unanswerable
    queries apart, Judged@k, comparisons with the first run, and an optional gate."""
    import dataclasses

    from annotator import comparison, evaluation, evaluation_report
    from annotator.evaluation_text import evaluation_lines
    from annotator.run_files import read_run_file

    checks = comparison.parse_gate(gate_text) if gate_text else []
    settings = evaluation.Settings.parse(
        metrics,
        context_k,
        threshold=threshold,
        level=level,
        split=split,
        by=by,
        condensed=condensed,
        rounds=rounds,
    )
    gated = [c.metric for c in checks if c.metric not in settings.metrics]
    settings = dataclasses.replace(settings, metrics=settings.metrics + tuple(gated))
    release = evaluation.load_release(release_dir)
    runs = [read_run_file(path) for path in run_paths]
    result = evaluation.evaluate(release, runs, settings)
    data = evaluation_report.report(
        result, [] if estimate_model else checks, allow_dev_gate=gate_on_dev
    )
    if estimate_model:
        from annotator.estimation_text import estimate_lines, estimate_part

        data["estimates"] = estimate_part(result, runs, estimate_model, checks, gate_on_dev)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        echo_lines(evaluation_lines(data))
        if estimate_model:
            echo_lines(estimate_lines(data["estimates"]))
    if out is not None:
        files = evaluation_report.report_files(result, data)
        written = evaluation_report.write_report(out, files)
        click.echo(t("eval_written", folder=written), err=as_json)  # stdout stays JSON
    if data["gate"] and not data["gate"]["passed"]:
        click.get_current_context().exit(1)  # the lines above name each failed check
    if (data.get("estimates") or {}).get("gate") and not data["estimates"]["gate"]["passed"]:
        click.get_current_context().exit(1)


COMMANDS = [evaluate]
