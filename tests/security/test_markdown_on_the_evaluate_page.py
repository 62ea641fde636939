"""Issue 21, item 4, in a real browser: a run id ``![e](http://host/leak)`` in an upload made
the lead's browser fetch the URL, through the Evaluate page's error text
(``st.error(message(error))``) and its headings that name runs (``st.subheader``). Here a
lead uploads runs whose name and ids are Markdown images pointing at a listener of the
test's own and at the app itself; no request for them may leave the page."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pooling.run import Run
from tests.annotator.evaluation.test_evaluation import BASE, BETTER
from tests.browser_support import recorded_release, serving

pytestmark = pytest.mark.browser


@contextmanager
def listener() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server that records every path asked of it; yields its port and them."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


def test_markdown_in_uploaded_runs_is_shown_as_text(database, browser, tmp_path):
    url, add_user = database
    add_user("boss", "lead")
    recorded_release(url, tmp_path)
    base, better = tmp_path / "base.trec", tmp_path / "better.trec"
    Run(BASE, "base").save(base)
    Run(BETTER, "better").save(better)
    with listener() as (port, hits), serving(url, tmp_path) as address:
        leak = f"![e](http://127.0.0.1:{port}/leak)"
        named = "![n](leak).trec"  # a file name holds no slash: an image on the app's host
        repeated = f"{leak} Q0 a#0 1 2.0 r\n{leak} Q0 a#1 1 1.0 r\n".encode()
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(address)
        page.get_by_label("User name").fill("boss")
        page.get_by_role("textbox", name="Password").fill("secret-password")
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("link", name="Evaluate").click(timeout=30_000)
        page.get_by_text("or upload run files (TREC, JSONL or CSV)").wait_for(timeout=30_000)
        upload = page.locator("input[type=file]")
        upload.set_input_files(
            [
                {"name": "base.trec", "mimeType": "text/plain", "buffer": base.read_bytes()},
                {"name": named, "mimeType": "text/plain", "buffer": better.read_bytes()},
            ]
        )
        page.get_by_text("Overall", exact=True).wait_for(timeout=60_000)
        page.locator(".stVegaLiteChart, .vega-embed").first.wait_for(timeout=30_000)
        page.wait_for_timeout(1_500)  # time for an image to be asked for, were it one
        # The heading over the scatter names the candidate run: shown as it is.
        heading = page.get_by_text("against ![n](leak) (y)").count()
        # A run the reader refuses: the error quotes the query id.
        upload.set_input_files([{"name": "bad.trec", "mimeType": "text/plain", "buffer": repeated}])
        page.get_by_text("rank repeated for query").wait_for(timeout=60_000)
        page.wait_for_timeout(1_500)
        error = page.get_by_text(f"rank repeated for query '{leak}'").count()
    assert hits == []
    assert [u for u in requests if "leak" in u] == []
    assert heading and error  # both were on the page, as text
