"""``qrels evaluate``: score runs against a release, per slice or split, compare them with
the first (the baseline), and gate a candidate on the frozen test split. Exit codes: 0
done (the gate, if any, passed), 1 the gate failed, 2 the command could not run."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotator.cli.context import EXIT_GATE_FAILED, checked_alone, choice, echo_lines, folder
from pooling.i18n import LocalizedError, t
from pooling.metrics import DEFAULT_METRICS, syntax

# annotator.evaluation.comparison.MIN_QUERIES, kept here so that --help starts at once
MIN_QUERIES = 20

run_file = click.Path(dir_okay=False, path_type=Path)


@click.command("evaluate")
@click.option("--release", "release_dir", type=folder, required=True, help="A release folder.")
@click.option(
    "--run",
    "run_paths",
    type=run_file,
    multiple=True,
    required=True,
    help="A run (TREC, JSONL or CSV); repeat for more. The first is the baseline of comparisons.",
)
@click.option(
    "--name",
    "names",
    multiple=True,
    help="A run's name, one per --run in order (else its TREC tag when it has one, else its "
    "file name).",
)
@click.option(
    "--metrics",
    default=DEFAULT_METRICS,
    show_default=True,
    help=f"{syntax()}, comma-separated.",
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
    help="The generator's context budget: Recall and Hit at it first; deeper figures marked.",
)
@click.option("--condensed", is_flag=True, help="Also score with unjudged items removed.")
@click.option(
    "--gate",
    "gate_text",
    help="e.g. 'ndcg@10>=-0.01@low,recall@20>=0' on the test split: a check on the mean "
    "difference, or with @low/@high on that end of its 95% interval. Exit 1 if it fails.",
)
@click.option("--gate-on-dev", is_flag=True, help="Allow a gate on --split dev.")
@click.option(
    "--min-queries",
    type=click.IntRange(min=1),
    default=MIN_QUERIES,
    show_default=True,
    help="Groups with fewer counted queries are reported, not gated.",
)
@click.option("--gate-small", is_flag=True, help="Gate groups under --min-queries too.")
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
    "people's on the release's sample (qrels sample); a --gate then applies to the estimated "
    "differences (a group without an estimate is reported, not gated).",
)
@click.option(
    "--raw-grades",
    is_flag=True,
    help="With --estimate: predict from the model's grades as they are, not calibrated on "
    "people's grades of the sample (the default).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse a run that ranks queries the release does not hold (exit 2); without it "
    "they are ignored and named in a warning.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--out", type=folder, help="Write report.json, per_query.csv and report.md here.")
def evaluate(
    release_dir: Path,
    run_paths: tuple[Path, ...],
    names: tuple[str, ...],
    metrics: str,
    by: str | None,
    split: str | None,
    level: str,
    threshold: int,
    context_k: int | None,
    condensed: bool,
    gate_text: str | None,
    gate_on_dev: bool,
    min_queries: int,
    gate_small: bool,
    rounds: int,
    estimate_model: str | None,
    raw_grades: bool,
    strict: bool,
    as_json: bool,
    out: Path | None,
) -> None:
    """Score runs against a release: metrics per query, slice and split, unanswerable
    queries apart, Judged@k, comparisons with the first run, and an optional gate.
    Exit code 0 done, 1 the gate failed, 2 could not run."""
    from annotator.evaluation import comparison, evaluation, evaluation_report
    from annotator.evaluation.evaluation_text import evaluation_lines
    from annotator.evaluation.run_files import read_run_file

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
    settings = comparison.with_gate_metrics(settings, checks)
    if names and len(names) != len(run_paths):
        raise LocalizedError("run_names_count", names=len(names), runs=len(run_paths))
    release = evaluation.load_release(release_dir)
    given = names or (None,) * len(run_paths)
    runs = [read_run_file(path, name) for path, name in zip(run_paths, given, strict=True)]
    result = evaluation.evaluate(release, runs, settings)
    if strict:
        _refuse_unknown_queries(result)
    gate_here = [] if estimate_model else checks  # with --estimate the gate is on estimates
    data = evaluation_report.report(result, gate_here, gate_on_dev, min_queries, gate_small)
    if estimate_model:
        from annotator.evaluation.estimation_text import estimate_lines, estimate_part

        data["estimates"] = estimate_part(
            result,
            runs,
            estimate_model,
            checks,
            gate_on_dev,
            min_queries,
            gate_small,
            predictor="raw" if raw_grades else "calibrated",
        )
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
    checked_alone(release_dir)
    if data["gate"] and not data["gate"]["passed"]:
        click.get_current_context().exit(EXIT_GATE_FAILED)  # the lines above name each check
    if (data.get("estimates") or {}).get("gate") and not data["estimates"]["gate"]["passed"]:
        click.get_current_context().exit(EXIT_GATE_FAILED)


def _refuse_unknown_queries(result) -> None:
    """``--strict``: raise ``LocalizedError`` naming the first run that ranks queries the
    release does not hold; without it they are ignored, and a warning names them."""
    for info in result.runs:
        if info.unknown_queries:
            raise LocalizedError(
                "run_queries_unknown_strict",
                run=info.name,
                count=len(info.unknown_queries),
                example=info.unknown_queries[0],
            )


COMMANDS = [evaluate]
