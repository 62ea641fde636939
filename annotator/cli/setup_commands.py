"""``qrels init``, ``status``, ``serve``, ``demo`` and ``user``: the database, the app and
the accounts."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

from annotator.cli.context import echo_lines, engine, folder, say
from annotator.cli.formatting import import_lines, status_lines
from annotator.cli.pool_formatting import pool_result_lines
from pooling.i18n import t

DEMO_CORPUS_VERSION = "demo-corpus-v1"
DEMO_QUERY_SET = "demo-queries-v1"
DEMO_CHUNK_SIZE, DEMO_CHUNK_OVERLAP = 300, 60
DEMO_POOL, DEMO_SYSTEMS, DEMO_DEPTH = "demo-pool", "bm25,vector,rrf", 5


@click.command()
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create the database schema, or upgrade it to this release (judgments are kept)."""
    from storage.db import upgrade

    made = engine(ctx, require_schema=False)
    head = upgrade(made)
    say("init_done", url=made.url.render_as_string(hide_password=True), head=head)


def _status(url: str | None) -> list[str]:
    # The driver's own connection, not an engine: SQLAlchemy alone takes longer to import
    # than the whole command may (issue 27). The schema is checked as every command's is.
    from storage.db import head_revision, read_connection, shown_url
    from storage.status import status as summarise

    with read_connection(url) as connection:
        summary = summarise(connection)
    return status_lines(summary, shown_url(url), head_revision())


@click.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """Print what the database holds: versions, counts, systems, pools, progress."""
    echo_lines(_status(ctx.obj["db"]))


def app_command(port: int, host: str) -> list[str]:
    """The command that serves the app (``qrels serve``; ``benchmarks/served_keys.py``
    runs the same in a process of its own)."""
    from pooling.settings import current

    app = Path(__file__).parents[1] / "app" / "shell.py"
    return [
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
        # qrels serve names the address to open; Streamlit's own banner named each app
        # process's inner port, behind the front, where a lead's pages are not routed.
        "--logger.hideWelcomeMessage",
        "true",
        # Nor its "Uvicorn server started on 127.0.0.1:PORT" for each app process: warnings
        # and errors still show (an incident's traceback is the app's own logger's).
        "--logger.level",
        "warning",
        # Annotators and leads use the app; Streamlit's own Deploy, Rerun and cache menu
        # items are for whoever develops it.
        "--client.toolbarMode",
        "viewer",
        # No traceback reaches a user: the app logs it with an incident id (ui.guarded),
        # and whatever escapes that shows Streamlit's message without details.
        "--client.showErrorDetails",
        "none",
        # The browser refuses a larger file before sending it (uploads.saved checks too).
        "--server.maxUploadSize",
        str(current().upload_limit_mb),
        # Off whatever a config file says: the agent API drives the app without a browser,
        # static serving publishes a folder; the app uses neither.
        "--server.enableAgentApi",
        "false",
        "--server.enableStaticServing",
        "false",
        # Streamlit collects every generation of garbage after each run of a page. One
        # process serves every session, and over the libraries' objects alone that is a
        # pause of some 130 ms holding the GIL, after every key of every annotator: the
        # keys of all the others wait. Python's own collector still runs, when
        # allocations call for it, over what ui.freeze_libraries left unfrozen
        # (docs/benchmarks.md, "Keys in the server's process").
        "--runner.postScriptGC",
        "false",
        # Streamlit watches the app's source files to rerun on a change, which is for whoever
        # develops it: at each session's first run, and whenever the imported modules
        # changed, it walks every imported module's paths again (0.13 s) on the event loop
        # that sends the pages, and each session polls the app's files in threads of its own
        # (docs/benchmarks.md, "Page times in a browser").
        "--server.fileWatcherType",
        "none",
    ]


def _taken(host: str, port: int) -> bool:
    """Whether something already listens on ``host:port`` (another ``qrels serve`` or
    ``demo``, say): Streamlit would fail there with a bare "address already in use"."""
    import socket

    try:
        family, *_, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.create_server(address, family=family):  # SO_REUSEADDR, as Streamlit's
            return False
    except OSError:
        return True


def check_port(host: str, port: int) -> None:
    """Refuse a port already in use, naming ``--port`` and the next free one."""
    from pooling.i18n import LocalizedError

    if not _taken(host, port):
        return
    free = next((p for p in range(port + 1, min(port + 100, 65536)) if not _taken(host, p)), None)
    raise LocalizedError("port_taken", host=host, port=port, free=free or port + 1)


def _serve(
    url: str,
    port: int,
    host: str,
    process: str | None = None,
    leads_niceness: int | None = None,
    **settings: str,
) -> None:
    """Run the app on ``url``: two processes behind the front (``annotator.cli.serving``),
    or with ``process`` that one alone; ``settings`` (by name, such as ``release_dir``) are
    the app's besides the ones this process chose. The app reads its settings as this
    command has them (--lang too), with this database."""
    from annotator.cli import serving

    say("serving", url=f"http://{host}:{port}")
    niceness = serving.LEADS_NICENESS if leads_niceness is None else leads_niceness
    if process is not None:
        serving.serve_one(app_command(port, host), url, process, niceness)
        return
    serving.serve_two(app_command, url, port, host, niceness, **settings)


@click.command()
@click.option("--port", type=int, default=8501, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option(
    "--process",
    type=click.Choice(["annotators", "leads"]),
    help="Run only this one app process on --port, for a proxy that routes leads by the "
    "qrels_process cookie itself (deploy/nginx). Without it, both run behind a front on "
    "--port.",
)
# The leads' process's nice value, for benchmarks/capacity.py (serving.LEADS_NICENESS).
@click.option("--leads-niceness", type=int, default=None, hidden=True)
@click.pass_context
def serve(
    ctx: click.Context, port: int, host: str, process: str | None, leads_niceness: int | None
) -> None:
    """Start the annotation app on the configured database: the annotators' and the leads'
    pages in two processes behind one port, so that a lead's pages never hold up a key."""
    check_port(host, port)
    url = engine(ctx).url.render_as_string(hide_password=False)
    _serve(url, port, host, process, leads_niceness)


@click.command()
@click.option(
    "--dir",
    "demo_dir",
    type=folder,
    default=Path("qrels-demo"),
    show_default=True,
    help="Folder of its own for the demo database.",
)
@click.option("--reset", is_flag=True, help="Delete the demo folder first and start afresh.")
@click.option("--no-serve", is_flag=True, help="Load the demo, but do not start the app.")
@click.option(
    "--empty",
    is_flag=True,
    help="Only the collection, the pool and the accounts: no campaign, nobody has graded.",
)
@click.option("--port", type=int, default=8501, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
def demo(demo_dir: Path, reset: bool, no_serve: bool, empty: bool, port: int, host: str) -> None:
    """Load the bundled demo collection into a fresh SQLite database, build a pool, create
    demo accounts, replay a campaign in progress on it (grades, decisions, a gold item, a
    release, two runs to evaluate), and start the app."""
    from importlib.resources import files

    from annotator.cli import demo_campaign
    from annotator.pools.pool_building import build_pool
    from storage import imports
    from storage.db import database_url, make_engine, session_scope, upgrade
    from storage.pool_records import find_pool

    if not no_serve:  # before the demo loads, not after
        check_port(host, port)
    if reset and demo_dir.exists():
        shutil.rmtree(demo_dir)
    demo_dir.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{(demo_dir / 'qrels.db').resolve()}"
    releases = (demo_dir / "releases").resolve()
    made = make_engine(url)
    upgrade(made)
    data = files("annotator") / "demo"
    with session_scope(made) as session:
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
        has_pool = find_pool(DEMO_POOL, session=session) is not None
    demo_campaign.add_accounts(made, empty=empty)
    echo_lines(import_lines(corpus, "imported_corpus", "kind_corpus_version"))
    echo_lines(import_lines(queries, "imported_queries", "kind_query_set"))
    if not has_pool:
        result = build_pool(made, DEMO_POOL, systems=DEMO_SYSTEMS, depth=DEMO_DEPTH)
        echo_lines(pool_result_lines(result, overlap=2))
    if not has_pool and not empty:
        done = demo_campaign.load_campaign(made, DEMO_POOL, demo_dir)
        judgments = sum(done.judged.values())
        echo_lines(
            [
                t(
                    "demo_campaign",
                    judgments=judgments,
                    annotators=len(done.judged),
                    left=2 * result.added - judgments,
                    decisions=done.decisions,
                    gold=done.gold,
                    release=done.release,
                ),
                t("demo_runs", runs=", ".join(str(path) for path in done.runs)),
            ]
        )
    echo_lines(["", *_status(url), "", t("demo_loaded", path=demo_dir / "qrels.db")])
    echo_lines(["", t("demo_use")])
    click.echo("  source .venv/bin/activate")
    click.echo(f"  export QRELS_DATABASE_URL={database_url(url)}")
    click.echo(f"  export QRELS_RELEASE_DIR={releases}")
    echo_lines(["", t("demo_accounts")])
    for name, (role, password) in demo_campaign.accounts(empty=empty).items():
        click.echo(f"  {name:<12} {t('role_' + role):<10} {password}")
    if not no_serve:
        _serve(url, port, host, release_dir=str(releases))  # the app finds the demo's release


# -- accounts ---------------------------------------------------------------------------


@click.group()
def user() -> None:
    """Add, list and disable login accounts, and change their passwords."""


def _read_password(password_file: Path | None) -> str:
    from pooling.i18n import LocalizedError

    if password_file is None:
        return click.prompt(t("login_password"), hide_input=True, confirmation_prompt=True)
    lines = password_file.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0]:
        raise LocalizedError("password_file_empty", file=password_file)
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
    from annotator.auth import add_user
    from storage.db import session_scope

    made = engine(ctx)
    password = _read_password(password_file)
    with session_scope(made) as session:
        add_user(name, role, password, session=session)
    say("user_added", role=t(f"role_{role}"), name=name)


@user.command("list")
@click.pass_context
def user_list(ctx: click.Context) -> None:
    """List accounts: name, role, kind, and whether they can log in."""
    from storage.accounts import list_users
    from storage.db import snapshot_scope

    with snapshot_scope(engine(ctx)) as session:
        users = list_users(session=session)
    for account in users:
        state = "disabled" if account.disabled else "active"
        if account.password_hash is None:
            state = "no login"
        click.echo(f"{account.name}\t{account.role}\t{account.kind}\t{state}")


@user.command("disable")
@click.argument("name")
@click.pass_context
def user_disable(ctx: click.Context, name: str) -> None:
    """Stop NAME from logging in and end their sessions; their judgments stay."""
    from storage.accounts import disable_user
    from storage.db import session_scope

    with session_scope(engine(ctx)) as session:
        disable_user(name, session=session)
    say("user_disabled", name=name)


@user.command("password")
@click.argument("name")
@click.option(
    "--password-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the password from the first line of this file instead of a prompt.",
)
@click.pass_context
def user_password(ctx: click.Context, name: str, password_file: Path | None) -> None:
    """Give NAME a new password; their sessions end (they log in again)."""
    from annotator.auth import set_password
    from storage.db import session_scope

    made = engine(ctx)
    password = _read_password(password_file)
    with session_scope(made) as session:
        set_password(name, password, session=session)
    say("user_password_set", name=name)


# -- a rubric of one's own ------------------------------------------------------------------


@click.group()
def rubric() -> None:
    """Write a rubric of your own (grades' words, examples from your collection)."""


@rubric.command("new")
@click.argument("folder", type=folder)
@click.option(
    "--version",
    "version",
    help="The rubric's version, recorded with every judgment made under it "
    "(default: today's date, YYYY-MM-DD).",
)
def rubric_new(folder: Path, version: str | None) -> None:
    """Write FOLDER/VERSION/en.md and zh.md from the template: the four grades' headings
    (keep their form), their words and examples to replace with your collection's. Serve
    and judge with QRELS_RUBRIC_DIR=FOLDER; the newest version there is in force."""
    from datetime import date

    from annotator.rubric import new_rubric

    version = version or date.today().isoformat()
    written = new_rubric(folder, version)
    say("rubric_written", files=", ".join(map(str, written)), version=version)
    click.echo(f"  export QRELS_RUBRIC_DIR={folder.resolve()}")


COMMANDS = [init, status, demo, serve, user, rubric]
