"""Issue 21, item 6, the deployment: the app's role could ``UPDATE alembic_version`` (after
which nothing starts), and the nginx site set only HSTS and passed every route through,
``/_stcore/metrics`` included. Here the app runs as deploy/postgres's role behind
deploy/nginx's site: the role cannot touch the schema's revision, every answer carries a
content security policy that the app works under (an annotator grades by keyboard, the
note key's inline script runs, a lead's charts draw, and the browser reports no violation),
``frame-ancestors`` and ``nosniff``, and the routes the app does not use are not passed on."""

from __future__ import annotations

import re
from contextlib import ExitStack

import pytest
from playwright.sync_api import expect
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from storage.db import make_engine
from tests.browser_support import log_in, passage, serving, wait_for_next_item
from tests.deploy.proxy import TEMPLATE, proxy, unit_arguments
from tests.deploy.test_two_processes import new_page, team_database  # noqa: F401

BLOCKED = [
    "/_stcore/metrics",
    "/_stcore/agent/openapi.json",
    "/_stcore/agent/interact",
    "/_stcore/script-health-check",
    "/auth/login",
    "/oauth2callback",
    "/app/static/x.png",
]


def policy() -> dict[str, str]:
    """The site's Content-Security-Policy, by directive."""
    (value,) = re.findall(r'add_header Content-Security-Policy "([^"]+)"', TEMPLATE.read_text())
    return {p.split()[0]: p.strip() for p in value.split(";") if p.strip()}


def test_the_policy_refuses_eval_and_every_other_host():
    directives = policy()
    assert directives["default-src"] == "default-src 'self'"
    # no eval; blob: for the keys' components.v2 module, which Streamlit imports from one
    assert directives["script-src"] == "script-src 'self' 'unsafe-inline' blob:"
    assert directives["img-src"] == "img-src 'self' data: blob:"  # no picture to elsewhere
    assert directives["connect-src"] == "connect-src 'self'"
    assert directives["object-src"] == "object-src 'none'"
    assert directives["frame-ancestors"] == "frame-ancestors 'self'"


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_the_app_works_behind_the_proxys_headers_and_guards(team_database, tmp_path, browser):  # noqa: F811
    owner_url, app_url = team_database
    app = make_engine(app_url)
    with app.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    for statement in (
        "UPDATE alembic_version SET version_num = 'x'",
        "DELETE FROM alembic_version",
        "INSERT INTO alembic_version VALUES ('x')",
        "TRUNCATE alembic_version",
    ):
        with app.connect() as connection, pytest.raises(ProgrammingError, match="permission"):
            connection.execute(text(statement))
    app.dispose()

    with ExitStack() as stack:
        backends = [stack.enter_context(serving(app_url, tmp_path, unit_arguments)) for _ in "ab"]
        front = stack.enter_context(proxy(backends, tmp_path / "nginx"))
        for path in ("/", "/_stcore/health", "/_stcore/host-config", "/nowhere", *BLOCKED):
            status, headers = front.request(path)
            assert "frame-ancestors 'self'" in headers["Content-Security-Policy"], path
            assert headers["X-Content-Type-Options"] == "nosniff", path
            assert headers["Strict-Transport-Security"], path
        for path in BLOCKED:
            assert front.request(path)[0] == 404, path
            assert front.request(path, method="POST", body=b"{}")[0] == 404, path
        assert not [
            e for e in front.log() if e["upstream"] != "-" and "stcore/metrics" in e["request"]
        ]

        page = new_page(browser, front)
        violations: list[str] = []
        page.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        log_in(page, front.address, "ann1")
        shown = passage(page)
        page.keyboard.press("n")  # the app's inline script moves the focus into the note
        # (a locator's check: a script of the test's own would be refused by the policy)
        expect(page.locator(".st-key-note textarea")).to_be_focused(timeout=10_000)
        page.keyboard.press("Escape")
        page.keyboard.press("2")
        wait_for_next_item(page, shown, timeout=30)
        assert passage(page) != shown or page.get_by_text("Nothing left for you").count()
        lead = new_page(browser, front)
        lead.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        log_in(lead, front.address, "boss")
        lead.get_by_role("link", name="Team progress").click()
        lead.locator(".vega-embed").first.wait_for(timeout=30_000)  # a chart, drawn
        lead.wait_for_timeout(1_000)
        assert violations == []
