"""The ``qrels`` command: set up the database, import versions, report status, run the demo.

Commands parse arguments, open one transaction and call ``storage`` functions; what they
print comes from ``pooling.i18n`` so it reads in English or Chinese (``--lang`` or
``QRELS_LANG``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import statistics
import sys
from collections import Counter
from importlib.resources import files
from pathlib import Path

import click
import pandas as pd

from annotator import (
    active_pooling,
    adjudication,
    agreement,
    auth,
    calibration,
    judged,
    pool_building,
    releases,
)
from annotator.rubric import current_version
from pooling.chunking import describe
from pooling.i18n import LANGUAGES, t
from pooling.readers import InputError
from pooling.run import Run
from pooling.systems import RetrievalOptions
from pooling.tokenize import CHINESE_SEGMENTERS, TokenizerConfig
from pooling.tokenize import LANGUAGES as LANGUAGES_TOKENIZE
from storage import accounts, catalog, imports, pool_records, slots
from storage.db import (
    DatabaseError,
    check_schema,
    current_revision,
    database_url,
    make_engine,
    session_scope,
    upgrade,
)

DEMO_CORPUS_VERSION = "demo-corpus-v1"
DEMO_QUERY_SET = "demo-queries-v1"
DEMO_CHUNK_SIZE, DEMO_CHUNK_OVERLAP = 300, 60
DEMO_POOL, DEMO_SYSTEMS, DEMO_DEPTH = "demo-pool", "bm25,vector,rrf", 5
# Demo accounts only: `qrels demo` prints these and says they are not for real work.
DEMO_ACCOUNTS = {
    "annotator1": ("annotator", "demo-annotator-1"),
    "annotator2": ("annotator", "demo-annotator-2"),
    "lead": ("lead", "demo-lead-pass"),
}


class QrelsError(click.ClickException):
    """An error for the user: printed as ``error: message`` in their language, exit code 1."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # Rendered now: by the time click shows it, a --lang given to this command is undone.
        self.line = t("located", where=t("error"), what=message)

    def show(self, file=None) -> None:
        click.echo(self.line, err=True)


class _Group(click.Group):
    """Turns the errors users cause into one clear line instead of a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (InputError, LookupError, DatabaseError, ValueError) as exc:
            raise QrelsError(str(exc)) from exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Database URL (default: $QRELS_DATABASE_URL, else sqlite:///qrels.db).",
)
@click.option("--lang", type=click.Choice(LANGUAGES), help="Language of messages (en or zh).")
@click.pass_context
def cli(ctx: click.Context, db_url: str | None, lang: str | None) -> None:
    """qrels-studio: build versioned, trustworthy relevance judgments for RAG retrieval."""
    if lang:
        previous = os.environ.get("QRELS_LANG")
        os.environ["QRELS_LANG"] = lang
        ctx.call_on_close(lambda: _restore_language(previous))
    ctx.obj = {"db": db_url}


def _restore_language(previous: str | None) -> None:
    # In one process (tests, notebooks) --lang applies to that command only.
    if previous is None:
        os.environ.pop("QRELS_LANG", None)
    else:
        os.environ["QRELS_LANG"] = previous


def _engine(ctx: click.Context, *, require_schema: bool = True):
    engine = make_engine(ctx.obj["db"])
    if require_schema:
        check_schema(engine)
    return engine


@cli.command()
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create the database schema, or upgrade it to this release (judgments are kept)."""
    engine = _engine(ctx, require_schema=False)
    head = upgrade(engine)
    click.echo(t("init_done", url=engine.url.render_as_string(hide_password=True), head=head))


# -- import -----------------------------------------------------------------------------


@cli.group("import")
def import_() -> None:
    """Import a corpus version, a query set, a run or judgments (each one transaction)."""


def _report(result: imports.ImportResult, message: str, kind: str | None = None) -> None:
    """Say what an import did; ``kind`` names the version for the no-op message
    (None for judgments, which have no version of their own)."""
    if result.created_user:
        click.echo(t("user_created", name=result.created_user))
    if result.created:
        counts = {k: _number(v) if isinstance(v, int) else v for k, v in result.counts.items()}
        click.echo(t(message, name=result.name, **counts))
    elif kind is None:
        click.echo(t("judgments_unchanged", name=result.name))
    else:
        click.echo(t("unchanged", kind=t(kind), name=result.name))


existing_file = click.Path(dir_okay=False, path_type=Path)


@import_.command("corpus")
@click.argument("file", type=existing_file)
@click.option("--corpus-version", required=True, help="Name of the new corpus version.")
@click.option("--chunk-size", type=click.IntRange(min=1), help="Split documents (characters).")
@click.option("--chunk-overlap", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--allow-empty", is_flag=True, help="Keep documents whose text is empty.")
@click.pass_context
def import_corpus(
    ctx: click.Context,
    file: Path,
    corpus_version: str,
    chunk_size: int | None,
    chunk_overlap: int,
    allow_empty: bool,
) -> None:
    """Import a BEIR corpus.jsonl (_id, title, text, optional doc_id/parent_id, metadata)."""
    with session_scope(_engine(ctx)) as session:
        result = imports.import_corpus(
            file,
            session=session,
            version=corpus_version,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            allow_empty=allow_empty,
        )
    _report(result, "imported_corpus", "kind_corpus_version")


@import_.command("queries")
@click.argument("file", type=existing_file)
@click.option("--query-set", required=True, help="Name of the new query set version.")
@click.option(
    "--default-split",
    type=click.Choice(["dev", "test"]),
    default="test",
    show_default=True,
    help="Split of queries whose line has none.",
)
@click.pass_context
def import_queries(ctx: click.Context, file: Path, query_set: str, default_split: str) -> None:
    """Import a BEIR queries.jsonl (_id, text, optional slices, split, answerable, notes)."""
    with session_scope(_engine(ctx)) as session:
        result = imports.import_queries(
            file, session=session, name=query_set, default_split=default_split
        )
    _report(result, "imported_queries", "kind_query_set")


version_options = [
    click.option("--query-set", help="Query set the file refers to (needed if several)."),
    click.option("--corpus-version", help="Corpus version the file refers to (needed if several)."),
]


def _with_versions(command):
    for option in reversed(version_options):
        command = option(command)
    return command


@import_.command("run")
@click.argument("file", type=existing_file)
@click.option("--system", required=True, help="Name of the system that produced the run.")
@_with_versions
@click.pass_context
def import_run(
    ctx: click.Context,
    file: Path,
    system: str,
    query_set: str | None,
    corpus_version: str | None,
) -> None:
    """Import a TREC run (qid Q0 docid rank score tag) as an external system."""
    with session_scope(_engine(ctx)) as session:
        result = imports.import_run(
            file,
            session=session,
            system=system,
            query_set=query_set,
            corpus_version=corpus_version,
        )
    _report(result, "imported_run", "kind_run")


@import_.command("judgments")
@click.argument("file", type=existing_file)
@click.option("--annotator", required=True, help="Whose judgments these are.")
@click.option(
    "--kind",
    type=click.Choice(["human", "model"]),
    default="human",
    show_default=True,
    help="model: an automatic judge, kept apart from human judgments.",
)
@click.option("--rubric-version", help="Rubric the grades were made under (default: current).")
@_with_versions
@click.pass_context
def import_judgments(
    ctx: click.Context,
    file: Path,
    annotator: str,
    kind: str,
    rubric_version: str | None,
    query_set: str | None,
    corpus_version: str | None,
) -> None:
    """Import judgments: TREC qrels, BEIR qrels TSV or JSONL, told from the content."""
    with session_scope(_engine(ctx)) as session:
        result = imports.import_judgments(
            file,
            session=session,
            annotator=annotator,
            kind=kind,
            rubric_version=rubric_version or current_version(),
            query_set=query_set,
            corpus_version=corpus_version,
        )
    _report(result, "imported_judgments")


# -- pools ------------------------------------------------------------------------------


@cli.group()
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
@click.option(
    "--strategy",
    type=click.Choice(["fixed", "active"]),
    default="fixed",
    show_default=True,
    help="active: choose what to judge next from the judgments so far (needs --budget).",
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
@click.option("--fusion", default="rrf", show_default=True, help="Fusion for --budget.")
@click.option("--overlap", type=int, default=2, show_default=True, help="Judgments per candidate.")
@_with_versions
@click.option(
    "--language",
    type=click.Choice(LANGUAGES_TOKENIZE),
    default="auto",
    show_default=True,
    help="Corpus language for tokenization (auto: detected).",
)
@click.option(
    "--chinese",
    type=click.Choice(CHINESE_SEGMENTERS),
    default="jieba",
    show_default=True,
    help="How to segment Chinese text.",
)
@click.option(
    "--encoder",
    default="tfidf-svd",
    show_default=True,
    help="Vector encoder: tfidf-svd (built in), st:MODEL_DIR, npy:EMBEDDINGS_DIR.",
)
@click.option("--vector-dim", type=click.IntRange(min=2), default=256, show_default=True)
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
    engine = _engine(ctx)
    retrieval = RetrievalOptions(
        tokenizer=TokenizerConfig(language=options["language"], chinese=options["chinese"]),
        encoder=options["encoder"],
        vector_dim=options["vector_dim"],
        depth=options["retrieval_depth"],
    )
    result = pool_building.build_pool(
        engine,
        name,
        systems=options["systems"],
        depth=options["depth"],
        budget=options["budget"],
        active=options["strategy"] == "active",
        reach=options["reach"],
        stop_below=options["stop_below"],
        fusion=options["fusion"],
        overlap=options["overlap"],
        query_set=options["query_set"],
        corpus_version=options["corpus_version"],
        options=retrieval,
        progress=True,
    )
    _echo_pool_built(result, options["overlap"])
    if options["strategy"] == "active":
        click.echo(t("active_built", budget=options["budget"]))


def _echo_pool_built(result: pool_records.PoolResult, overlap: int) -> None:
    added, queries = _number(result.added), _number(result.queries)
    click.echo(t("pool_built", name=result.name, added=added, queries=queries, overlap=overlap))


@pool.command("topup")
@click.argument("name")
@systems_option
@click.option("--depth", type=int, required=True, help="Each new system's top K per query.")
@click.pass_context
def pool_topup(ctx: click.Context, name: str, systems: str, depth: int) -> None:
    """Add new systems' candidates that are neither in the pool nor judged yet."""
    result = pool_building.topup_pool(
        _engine(ctx), name, systems=systems, depth=depth, progress=True
    )
    counts = {k: _number(v) for k, v in vars(result).items() if isinstance(v, int)}
    click.echo(t("pool_topped_up", name=result.name, **counts))


@pool.command("require")
@click.argument("name")
@click.argument("query_id")
@click.argument("chunk_id")
@click.option("--judgments", type=int, required=True, help="How many independent judgments.")
@click.pass_context
def pool_require(ctx: click.Context, name: str, query_id: str, chunk_id: str, judgments: int):
    """Ask for more (or fewer) judgments of one candidate than the pool's overlap."""
    with session_scope(_engine(ctx)) as session:
        pool_row = pool_records.get_pool(name, session=session)
        slots.require_judgments(pool_row, query_id, chunk_id, judgments, session=session)
    click.echo(f"{name}: {query_id} / {chunk_id} now needs {judgments} judgments")


@pool.command("show")
@click.argument("name")
@click.option("--per-query", is_flag=True, help="Also list the size of every query's pool.")
@click.pass_context
def pool_show(ctx: click.Context, name: str, per_query: bool) -> None:
    """Report size per query, and each system's unique contribution and overlap."""
    with session_scope(_engine(ctx)) as session:
        report = pool_records.pool_report(
            pool_records.get_pool(name, session=session), session=session
        )
    sizes = sorted(report.sizes.values())
    click.echo(
        f"{report.name}: {report.config.get('systems_spec', '')} "
        f"({report.config.get('strategy')} {report.config.get('size')}, "
        f"overlap {report.overlap})"
    )
    click.echo(
        t(
            "pool_show_sizes",
            candidates=_number(sum(sizes)),
            queries=_number(len(sizes)),
            low=sizes[0] if sizes else 0,
            median=f"{statistics.median(sizes):g}" if sizes else 0,
            high=sizes[-1] if sizes else 0,
            empty=sum(1 for n in sizes if n == 0),
        )
    )
    click.echo("\n" + t("pool_show_systems"))
    for system, found in report.found.items():
        click.echo(
            "  "
            + t(
                "pool_show_system",
                system=system,
                found=_number(found),
                unique=_number(report.unique[system]),
            )
        )
    if len(report.found) > 1:
        click.echo("\n" + t("pool_show_shared"))
        names = list(report.found)
        width = max(len(n) for n in names)
        click.echo(" " * (width + 2) + "  ".join(f"{n:>{max(len(n), 6)}}" for n in names))
        for a in names:
            cells = ["-" if a == b else str(report.shared[a][b]) for b in names]
            click.echo(
                f"  {a:<{width}}"
                + "  ".join(f"{c:>{max(len(n), 6)}}" for c, n in zip(cells, names, strict=True))
            )
    if per_query:
        click.echo("\n" + t("pool_show_per_query"))
        for query_id, size in report.sizes.items():
            click.echo(f"  {query_id}\t{size}")
    if active_pooling.is_active(report.config):
        _echo_active(report, active_pooling.pool_status(_engine(ctx), name), per_query)


def _echo_active(report: pool_records.PoolReport, status: list, per_query: bool) -> None:
    """Where an active pool's queries stand against the stopping rule."""
    settings = report.config["active"]
    stopped = Counter(s.state for s in status)
    click.echo(
        "\n"
        + t(
            "active_summary",
            budget=settings["budget"],
            below=f"{settings['stop_below']:g}",
            chosen=_number(sum(s.chosen for s in status)),
            judged=_number(sum(s.judged for s in status)),
            relevant=_number(sum(s.relevant for s in status)),
            open=stopped["open"],
            budget_spent=stopped["budget"],
            estimate=stopped["estimate"],
            exhausted=stopped["exhausted"],
        )
    )
    if per_query:
        click.echo(t("active_per_query"))
        for s in status:
            estimate = "-" if s.estimate is None else f"{s.estimate:.1f}"
            click.echo(
                f"  {s.query_id}\t{s.chosen}/{settings['budget']}\t{s.judged}\t{s.relevant}"
                f"\t{estimate}\t{t(f'active_{s.state}')}"
            )


@pool.command("export")
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def pool_export(ctx: click.Context, name: str, file: Path) -> None:
    """Write the pool's candidates with provenance as JSONL."""
    with session_scope(_engine(ctx)) as session:
        count = pool_records.export_pool(
            pool_records.get_pool(name, session=session), file, session=session
        )
    click.echo(t("pool_exported", count=_number(count), name=name, path=file))


# -- agreement and releases -------------------------------------------------------------


def _only_pool(ctx: click.Context, name: str | None) -> str:
    if name is not None:
        return name
    with session_scope(_engine(ctx)) as session:
        names = pool_records.pool_names(session=session)
    if len(names) != 1:
        raise ValueError(
            t(
                "version_ambiguous",
                kind=t("status_pools"),
                known=", ".join(names) or "-",
                option="--pool",
            )
        )
    return names[0]


def _figure(figure) -> str:
    if figure.value is None:
        return f"undefined ({figure.undefined})"
    interval = f" [{figure.low:.3f}, {figure.high:.3f}]" if figure.low is not None else ""
    return f"{figure.value:.3f}{interval}"


@cli.command("agreement")
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
def agreement_command(ctx, pool_name, by, as_json, rounds) -> None:
    """Cohen's kappa per pair of annotators and Krippendorff's alpha."""
    frame = agreement.judgments_frame(_engine(ctx), _only_pool(ctx, pool_name))
    parts = {"all": frame} if by is None else {"all": frame, **agreement.groups(frame, by)}
    reports = [agreement.report(part, name, rounds=rounds) for name, part in parts.items()]
    if as_json:
        click.echo(json.dumps(agreement.to_json(reports), ensure_ascii=False, indent=2))
        return
    for item in reports:
        click.echo(f"{item.group}: {item.items} items, annotators {', '.join(item.annotators)}")
        click.echo(f"  Krippendorff's alpha (ordinal): {_figure(item.alpha)}")
        for pair in item.pairs:
            kappas = ", ".join(f"{k} {_figure(v)}" for k, v in pair.kappas.items())
            click.echo(
                f"  {pair.annotators[0]} × {pair.annotators[1]}: {pair.shared} shared, "
                f"agreement {_figure(pair.percent)}; kappa {kappas}"
            )


@cli.group()
def release() -> None:
    """Create, verify and compare versioned qrels releases."""


@release.command("create")
@click.argument("version")
@click.option("--pool", "pool_name", required=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option(
    "--policy",
    type=click.Choice(list(adjudication.POLICIES)),
    default="threshold",
    show_default=True,
    help="When annotators disagree.",
)
@click.option("--allow-unresolved", is_flag=True, help="Leave unresolved candidates out.")
@click.pass_context
def release_create(ctx, version, pool_name, out, policy, allow_unresolved) -> None:
    """Write release VERSION of a pool into a new folder."""
    result = releases.create_release(
        _engine(ctx), version, pool_name, out, policy=policy, allow_unresolved=allow_unresolved
    )
    counts = result.manifest["counts"]
    click.echo(
        f"release {version}: {counts['judged_candidates']} graded candidates "
        f"({counts['per_grade']}), {counts['unresolved_left_out']} unresolved left out, "
        f"{counts['queries_without_evidence']} queries without a chunk graded 2+ -> {out}"
    )


@release.command("verify")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def release_verify(folder: Path) -> None:
    """Check every file's sha256 against the manifest, and the files' formats."""
    problems = releases.verify_release(folder)
    if problems:
        raise QrelsError("; ".join(problems))
    click.echo(f"{folder}: intact")


@release.command("diff")
@click.argument("a", type=click.Path(file_okay=False, path_type=Path))
@click.argument("b", type=click.Path(file_okay=False, path_type=Path))
@click.option("--run", type=click.Path(dir_okay=False, path_type=Path), help="A TREC run.")
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True)
def release_diff(a: Path, b: Path, run: Path | None, k: int) -> None:
    """Judgments added, removed and changed from release A to B (and a run's metrics)."""
    change = releases.diff_releases(a, b, run=run, k=k)
    click.echo(
        f"added {len(change.added)}, removed {len(change.removed)}, changed {len(change.changed)}"
    )
    for query_id, chunk_id, grade in change.added:
        click.echo(f"+ {query_id} {chunk_id} {grade}")
    for query_id, chunk_id, grade in change.removed:
        click.echo(f"- {query_id} {chunk_id} {grade}")
    for query_id, chunk_id, old, new in change.changed:
        click.echo(f"~ {query_id} {chunk_id} {old} -> {new}")
    for name, (before, after) in change.metrics.items():
        click.echo(f"{name}: {before:.4f} -> {after:.4f} ({after - before:+.4f})")


@cli.command("coverage")
@click.option(
    "--release", "release_dir", type=click.Path(file_okay=False, path_type=Path), required=True
)
@click.option("--run", "run_file", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option(
    "--k", "cutoffs", default="5,10,20", show_default=True, help="Cutoffs, comma-separated."
)
@click.option("--topup", "pool_name", help="Add the unjudged chunks in the top k to this pool.")
@click.pass_context
def coverage_command(ctx, release_dir: Path, run_file: Path, cutoffs: str, pool_name) -> None:
    """Judged@k of a run against a release, and the unjudged chunks in its top k."""
    ks = sorted({int(k) for k in cutoffs.split(",") if k.strip()})
    if not ks or ks[0] < 1:
        raise ValueError(t("size_positive", what="--k", value=cutoffs))
    run = Run.from_file(run_file)
    report = judged.coverage(releases.read_qrels(release_dir), run, ks)
    for k, value in report.overall.items():
        click.echo(f"Judged@{k}: {value:.3f}")
    for row in report.per_query.itertuples():
        click.echo(f"  {row.query_id}\tJudged@{row.k}\t{row.judged}/{row.retrieved}")
    click.echo(f"unjudged in the top {ks[-1]}: {len(report.unjudged)}")
    for query_id, chunk_id, rank, _ in report.unjudged:
        click.echo(f"  {query_id}\t{chunk_id}\trank {rank}")
    if pool_name:
        system = f"run:{run.name}"
        with session_scope(_engine(ctx)) as session:
            result = pool_records.topup_pool(
                pool_records.get_pool(pool_name, session=session),
                judged.topup_candidates(report, system),
                session=session,
                config={"systems_spec": system, "source": "coverage", "k": ks[-1]},
            )
        counts = {k: _number(v) for k, v in vars(result).items() if isinstance(v, int)}
        click.echo(t("pool_topped_up", name=result.name, **counts))


@cli.command("calibrate")
@click.option("--judge", required=True, help="The model judge's name (from import judgments).")
@click.option(
    "--release", "release_dir", type=click.Path(file_okay=False, path_type=Path), required=True
)
@click.option("--worst", type=click.IntRange(min=0), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def calibrate_command(ctx, judge: str, release_dir: Path, worst: int, as_json: bool) -> None:
    """An automatic judge against the adjudicated human grades of a release."""
    with session_scope(_engine(ctx)) as session:
        accounts.get_user(judge, session=session)
        labels = pd.DataFrame(
            catalog.labels_of(judge, session=session), columns=["query_id", "chunk_id", "grade"]
        )
    queries = [
        json.loads(line)
        for line in (release_dir / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    result = calibration.calibrate(
        judge,
        labels,
        releases.read_qrels(release_dir),
        {q["_id"]: q.get("slices", []) for q in queries},
        worst,
    )
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result), ensure_ascii=False, indent=2))
        return
    click.echo(f"{judge} against {release_dir}: {result.shared} shared candidates")
    for kind, figure in result.kappas.items():
        click.echo(f"  kappa {kind}: {_figure(figure)}")
    click.echo("  confusion (rows: humans 0-3, columns: judge 0-3):")
    for grade, row in enumerate(result.confusion):
        click.echo(f"    {grade}: {row}")
    for tag, figures in result.per_slice.items():
        click.echo(
            f"  slice {tag}: {figures['shared']} shared, quadratic kappa "
            f"{_figure(figures['quadratic'])}"
        )
    for row in result.differences:
        click.echo(
            f"  {row['query_id']}\t{row['chunk_id']}\thuman {row['human']}\tjudge {row['judge']}"
        )


# -- accounts and the app ------------------------------------------------------------


@cli.group()
def user() -> None:
    """Add, list and disable login accounts."""


def _read_password(password_file: Path | None) -> str:
    if password_file is None:
        return click.prompt(t("login_password"), hide_input=True, confirmation_prompt=True)
    lines = password_file.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0]:
        raise ValueError(t("password_file_empty", file=password_file))
    return lines[0]


@user.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(["annotator", "lead"]), required=True)
@click.option(
    "--password-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the password from the first line of this file instead of a prompt.",
)
@click.pass_context
def user_add(ctx: click.Context, name: str, role: str, password_file: Path | None) -> None:
    """Add a login account (the password is stored only as a salted scrypt hash)."""
    engine = _engine(ctx)
    password = _read_password(password_file)
    with session_scope(engine) as session:
        auth.add_user(name, role, password, session=session)
    click.echo(t("user_added", role=t(f"role_{role}"), name=name))


@user.command("list")
@click.pass_context
def user_list(ctx: click.Context) -> None:
    """List accounts: name, role, kind, and whether they can log in."""
    with session_scope(_engine(ctx)) as session:
        users = accounts.list_users(session=session)
    for account in users:
        state = "disabled" if account.disabled else "active"
        if account.password_hash is None:
            state = "no login"
        click.echo(f"{account.name}\t{account.role}\t{account.kind}\t{state}")


@user.command("disable")
@click.argument("name")
@click.pass_context
def user_disable(ctx: click.Context, name: str) -> None:
    """Stop NAME from logging in; their judgments stay."""
    with session_scope(_engine(ctx)) as session:
        accounts.disable_user(name, session=session)
    click.echo(t("user_disabled", name=name))


def _serve(url: str, port: int, host: str) -> None:
    app = Path(__file__).parent / "app.py"
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.port",
        str(port),
        "--server.address",
        host,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        # Annotators and leads use the app; Streamlit's own Deploy, Rerun and cache menu
        # items are for whoever develops it.
        "--client.toolbarMode",
        "viewer",
    ]
    click.echo(t("serving", url=f"http://{host}:{port}"))
    environment = {**os.environ, "QRELS_DATABASE_URL": url}
    # Become Streamlit rather than wait for it, so that stopping `qrels serve` (a signal to
    # this process) stops the app too instead of leaving it running.
    sys.stdout.flush()
    os.execve(sys.executable, command, environment)


@cli.command()
@click.option("--port", type=int, default=8501, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.pass_context
def serve(ctx: click.Context, port: int, host: str) -> None:
    """Start the annotation app on the configured database."""
    engine = _engine(ctx)
    _serve(engine.url.render_as_string(hide_password=False), port, host)


# -- status and demo --------------------------------------------------------------------


@cli.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """Print what the database holds: versions, counts, systems, pools, progress."""
    engine = _engine(ctx)
    with session_scope(engine) as session:
        summary = catalog.status(session=session)
    _print_status(summary, engine)


def _number(value: int) -> str:
    return f"{value:,}"


def _print_status(summary: catalog.Status, engine) -> None:
    url = engine.url.render_as_string(hide_password=True)
    click.echo(t("status_database", url=url, schema=current_revision(engine)))
    if not summary.corpus_versions and not summary.query_sets:
        click.echo(t("status_empty"))
        return
    none = "  " + t("status_none")
    click.echo("\n" + t("status_corpus_versions"))
    for cv in summary.corpus_versions:
        line = t(
            "status_corpus_line",
            name=cv.name,
            documents=_number(cv.documents),
            chunks=_number(cv.chunks),
            chunking=describe(cv.chunking),
        )
        click.echo(f"  {line}")
    if not summary.corpus_versions:
        click.echo(none)
    click.echo("\n" + t("status_query_sets"))
    for qs in summary.query_sets:
        line = t(
            "status_query_line",
            name=qs.name,
            queries=_number(qs.queries),
            dev=_number(qs.dev),
            test=_number(qs.test),
            unanswerable=_number(qs.unanswerable),
            judgments=_number(qs.judgments),
            judged=_number(qs.judged_queries),
        )
        click.echo(f"  {line}")
        if qs.slices:
            slices = ", ".join(f"{k} {v}" for k, v in qs.slices.items())
            click.echo("    " + t("status_slices", slices=slices))
        if qs.judgments_by_annotator:
            people = ", ".join(f"{k} {_number(v)}" for k, v in qs.judgments_by_annotator.items())
            click.echo("    " + t("status_by_annotator", people=people))
    if not summary.query_sets:
        click.echo(none)
    click.echo("\n" + t("status_systems"))
    for name, kind, entries in summary.systems:
        click.echo("  " + t("status_system_line", name=name, kind=kind, entries=_number(entries)))
    if not summary.systems:
        click.echo(none)
    click.echo("\n" + t("status_pools"))
    for pool in summary.pools:
        percent = f"{pool.complete / pool.candidates:.0%}" if pool.candidates else "-"
        line = t(
            "status_pool_line",
            name=pool.name,
            query_set=pool.query_set,
            corpus_version=pool.corpus_version,
            candidates=_number(pool.candidates),
            complete=_number(pool.complete),
            overlap=pool.overlap,
            percent=percent,
        )
        click.echo(f"  {line}")
    if not summary.pools:
        click.echo(none)
    click.echo(
        "\n"
        + t(
            "status_users",
            leads=summary.users.get("lead", 0),
            annotators=summary.users.get("annotator", 0),
        )
    )


@cli.command()
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("qrels-demo"),
    show_default=True,
    help="Folder of its own for the demo database.",
)
@click.option("--reset", is_flag=True, help="Delete the demo folder first and start afresh.")
@click.option("--no-serve", is_flag=True, help="Load the demo, but do not start the app.")
@click.option("--port", type=int, default=8501, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
def demo(folder: Path, reset: bool, no_serve: bool, port: int, host: str) -> None:
    """Load the bundled demo collection into a fresh SQLite database, build a pool, create
    demo accounts, and start the app."""
    if reset and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{(folder / 'qrels.db').resolve()}"
    engine = make_engine(url)
    upgrade(engine)
    data = files("annotator") / "demo"
    with session_scope(engine) as session:
        corpus = imports.import_corpus(
            Path(str(data / "corpus.jsonl")),
            session=session,
            version=DEMO_CORPUS_VERSION,
            chunk_size=DEMO_CHUNK_SIZE,
            chunk_overlap=DEMO_CHUNK_OVERLAP,
        )
        queries = imports.import_queries(
            Path(str(data / "queries.jsonl")), session=session, name=DEMO_QUERY_SET
        )
    _report(corpus, "imported_corpus", "kind_corpus_version")
    _report(queries, "imported_queries", "kind_query_set")
    with session_scope(engine) as session:
        has_pool = pool_records.find_pool(DEMO_POOL, session=session) is not None
    if not has_pool:
        result = pool_building.build_pool(engine, DEMO_POOL, systems=DEMO_SYSTEMS, depth=DEMO_DEPTH)
        _echo_pool_built(result, overlap=2)
    with session_scope(engine) as session:
        summary = catalog.status(session=session)
    click.echo("")
    _print_status(summary, engine)
    click.echo("\n" + t("demo_loaded", path=folder / "qrels.db"))
    click.echo(f"  export QRELS_DATABASE_URL={database_url(url)}")
    with session_scope(engine) as session:
        for name, (role, password) in DEMO_ACCOUNTS.items():
            if accounts.find_user(name, session=session) is None:
                auth.add_user(name, role, password, session=session)
    click.echo("\n" + t("demo_accounts"))
    for name, (role, password) in DEMO_ACCOUNTS.items():
        click.echo(f"  {name:<12} {t('role_' + role):<10} {password}")
    if not no_serve:
        _serve(url, port, host)


def main() -> None:
    """Entry point of the ``qrels`` console script."""
    cli(prog_name="qrels")


if __name__ == "__main__":
    sys.exit(main())
