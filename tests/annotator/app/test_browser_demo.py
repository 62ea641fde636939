"""The first hour (issue 25) in headless Chromium: after the README's first command
(``qrels demo --no-serve``, then ``qrels serve``), with no grading done, the lead's Team
progress, Pools, Agreement and Adjudication pages each draw charts with data, and the
Evaluate page scores the demo's two runs as it opens, without an upload (the demo imported
them; the page offers a release's imported runs)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from annotator.cli import cli
from annotator.evaluation import evaluation
from annotator.evaluation.run_files import read_run_file
from tests.annotator.app.test_browser_charts import marks
from tests.browser_support import browser, serving  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser

# Each lead page, and the charts it must draw with data.
PAGES = {
    "Team progress": ("timeline", "completion", "throughput", "distribution", "drift"),
    "Pools": ("systems", "combinations"),
    "Agreement": ("alpha", "pairs", "confusion"),
    "Adjudication": ("statuses",),
}


def test_every_lead_page_shows_the_demo_campaign_before_anyone_grades(
    tmp_path,
    monkeypatch,
    browser,  # noqa: F811 (the fixture)
):
    monkeypatch.setenv("QRELS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QRELS_LANG", "en")
    loaded = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path), "--no-serve"])
    assert loaded.exit_code == 0, loaded.output
    url = f"sqlite:///{tmp_path / 'qrels.db'}"
    runs = [tmp_path / "runs" / "vector-16d.trec", tmp_path / "runs" / "bm25.trec"]
    release = evaluation.load_release(tmp_path / "releases" / "demo-v1")
    settings = evaluation.Settings.parse("recall@5,recall@20,hit@5,mrr@10,ndcg@10")
    expected = evaluation.evaluate(release, [read_run_file(r, name=r.stem) for r in runs], settings)

    # serving() gives the app QRELS_RELEASE_DIR=tmp_path/releases: where the demo wrote it.
    with serving(url, tmp_path) as address:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(address)
        page.get_by_label("User name").fill("lead")
        page.get_by_role("textbox", name="Password").fill("demo-lead-pass")
        page.get_by_role("button", name="Log in").click()
        for link, keys in PAGES.items():
            page.get_by_role("link", name=link).click(timeout=30_000)
            for key in keys:
                figure = page.locator(f".st-key-figure_{key}")
                figure.wait_for(timeout=60_000)
                figure.scroll_into_view_if_needed()
                assert marks(figure), f"{link}: chart {key} has no data"

        # No upload: the demo imported its two runs, which the page offers, all chosen.
        page.get_by_role("link", name="Evaluate").click()
        page.get_by_text("Overall", exact=True).wait_for(timeout=60_000)
        overall = page.locator(".stDataFrame").first
        overall.locator("td").first.wait_for(state="attached", timeout=30_000)
        figures = expected.summary[expected.summary["group"] == "all"]
        for _ in range(60):  # the grid draws its rows a moment after its first cell
            rows = [r.locator("td").all_text_contents() for r in overall.locator("tbody tr").all()]
            shown = {(row[0], row[2]): row for row in rows if row[1:2] == ["all"]}
            if len(shown) == len(figures):
                break
            page.wait_for_timeout(500)
    for run, metric, value in zip(figures["run"], figures["metric"], figures["value"], strict=True):
        assert (run, metric) in shown, (run, metric, sorted(shown))
        assert any(cell == f"{value:.4f}" or _close(cell, value) for cell in shown[(run, metric)])
    ndcg = figures.set_index(["run", "metric"])["value"]
    assert ndcg[("bm25", "ndcg@10")] > ndcg[("vector-16d", "ndcg@10")]


def _close(cell: str, value: float) -> bool:
    try:
        return abs(float(cell) - value) < 5e-4
    except ValueError:
        return False
