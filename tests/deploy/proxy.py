"""deploy/ made runnable for tests: the nginx site of deploy/nginx rendered from its template
and run by the test user in a folder of its own (TLS with a certificate made for 127.0.0.1),
the systemd unit's command, and the PostgreSQL grants of deploy/postgres.

The tools come from Debian's packages (nginx, openssl, postgresql-client); where one is
missing the test skips, except in CI (``CI`` or ``QRELS_REQUIRE_BROWSER`` set), where it
fails, as the browser tests do without Chromium."""

from __future__ import annotations

import getpass
import os
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

import pytest

from tests.browser_support import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TEMPLATE = DEPLOY / "nginx" / "qrels-studio.conf.template"
NGINX_VALUES = DEPLOY / "nginx" / "qrels-studio.env"
UNIT = DEPLOY / "systemd" / "qrels-serve@.service"
LEAD_UNIT = DEPLOY / "systemd" / "qrels-serve-leads@.service"
GRANTS = DEPLOY / "postgres" / "app-role.sql"
ROUTE_COOKIE = "qrels_route"
_PLACEHOLDER = re.compile(r"\$\{(QRELS_[A-Z_]+)\}")
_LOG_LINE = re.compile(
    r'"(?P<request>[^"]*)" (?P<status>\d+) \d+ rt=\S+ upstream=(?P<upstream>.*) '
    r"route=(?P<route>\S+)$"
)


def tool(name: str, package: str) -> str:
    """The path of Debian's ``name`` (package ``package``); skips without it, fails in CI."""
    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin")
    if path is None:
        message = f"{name} not found (Debian package: {package})"
        if os.environ.get("CI") or os.environ.get("QRELS_REQUIRE_BROWSER"):
            pytest.fail(message + "; it is required in CI")
        pytest.skip(message)
    return path


def placeholders(text: str) -> set[str]:
    """The ``${QRELS_...}`` names a template asks for."""
    return set(_PLACEHOLDER.findall(text))


def nginx_values() -> dict[str, str]:
    """deploy/nginx/qrels-studio.env: the values the template is rendered with."""
    values = {}
    for line in NGINX_VALUES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split("=", 1)
            values[name] = " ".join(shlex.split(value))
    return values


def render(text: str, values: dict[str, str]) -> str:
    """``text`` with each ``${NAME}`` replaced, as ``envsubst`` with the names listed does;
    raises ``KeyError`` for a placeholder without a value (nginx's own ``$names`` stay)."""
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], text)


def unit_arguments(port: int, unit: Path = UNIT) -> list[str]:
    """What the systemd unit (the annotators', or ``unit``) runs after the ``qrels``
    program, for instance ``port``."""
    lines = [line for line in unit.read_text().splitlines() if line.startswith("ExecStart=")]
    program, *arguments = shlex.split(lines[0].removeprefix("ExecStart="))
    assert program.endswith("/qrels"), program
    return [argument.replace("%i", str(port)) for argument in arguments]


def grant_app_role(owner_url: str, role: str, schema: str) -> None:
    """Run deploy/postgres/app-role.sql with psql, as the owner at ``owner_url`` (a libpq
    URL), for ``role`` on ``schema``."""
    psql = tool("psql", "postgresql-client")
    subprocess.run(
        [psql, owner_url, "-q", "-v", "ON_ERROR_STOP=1", "-v", f"app_role={role}"]
        + ["-v", f"schema={schema}", "-f", str(GRANTS)],
        check=True,
        capture_output=True,
        timeout=60,
    )


@dataclass
class Proxy:
    """A running nginx of deploy/nginx: its https and http addresses and its access log."""

    address: str
    plain_address: str
    folder: Path

    def context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.folder / "cert.pem")

    def request(
        self, path: str, route: str | None = None, method: str = "GET", body: bytes | None = None
    ) -> tuple[int, Message]:
        """One request through the proxy (over TLS, the certificate checked), with the
        route cookie when given: its status and headers, redirects not followed."""
        address = self.address if path.startswith("/") else ""
        request = urllib.request.Request(address + path, data=body, method=method)
        if route is not None:
            request.add_header("Cookie", f"{ROUTE_COOKIE}={route}")
        opener = urllib.request.build_opener(
            urllib.request.HTTPSHandler(context=self.context()), _NoRedirect()
        )
        try:
            with opener.open(request, timeout=30) as response:
                return response.status, response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.headers

    def log(self) -> list[dict[str, str]]:
        """The access log, one dict per request: request, status, upstream, route."""
        path = self.folder / "qrels-studio.access.log"
        lines = path.read_text().splitlines() if path.exists() else []
        return [match.groupdict() for line in lines if (match := _LOG_LINE.search(line))]

    def upstreams(self, route: str, request: str = "", wait: float = 10) -> set[str]:
        """The app processes (host:port) that served requests with this route key (those
        starting with ``request``), waiting up to ``wait`` seconds for the first: nginx logs
        a request once it is over, a websocket when it closes."""
        deadline = time.monotonic() + wait
        while True:
            found = {
                entry["upstream"]
                for entry in self.log()
                if entry["route"] == route and entry["request"].startswith(request)
            }
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.1)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _certificate(folder: Path) -> None:
    openssl = tool("openssl", "openssl")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")]
        + ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=60,
    )


def _main_config(folder: Path) -> str:
    """What Debian's nginx.conf gives the site, for a server run by the test user in
    ``folder``: its own pid file, error log and temporary folders. (``user`` matters only
    when that is root: the workers then stay the test user too.)"""
    temporary = "".join(
        f"  {kind}_temp_path {folder / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"user {getpass.getuser()};\nworker_processes 1;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\nevents {{ worker_connections 512; }}\n"
        f"http {{\n{temporary}  include {folder / 'qrels-studio.conf'};\n}}\n"
    )


def lead_unit_arguments(port: int) -> list[str]:
    """What the leads' systemd unit runs after the ``qrels`` program, for instance ``port``."""
    return unit_arguments(port, LEAD_UNIT)


@contextmanager
def proxy(backends: list[str], folder: Path, leads: str | None = None) -> Iterator[Proxy]:
    """nginx with deploy/nginx's site in front of ``backends`` (``http://host:port``), the
    annotators' processes, and ``leads`` (else the last of ``backends``), the leads';
    listening on free ports of 127.0.0.1; stopped afterwards."""
    nginx = tool("nginx", "nginx")
    folder.mkdir()
    _certificate(folder)
    https, plain = free_port(), free_port()
    values = nginx_values()
    example = re.findall(r"server (\S+)", values["QRELS_APP_SERVERS"])
    assert len(example) == len(backends), example
    for address, backend in zip(example, backends, strict=True):
        values["QRELS_APP_SERVERS"] = values["QRELS_APP_SERVERS"].replace(
            f"server {address}", f"server {backend.removeprefix('http://')}"
        )
    (example_leads,) = re.findall(r"server (\S+)", values["QRELS_LEAD_SERVERS"])
    values["QRELS_LEAD_SERVERS"] = values["QRELS_LEAD_SERVERS"].replace(
        f"server {example_leads}", f"server {(leads or backends[-1]).removeprefix('http://')}"
    )
    values |= {
        "QRELS_SERVER_NAME": "127.0.0.1",
        "QRELS_HTTPS_LISTEN": f"127.0.0.1:{https}",
        "QRELS_HTTP_LISTEN": f"127.0.0.1:{plain}",
        "QRELS_TLS_CERT": str(folder / "cert.pem"),
        "QRELS_TLS_KEY": str(folder / "key.pem"),
        "QRELS_LOG_DIR": str(folder),
    }
    site = render(TEMPLATE.read_text(), values)
    (folder / "qrels-studio.conf").write_text(site)
    (folder / "nginx.conf").write_text(_main_config(folder))
    command = [nginx, "-p", str(folder), "-c", str(folder / "nginx.conf")]
    command += ["-e", str(folder / "error.log")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(
        [*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        _wait_for_port(https, process)
        yield Proxy(f"https://127.0.0.1:{https}", f"http://127.0.0.1:{plain}", folder)
    finally:
        process.terminate()
        process.wait(timeout=20)


def _wait_for_port(port: int, process: subprocess.Popen) -> None:
    for _ in range(100):
        if process.poll() is not None:
            pytest.fail(f"nginx stopped: {process.stderr.read().decode()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("nginx did not start listening")
