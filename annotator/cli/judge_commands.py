"""``qrels judge``: a language model grades a pool's candidates through an OpenAI-compatible
chat endpoint (``annotator.judge``); ``qrels judge report`` says what it cost, where it
failed, how far it agrees with the people, and what people must see."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from annotator.cli.context import (
    EXIT_CANNOT_RUN,
    echo_lines,
    engine,
    existing_file,
    only_pool,
    say,
)
from pooling.i18n import t


def _prompt(path: Path | None):
    from annotator.judge.prompt import Prompt, default_prompt

    return default_prompt() if path is None else Prompt.from_file(path)


@click.group("judge", invoke_without_command=True)
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option("--model", help="The model to ask for, as the server names it.")
@click.option("--base-url", help="The server's OpenAI-compatible base URL, up to /v1.")
@click.option(
    "--api-key-env",
    "key_variable",
    metavar="VAR",
    help="Environment variable holding the API key (a name ending in _API_KEY).",
)
@click.option("--concurrency", type=click.IntRange(1, 64), default=4, show_default=True)
@click.option("--limit", type=click.IntRange(min=1), help="Ask about this many at most.")
@click.option("--prompt", "prompt_file", type=existing_file, help="A prompt of one's own.")
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    help="Seconds to connect and for each read; a whole request gets three times this.",
)
@click.option("--rate", type=click.FloatRange(min=0.01), help="Requests a second at most.")
@click.option("--max-tokens", type=click.IntRange(min=16), default=512, show_default=True)
@click.option(
    "--json-mode/--no-json-mode", default=True, show_default=True, help="Ask for JSON output."
)
@click.option(
    "--logprobs/--no-logprobs",
    default=True,
    show_default=True,
    help="Ask for token probabilities (how sure each grade is).",
)
@click.pass_context
def judge(ctx, pool_name, model, base_url, key_variable, prompt_file, **settings) -> None:
    """Grade the pool's candidates with a model: each candidate that has no valid answer
    from this model under this prompt yet, one request each; answers are saved as they
    come (Ctrl-C loses none: run again to go on). Valid grades are the model's judgments,
    never a person's."""
    if ctx.invoked_subcommand is not None:
        return
    if not model or not base_url:
        raise click.UsageError(t("judge_needs_model"))
    from tqdm.auto import tqdm

    from annotator.judge.runner import JudgeSettings, run_judge, start_run

    name = only_pool(ctx, pool_name)
    started = start_run(
        engine(ctx),
        name,
        model,
        base_url,
        key_variable=key_variable,
        prompt=_prompt(prompt_file),
        settings=JudgeSettings(**settings),
    )
    say("judge_started", run=started.run_id, model=model, pool=name, judge=started.judge,
        todo=len(started.candidates))  # fmt: skip
    if started.reused:
        say("judge_reused", reused=started.reused)
    failed = 0
    with tqdm(total=len(started.candidates), unit="candidate", desc=model, file=sys.stderr) as bar:

        def progress(attempt) -> None:
            nonlocal failed
            failed += not attempt.graded
            bar.update(1)
            bar.set_postfix(failed=failed, refresh=False)

        try:
            summary = run_judge(engine(ctx), started, progress=progress)
        except KeyboardInterrupt:
            bar.close()
            say("judge_interrupted")
            ctx.exit(EXIT_CANNOT_RUN)  # as any interrupted command: only a failed gate is 1
    say("judge_finished", run=summary.run_id, status=t(f"judge_status_{summary.status}"),
        graded=summary.graded, failed=summary.failed, flagged=summary.flagged,
        requests=summary.requests)  # fmt: skip
    if summary.error:
        say("judge_run_error", error=str(summary.told) if summary.told else summary.error)
    if summary.status == "failed":
        ctx.exit(EXIT_CANNOT_RUN)


@judge.command("report")
@click.option("--pool", "pool_name", help="Pool (needed if there are several).")
@click.option("--model", required=True, help="The model, as it was asked for.")
@click.option(
    "--prompt", "prompt_file", type=existing_file, help="Its prompt (default: its newest run's)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON layout.")
@click.pass_context
def judge_report(ctx, pool_name: str | None, model: str, prompt_file, as_json: bool) -> None:
    """Tokens, seconds and failures per run and in all; the calibration against the pool's
    final grades; the candidates people must see."""
    from annotator.cli.formatting import calibration_lines, judge_lines
    from annotator.judge.judge_report import judge_report as report_of
    from annotator.judge.judge_report import to_json

    name = only_pool(ctx, pool_name)
    digest = None if prompt_file is None else _prompt(prompt_file).hash
    report = report_of(engine(ctx), name, model, digest)
    if as_json:
        click.echo(json.dumps(to_json(report), ensure_ascii=False, indent=2, default=str))
        return
    where = t("judge_report_pool_grades", pool=name)
    calibration = [] if report.calibration is None else calibration_lines(report.calibration, where)
    echo_lines(judge_lines(report, calibration))


@judge.command("prompt")
@click.option("--prompt", "prompt_file", type=existing_file, help="A prompt file to check.")
def judge_prompt(prompt_file) -> None:
    """Print the prompt (this release's, or a file's once checked) in the layout of a
    prompt file, with its hash: a start for a prompt of one's own."""
    click.echo(json.dumps(_prompt(prompt_file).to_dict(), ensure_ascii=False, indent=2))


COMMANDS = [judge]
