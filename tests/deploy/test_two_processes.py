"""The team deployment of deploy/, run: two annotators' ``qrels serve`` processes and a
leads' one, started as the systemd units start them, on one PostgreSQL database as the app's
restricted role, behind nginx with the repository's site config (TLS, sticky sessions, the
websocket, a lead's connections to the leads' process); annotators grade by keyboard at the
same time on both processes and the lead, on the leads' process, sees all the work."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import time
import uuid
import zipfile
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlmodel import func, select

from storage import tallies
from storage.db import make_engine, session_scope
from storage.models import Assignment, Chunk, Judgment, PoolCandidate, User
from storage.pool_records import get_pool
from tests.browser_support import (
    choose,
    judgments,
    log_in,
    passage,
    press_until_saved,
    serving,
    wait_for_next_item,
)
from tests.conftest import run_qrels, write
from tests.deploy.proxy import (
    DEPLOY,
    LEAD_UNIT,
    ROUTE_COOKIE,
    TEMPLATE,
    UNIT,
    grant_app_role,
    lead_unit_arguments,
    nginx_values,
    placeholders,
    proxy,
    unit_arguments,
)
from tests.storage.test_imports import jsonl

QUERIES, PER_QUERY, OVERLAP = 3, 4, 2
ANNOTATORS = ["ann1", "ann2", "ann3", "ann4"]
VIEWPORT = {"width": 1400, "height": 1000}
TOPICS = ["brake pads", "tyre pressure", "battery care", "chain oil"]


def corpus() -> list[dict]:
    """Chunks whose texts tell them apart, so that a passage on screen names its chunk."""
    return [
        {"_id": f"c{q}{i}", "text": f"Passage {q}-{i} on {TOPICS[i]} for question {q}."}
        for q in range(QUERIES)
        for i in range(PER_QUERY)
    ]


def pressed(name: str, shown: str) -> int:
    """The grade ``name`` gives the passage ``shown``: varied, and known to the checks."""
    chunk = next(c for c in corpus() if c["text"] in shown)
    return (ANNOTATORS.index(name) + int(chunk["_id"][1:])) % 4


@pytest.fixture
def team_database(db_url, tmp_path, monkeypatch):
    """A PostgreSQL database with a pool of 12 candidates (overlap 2), four annotators and
    a lead, made by the tables' owner; and the URL of a role of the app's own, granted by
    deploy/postgres/app-role.sql and owning nothing."""
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    qrels = functools.partial(run_qrels, db_url)
    qrels("init")
    qrels("import", "corpus", write(tmp_path, "c.jsonl", jsonl(corpus())), "--corpus-version", "c")
    questions = [{"_id": f"q{q}", "text": f"question {q}"} for q in range(QUERIES)]
    qrels("import", "queries", write(tmp_path, "q.jsonl", jsonl(questions)), "--query-set", "q")
    run = "".join(
        f"q{q} Q0 c{q}{i} {i + 1} {10 - i} r\n" for q in range(QUERIES) for i in range(PER_QUERY)
    )
    qrels("import", "run", write(tmp_path, "r.trec", run), "--system", "r")
    qrels("pool", "build", "p", "--systems", "run:r", "--depth", PER_QUERY)
    password = write(tmp_path, "password.txt", "secret-password\n")
    for name in ANNOTATORS:
        qrels("user", "add", name, "--role", "annotator", "--password-file", password)
    qrels("user", "add", "boss", "--role", "lead", "--password-file", password)

    owner = make_engine(db_url)
    with owner.connect() as connection:
        schema = connection.execute(text("SELECT current_schema()")).scalar_one()
        may = "SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
        if not connection.execute(text(may)).scalar_one():
            pytest.skip("the test's PostgreSQL user may not create roles")
    role = f"qrels_app_{uuid.uuid4().hex[:10]}"
    with owner.connect() as connection:
        connection.execute(text(f'CREATE ROLE "{role}" LOGIN'))
        connection.commit()
    try:
        libpq = make_url(db_url).set(drivername="postgresql")
        grant_app_role(libpq.render_as_string(hide_password=False), role, schema)
        yield db_url, libpq.set(username=role).render_as_string(hide_password=False)
    finally:
        with owner.connect() as connection:
            connection.execute(text(f'DROP OWNED BY "{role}"'))
            connection.execute(text(f'DROP ROLE "{role}"'))
            connection.commit()
        owner.dispose()


def routes_to(front, backends: list[str], each: int) -> dict[str, list[str]]:
    """Route keys that the proxy sends to each backend, ``each`` of them per backend, found
    by asking it (nginx's consistent hash depends on the backends' addresses)."""
    found: dict[str, list[str]] = {b.removeprefix("http://"): [] for b in backends}
    for number in range(200):
        route = f"route-{number}"
        status, headers = front.request("/_stcore/health", route)
        assert status == 200  # and the proxy leaves a browser's key as it is:
        assert not [c for c in headers.get_all("Set-Cookie", []) if ROUTE_COOKIE in c]
        (upstream,) = front.upstreams(route)
        if len(found[upstream]) < each:
            found[upstream].append(route)
        if all(len(routes) == each for routes in found.values()):
            return found
    raise AssertionError(f"the proxy sent 200 keys to one backend only: {found}")


def new_page(browser, front, route: str | None = None):
    """A page in a browser context of its own (cookies and all) on the proxy's site; with
    ``route``, the context holds that route key from the start."""
    context = browser.new_context(ignore_https_errors=True, viewport=VIEWPORT)
    if route is not None:
        context.add_cookies([{"name": ROUTE_COOKIE, "value": route, "url": front.address}])
    return context.new_page()


def grade_together(pages: dict[str, object], url: str) -> dict[tuple[str, str], int]:
    """Every annotator presses a grade key on the passage in front of them, all at once,
    round after round until nobody has anything left; returns the grades pressed by
    (annotator, passage). A key that the page dropped while redrawing is pressed again."""
    grades: dict[tuple[str, str], int] = {}
    working = dict(pages)
    while working:
        counts, shown = {}, {}
        for name, page in list(working.items()):
            if page.get_by_text("Nothing left for you").count():
                del working[name]
                continue
            counts[name], shown[name] = len(judgments(url, name)), passage(page)
            grades[name, shown[name]] = pressed(name, shown[name])
            page.keyboard.press(str(grades[name, shown[name]]))
        for name in shown:
            for _ in range(4):
                deadline = time.monotonic() + 8
                while time.monotonic() < deadline and len(judgments(url, name)) == counts[name]:
                    time.sleep(0.2)
                if len(judgments(url, name)) > counts[name]:
                    break
                if passage(pages[name]) == shown[name]:
                    pages[name].keyboard.press(str(grades[name, shown[name]]))
            else:
                raise AssertionError(f"{name}'s grade on {shown[name]!r} was never saved")
            wait_for_next_item(pages[name], shown[name])
    return grades


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_two_app_processes_behind_the_proxy_on_one_postgresql(team_database, tmp_path, browser):
    owner_url, app_url = team_database
    with ExitStack() as stack:
        backends = [stack.enter_context(serving(app_url, tmp_path, unit_arguments)) for _ in "ab"]
        leads = stack.enter_context(serving(app_url, tmp_path, lead_unit_arguments))
        front = stack.enter_context(proxy(backends, tmp_path / "nginx", leads))
        status, headers = front.request(front.plain_address + "/label")
        assert status == 301 and headers["Location"].startswith("https://")

        # Two annotators on each process (route keys chosen to land there), grading at once.
        routes = routes_to(front, backends, each=2)
        placed = dict(zip(ANNOTATORS, [r for pair in routes.values() for r in pair], strict=True))
        pages = {}
        for name, route in placed.items():
            pages[name] = new_page(browser, front, route)
            log_in(pages[name], front.address, name)
        grades = grade_together(pages, owner_url)

        # The lead comes without a key: the proxy gives one. After the login (on an
        # annotators' process) the page reloads into the leads' process, which shows all the
        # work, makes a release and serves its download, and takes an upload larger than
        # nginx's default limit (1 MB) into the lead's own session.
        lead = new_page(browser, front)
        log_in(lead, front.address, "boss")
        (cookie,) = [c for c in lead.context.cookies() if c["name"] == ROUTE_COOKIE]
        assert cookie["secure"] and cookie["httpOnly"] and len(cookie["value"]) == 32
        lead.get_by_role("link", name="Team progress").click()
        done = f"{QUERIES * PER_QUERY} of {QUERIES * PER_QUERY} candidates have their 2 judgments"
        lead.get_by_text(done).wait_for(timeout=30_000)
        lead.get_by_role("link", name="Releases").click()
        lead.get_by_label("Release version").fill("v1")
        lead.get_by_text("Leave unresolved candidates out").click()
        lead.get_by_role("button", name="Create release").click()
        lead.get_by_text("Release v1 written to").wait_for(timeout=30_000)
        with lead.expect_download() as download:
            lead.get_by_role("button", name="Download v1 (zip)").click()
        assert zipfile.is_zipfile(download.value.path())
        choose(lead, "Release", "v1")  # the release just made
        run = write(tmp_path, "big.trec", "q0 Q0 c00 1 2 r\nq0 Q0 c01 2 1 r\n" + "\n" * 2**21)
        lead.locator("input[type=file]").set_input_files(str(run))
        lead.get_by_text("unjudged chunks in the top 20").wait_for(timeout=30_000)

        for page in [*pages.values(), lead]:
            page.context.close()
        # Each browser stayed on one process, its websocket included (nginx logs one when it
        # closes); the annotators worked on both, so the lead's process showed the other's.
        stream = "GET /_stcore/stream "
        for name, route in placed.items():
            assert front.upstreams(route, stream) == {upstream_of(routes, route)}, name
            assert front.upstreams(route) == {upstream_of(routes, route)}, name
        # The lead's login form was on the annotators' process their key hashes to; from
        # the reload on, everything went to the leads' (the download and the upload too).
        # The login form's websocket closed at the reload, the leads' one only as the page
        # closed just now: nginx may not have logged that one yet.
        on_leads, deadline = {leads.removeprefix("http://")}, time.monotonic() + 15
        while not on_leads < (lead_streams := front.upstreams(cookie["value"], stream)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert on_leads < lead_streams and len(lead_streams - on_leads) == 1
        assert lead_streams - on_leads <= set(routes)
        for request in ("GET /media/", "PUT /_stcore/upload_file"):
            assert front.upstreams(cookie["value"], request) == on_leads, request
        assert {e["status"] for e in front.log() if e["request"].startswith(stream)} == {"101"}

        # A flood from one address is refused by the rate limit; static files are not counted.
        asset = next(e for e in front.log() if e["request"].startswith("GET /static/js/"))
        flood = [front.request("/_stcore/health")[0] for _ in range(150)]
        assert flood[0] == 200 and 429 in flood
        assert {front.request(asset["request"].split()[1])[0] for _ in range(150)} == {200}

    # In the database: every candidate judged by exactly its overlap of annotators, nobody
    # twice, every grade the key pressed, and the maintained tallies equal to a recount.
    with session_scope(make_engine(owner_url)) as session:
        rows = session.exec(
            select(User.name, Chunk.text, Judgment.grade)
            .join(User, User.id == Judgment.user_id)
            .join(Chunk, Chunk.id == Judgment.chunk_id)
        ).all()
        slots = session.exec(
            select(func.count()).select_from(Assignment).where(Assignment.slot.is_not(None))
        ).one()
        pool = get_pool("p", session=session)
        assert tallies.kept(pool, session=session) == tallies.recount(pool, session=session)
        candidates = session.exec(select(func.count()).select_from(PoolCandidate)).one()
    assert candidates == QUERIES * PER_QUERY and slots == candidates * OVERLAP
    assert len(rows) == len({(name, chunk) for name, chunk, _ in rows}) == candidates * OVERLAP
    for chunk in corpus():
        assert sum(text == chunk["text"] for _, text, _ in rows) == OVERLAP
    assert {(name, chunk): grade for name, chunk, grade in rows} == {
        (name, next(c["text"] for c in corpus() if c["text"] in shown)): grade
        for (name, shown), grade in grades.items()
    }
    assert all(judgments(owner_url, name) for name in ANNOTATORS)


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_when_a_process_stops_its_annotators_go_on_on_another_and_find_their_item(
    team_database, tmp_path, browser
):
    """A process keeps nothing of its own: when it stops, the proxy sends its browsers to
    another process, where the annotator is still logged in (the session lives in the
    database, issue 20) and finds the item they held."""
    owner_url, app_url = team_database
    with ExitStack() as second:
        stopping = second.enter_context(serving(app_url, tmp_path, unit_arguments))
        with (
            serving(app_url, tmp_path, unit_arguments) as staying,
            proxy([staying, stopping], tmp_path / "nginx") as front,
        ):
            routes = routes_to(front, [staying, stopping], each=1)
            (route,) = routes[stopping.removeprefix("http://")]
            page = new_page(browser, front, route)
            log_in(page, front.address, "ann1")
            first = passage(page)
            press_until_saved(page, owner_url, "ann1", str(pressed("ann1", first)))
            held = passage(page)  # taken when the page moved on: ann1 holds it now

            second.close()  # the process serving ann1 stops
            page.goto(front.address)
            page.locator(".st-key-passage").wait_for(timeout=30_000)
            assert page.get_by_label("User name").count() == 0  # no second login
            assert passage(page) == held
            press_until_saved(page, owner_url, "ann1", str(pressed("ann1", held)))
            page.context.close()
            upstreams = front.upstreams(route)
    assert [grade for _, grade, _, _ in judgments(owner_url, "ann1")] == [
        pressed("ann1", first),
        pressed("ann1", held),
    ]
    # Until it stopped, one process served the browser; then the other (the proxy tries
    # the stopped one first, still sticking to the key).
    here, there = staying.removeprefix("http://"), stopping.removeprefix("http://")
    assert there in upstreams and f"{there}, {here}" in upstreams


def upstream_of(routes: dict[str, list[str]], route: str) -> str:
    return next(upstream for upstream, keys in routes.items() if route in keys)


# -- the pieces of deploy/ that cannot run here --------------------------------------------


def test_the_compose_file_gives_the_proxy_every_value_its_template_asks_for():
    """Docker cannot run on this machine: what can be checked is that the compose file
    fills in every placeholder of the nginx template, lists each app service as a server
    with the parameters qrels-studio.env gives its servers, and that deploy/README.md's
    envsubst line names every placeholder."""
    compose = yaml.safe_load((DEPLOY / "compose" / "compose.yaml").read_text())
    values = compose["services"]["proxy"]["environment"]
    asked = placeholders(TEMPLATE.read_text())
    assert asked <= set(values) and asked == set(nginx_values())
    for kind, listed in (("annotators", "QRELS_APP_SERVERS"), ("leads", "QRELS_LEAD_SERVERS")):
        apps = [
            n
            for n, s in compose["services"].items()
            if "serve" in s.get("command", []) and s["command"][-2:] == ["--process", kind]
        ]
        assert len(apps) >= (2 if kind == "annotators" else 1)
        servers = dict(re.findall(r"server (\S+)([^;]*);", values[listed]))
        assert set(servers) == {f"{name}:8501" for name in apps}
        example = set(re.findall(r"server \S+([^;]*);", nginx_values()[listed]))
        assert set(servers.values()) == example == {" max_fails=0"}
    readme = (DEPLOY / "README.md").read_text()
    assert all(f"${{{name}}}" in readme for name in asked)


@pytest.mark.parametrize("unit_file", [UNIT, LEAD_UNIT], ids=["annotators", "leads"])
def test_systemd_finds_nothing_wrong_with_the_units(tmp_path, unit_file):
    """``systemd-analyze verify`` on each unit, its program pointed at this installation."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze not found (Debian package: systemd)")
    program = unit_file.read_text().split("ExecStart=")[1].split()[0]
    unit = tmp_path / unit_file.name
    here = str(Path(sys.executable).parent / "qrels")
    unit.write_text(unit_file.read_text().replace(program, here))
    instance = tmp_path / unit_file.name.replace("@", "@8501")
    result = subprocess.run(
        [analyze, "verify", "--man=no", str(instance)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and not (result.stdout + result.stderr).strip(), result
