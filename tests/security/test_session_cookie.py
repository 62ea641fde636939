"""Issue 36, item 6: the session cookie was host-wide. Over TLS it is now a ``__Host-``
cookie (Secure, Path=/, no Domain: no sibling host or plain-HTTP page can set or replace
it) and the plain name is cleared; over HTTP it keeps its plain name; either is read back,
so a reload keeps the session. The page's script is run in Node with a stand-in window."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from annotator.app.session_cookie import (
    COOKIE,
    HOST_COOKIE,
    cookie_script,
    cookie_session_id,
    other_port,
)

NODE = shutil.which("node")
STAND_IN = """
const written = [];
const window = {parent: {location: {protocol: %s}, document: {}}};
Object.defineProperty(window.parent.document, "cookie", {set: (v) => written.push(v)});
%s
console.log(JSON.stringify(written));
"""


def written(protocol: str, session_id: str | None) -> list[str]:
    body = cookie_script(session_id).removeprefix("<script>").removesuffix("</script>")
    script = STAND_IN % (json.dumps(protocol), body)
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's script")
def test_over_tls_the_cookie_is_a_host_cookie_and_the_plain_one_is_cleared():
    first, second = written("https:", "abc")
    assert first.startswith(f"{HOST_COOKIE}=abc; Max-Age=43200")
    assert "; Path=/" in first and "; SameSite=Strict" in first and "; Secure" in first
    assert "Domain" not in first
    assert second.startswith(f"{COOKIE}=; Max-Age=0")
    (plain,) = written("http:", "abc")
    assert plain.startswith(f"{COOKIE}=abc; Max-Age=43200") and "Secure" not in plain
    assert written("https:", None)[0].startswith(f"{HOST_COOKIE}=; Max-Age=0")


def test_either_cookie_brings_the_session_back_the_host_one_first():
    assert cookie_session_id({HOST_COOKIE: "tls", COOKIE: "planted"}) == "tls"
    assert cookie_session_id({COOKIE: "plain"}) == "plain"
    assert cookie_session_id({HOST_COOKIE: "", COOKIE: ""}) is None
    assert cookie_session_id({}) is None


@pytest.mark.parametrize(
    ("origin", "host", "other"),
    [
        ("http://localhost:8080", "localhost:8501", True),  # another app on the same host
        ("http://127.0.0.1:3000", "127.0.0.1:8501", True),
        ("https://qrels.example.org", "qrels.example.org:8443", True),
        ("http://localhost:8501", "localhost:8501", False),
        ("https://qrels.example.org", "qrels.example.org", False),
        ("https://qrels.example.org", "qrels.example.org:443", False),
        ("https://qrels.example.org", "127.0.0.1:8501", False),  # a proxy's Host: Streamlit's
        ("http://localhost:x", "localhost:8501", True),
    ],
)
def test_a_page_on_another_port_of_the_host_does_not_take_up_the_session(origin, host, other):
    assert other_port({"Origin": origin, "Host": host}) is other
    assert other_port({"Host": host}) is False  # no Origin: not a browser's page
