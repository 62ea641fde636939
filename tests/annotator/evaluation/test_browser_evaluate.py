"""The Evaluate page in a real browser (the harness of test_browser.py): a lead uploads two
runs, reads a per-slice figure from the table behind the chart, and downloads the report."""

from __future__ import annotations

import json
import zipfile

import pytest

from annotator.evaluation import evaluation
from pooling.metrics import DEFAULT_METRICS
from pooling.run import Run
from tests.annotator.evaluation.test_evaluation import BASE, BETTER, scored
from tests.browser_support import recorded_release, serving

pytestmark = pytest.mark.browser


def test_a_lead_evaluates_two_runs_and_downloads_the_report(database, browser, tmp_path):  # noqa: F811
    url, add_user = database
    add_user("boss", "lead")
    folder = recorded_release(url, tmp_path)
    files = [tmp_path / "base.trec", tmp_path / "better.trec"]
    for scores, path in zip((BASE, BETTER), files, strict=True):
        Run(scores, path.stem).save(path)
    release = evaluation.load_release(folder)
    expected = scored(release, BASE, BETTER, by="slice", metrics=DEFAULT_METRICS)
    with serving(url, tmp_path) as address:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(address)  # a lead with no pool yet: log in, then go to the page
        page.get_by_label("User name").fill("boss")
        page.get_by_role("textbox", name="Password").fill("secret-password")
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("link", name="Evaluate").click(timeout=30_000)
        page.get_by_text("or upload run files (TREC, JSONL or CSV)").wait_for(timeout=30_000)
        page.locator("input[type=file]").set_input_files([str(f) for f in files])
        page.get_by_text("Overall", exact=True).wait_for(timeout=60_000)

        page.get_by_text("Show the table").first.click()
        # Overall, comparisons, the per-slice table once the toggle is on, the regressions.
        page.locator(".stDataFrame").nth(3).wait_for(timeout=30_000)
        table = page.locator(".stDataFrame").nth(2)
        table.locator("td").first.wait_for(state="attached", timeout=20_000)
        rows = [r.locator("td").all_text_contents() for r in table.locator("tbody tr").all()]
        shown = {(r[0], r[1]): r for r in rows}
        # The first metric (recall@5) for the candidate on slice:en: q1 and q2.
        figure = expected.summary.set_index(["run", "group", "metric"])
        value = figure.loc[("better", "slice:en", "recall@5"), "value"]
        assert float(shown[("better", "slice:en")][3]) == pytest.approx(value, abs=1e-4)

        with page.expect_download() as download_info:
            page.get_by_role("button", name="Download the report (zip)").click()
        archive = tmp_path / "report.zip"
        download_info.value.save_as(archive)
    with zipfile.ZipFile(archive) as opened:
        names = sorted(opened.namelist())
        data = json.loads(opened.read("evaluation-v1/report.json"))
    assert names == [
        "evaluation-v1/per_query.csv",
        "evaluation-v1/report.json",
        "evaluation-v1/report.md",
    ]
    assert [r["name"] for r in data["runs"]] == ["base", "better"]
    assert data["queries"]["counted"] == 3
