"""``qrels release`` (create, verify, diff) and ``qrels coverage``: the qrels an evaluator
takes away, and whether they can fairly score a new run."""

from __future__ import annotations

from pathlib import Path

import click

from annotator.cli.context import (
    QrelsError,
    checked_alone,
    choice,
    echo_lines,
    engine,
    folder,
    say,
)
from annotator.cli.formatting import coverage_lines, diff_lines, release_lines
from annotator.cli.pool_formatting import pool_result_lines
from pooling.grades import DEFAULT_POLICY, POLICIES
from pooling.i18n import LocalizedError, t
from pooling.release_folder import valid_version

run_file = click.Path(dir_okay=False, path_type=Path)


@click.group()
def release() -> None:
    """Create, verify and compare versioned qrels releases."""


@release.command("create")
@click.argument("version")
@click.option("--pool", "pool_name", required=True)
@click.option(
    "--out",
    type=folder,
    required=True,
    help="The folder that holds releases: this one is written to OUT/VERSION (new).",
)
@choice("--policy", POLICIES, DEFAULT_POLICY, "When annotators disagree.")
@click.option("--allow-unresolved", is_flag=True, help="Leave unresolved candidates out.")
@click.option(
    "--accept-carried",
    is_flag=True,
    help="A carried pool: publish its 'same text' grades of dev queries nobody re-judged.",
)
@click.pass_context
def release_create(ctx, version, pool_name, out, policy, allow_unresolved, accept_carried):
    """Write release VERSION of a pool into the new folder OUT/VERSION."""
    from annotator.releases.releases import create_release

    result = create_release(
        engine(ctx),
        version,
        pool_name,
        release_root(out, version),
        policy=policy,
        allow_unresolved=allow_unresolved,
        accept_carried=accept_carried,
    )
    echo_lines(release_lines(version, result.folder, result.manifest))


def release_root(out: Path, version: str) -> Path:
    """The folder that holds releases, from ``--out``. Before 0.2.0 ``--out`` named the
    release's own folder; until 0.3.0 an ``--out`` whose last part is the version is still
    read so (a script's ``--out releases/v1`` writes ``releases/v1``, not
    ``releases/v1/v1``, where it would read an empty folder), with a warning on stderr that
    says what to write instead. The old form wrote into an existing empty folder: that
    folder is removed so that the release takes its place."""
    if out.name != version or not valid_version(version):
        return out
    click.echo(t("release_out_old_form", None, out=out, root=out.parent), err=True)
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    return out.parent


@release.command("verify")
@click.argument("release_dir", type=folder)
@click.pass_context
def release_verify(ctx: click.Context, release_dir: Path) -> None:
    """Check every file's sha256 against the manifest, and the files' formats; with a
    database (--db, $QRELS_DATABASE_URL, or ./qrels.db when it exists), also that the
    manifest is the one recorded when the release was created."""
    from annotator.releases.releases import recorded_problems
    from pooling.release_folder import verify_release

    problems = verify_release(release_dir)
    made = _recording_database(ctx)
    if made is not None:
        problems += [p for p in recorded_problems(made, release_dir) if p not in problems]
    if problems:
        raise QrelsError("; ".join(problems))
    if made is None:
        say("release_intact_alone", folder=release_dir)
    else:
        say("release_intact_recorded", folder=release_dir, url=made.url.render_as_string())


def _recording_database(ctx: click.Context):
    """The database to compare a release with: the one named by --db or
    $QRELS_DATABASE_URL, else the default SQLite file if it exists; None without one (a
    release checked away from its database)."""
    from sqlalchemy.engine import make_url

    from pooling.settings import current
    from storage.db import DEFAULT_URL

    named = ctx.obj["db"] or current().database_url
    if not named and not Path(make_url(DEFAULT_URL).database or "").is_file():
        return None
    return engine(ctx)


@release.command("diff")
@click.argument("a", type=folder)
@click.argument("b", type=folder)
@click.option("--run", type=run_file, help="A run (TREC, JSONL or CSV).")
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the difference as JSON.")
def release_diff(a: Path, b: Path, run: Path | None, k: int, as_json: bool) -> None:
    """A run's nDCG@10 and Recall@k under release A and B (with --run), then the judgments
    added, removed and changed from A to B."""
    import dataclasses
    import json

    from annotator.evaluation.comparison import run_under_two_releases
    from annotator.releases.releases import diff_releases

    change = diff_releases(a, b)
    if run is not None:
        metrics, counted = run_under_two_releases(a, b, run, k, change.level)
        change = dataclasses.replace(change, metrics=metrics, counted=counted)
    if as_json:
        click.echo(json.dumps(change.to_dict(), ensure_ascii=False, indent=2))
    else:
        echo_lines(diff_lines(change))
    checked_alone(a, b)


def cutoffs(text: str) -> list[int]:
    """``"5,10,20"`` as sorted cutoffs; refuses anything but whole numbers from 1."""
    try:
        ks = sorted({int(k) for k in text.split(",") if k.strip()})
    except ValueError:
        ks = []
    if not ks or ks[0] < 1:
        raise LocalizedError("size_positive", what="--k", value=text)
    return ks


@click.command("coverage")
@click.option("--release", "release_dir", type=folder, required=True)
@click.option("--run", "run_path", type=run_file, required=True)
@click.option("--k", "ks", default="5,10,20", show_default=True, help="Cutoffs, comma-separated.")
@click.option("--topup", "pool_name", help="Add the unjudged chunks in the top k to this pool.")
@click.pass_context
def coverage(ctx, release_dir: Path, run_path: Path, ks: str, pool_name: str | None) -> None:
    """Judged@k of a run against a release, and the unjudged chunks in its top k."""
    from annotator.evaluation.run_files import checked_against
    from annotator.pools import judged
    from pooling.release_folder import intact, read_qrels
    from pooling.run import Run
    from storage.db import snapshot_scope
    from storage.release_records import recorded_release

    cuts = cutoffs(ks)
    made = engine(ctx) if pool_name else None
    if made is not None:  # a top-up builds on the release: it must be the one recorded
        with snapshot_scope(made) as session:
            recorded_release(release_dir, session=session)
    else:
        intact(release_dir)
    run = checked_against(release_dir, Run.from_file(run_path))  # chunk ids, or refused
    report = judged.coverage(read_qrels(release_dir), run, cuts)
    echo_lines(coverage_lines(report, cuts))
    if made is not None and pool_name:
        result = judged.topup(made, pool_name, report, run.name, cuts[-1])
        echo_lines(pool_result_lines(result))
    else:
        checked_alone(release_dir)


COMMANDS = [release, coverage]
