"""The lead's charts in headless Chromium (the harness of ``test_browser``): every chart
of every lead page is drawn (an SVG with data marks, whose labels carry the numbers the
plain module computes), and its table toggle shows that module's frame."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pandas as pd
import pytest

from annotator.app import page_messages  # noqa: F401 (registers the tables' column titles)
from annotator.labeling import assignment
from annotator.pools.pool_building import build_pool
from annotator.pools.pool_figures import active_queries, pool_figures
from annotator.quality import agreement, gold, pool_quality
from annotator.quality.progress import team_figures
from annotator.releases import releases
from pooling.i18n import t
from storage.accounts import get_user
from storage.db import session_scope
from storage.pool_records import get_pool, pool_candidates
from tests.browser_support import browser, log_in, serving  # noqa: F401 (a fixture)
from tests.conftest import run_qrels, write

pytestmark = pytest.mark.browser

ACTIVE_BUDGET = 3
# The rows of the grid's table in view, read at once (the grid redraws them as it scrolls).
READ_ROWS = """rows => rows.map(row => [
    row.getAttribute("aria-rowindex"), Array.from(row.cells).map(cell => cell.textContent)])"""


@pytest.fixture
def lead_server(worked, demo_url, tmp_path, clock):
    """The worked demo database with a release, an active pool annotator1 has begun, a
    lead ``boss`` (the harness's password), gold items annotator3 was checked on, and the
    app serving it."""
    password = write(tmp_path, "password.txt", "secret-password\n")
    run_qrels(demo_url, "user", "add", "boss", "--role", "lead", "--password-file", password)
    folder = tmp_path / "releases" / "v1"
    releases.create_release(worked, "v1", "demo-pool", folder.parent, allow_unresolved=True)
    build_pool(worked, "active", systems="bm25", budget=ACTIVE_BUDGET, active=True)
    with session_scope(worked) as session:
        uid = get_user("annotator1", session=session).id
    for grade in (3, 0):
        item = assignment.next_item(worked, "active", uid)
        assignment.submit(worked, item, uid, grade=grade)
    # Gold: four candidates nobody judged, decided 0-3 by the lead; one item in two is gold
    # for annotator3, who grades everything 1 (eight items at least, the four gold among them).
    table, _, _ = pool_quality.pool_table(worked, "demo-pool", "threshold")
    judged = set(zip(table["query_id"], table["chunk_id"], strict=True))
    with session_scope(worked) as session:
        lead = get_user("boss", session=session).id
        candidates = pool_candidates(get_pool("demo-pool", session=session), session=session)
    unjudged = [
        (c.query_id, c.chunk_id) for c in candidates if (c.query_id, c.chunk_id) not in judged
    ]
    unjudged = unjudged[-4:]  # the last query's: not where annotator3 starts
    for grade, key in enumerate(unjudged):
        pool_quality.record_decision(worked, "demo-pool", key, grade, "read it", lead, "threshold")
    gold.add_from_adjudications(worked, "demo-pool", unjudged, by=lead)
    gold.configure(worked, "demo-pool", rate=2)
    add = ["user", "add", "annotator3", "--role", "annotator", "--password-file", password]
    run_qrels(demo_url, *add)
    with session_scope(worked) as session:
        uid = get_user("annotator3", session=session).id
    clock.now = datetime.now(UTC)  # checks are judgments made after the item became gold
    checks = judged = 0  # gold items come in their query as any other item: work to all four
    while checks < 4 or judged < 8:
        item = assignment.next_item(worked, "demo-pool", uid)
        assignment.submit(worked, item, uid, grade=1)
        checks, judged = checks + ((item.query_id, item.chunk_id) in unjudged), judged + 1
    with serving(demo_url, tmp_path) as address:
        yield address, worked


def as_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The names the page translates, as an English page shows them."""
    names = {
        "annotator": lambda a: t("team_label", "en") if pd.isna(a) else a,
        "grade": lambda g: t("label_unsure", "en") if g == "unsure" else g,
        "state": lambda s: t(f"active_{s}", "en"),
    }
    return frame.assign(**{c: frame[c].map(f) for c, f in names.items() if c in frame})


def marks(figure) -> list[dict[str, str]]:
    """What each data mark of the chart says it shows: Vega labels every mark with its
    fields (``title: value; ...``)."""
    figure.locator("svg").first.wait_for(timeout=60_000)
    drawn = figure.locator("svg [aria-roledescription]:not(g)")
    drawn.first.wait_for(state="attached", timeout=30_000)  # a bar of 0 has no height
    labels = [label for label in drawn.evaluate_all("es => es.map(e => e.ariaLabel)") if label]
    return [dict(part.split(": ", 1) for part in label.split("; ")) for label in labels]


def table(page, figure) -> pd.DataFrame:
    """The table behind the chart's toggle, every row of it (the grid holds in the page
    only the rows in view: scroll through it)."""
    figure.get_by_text("Show the table behind this chart").click()
    grid = figure.locator(".stDataFrame")
    grid.locator("td").first.wait_for(state="attached", timeout=60_000)  # drawn on a canvas
    total = int(grid.locator("table").first.get_attribute("aria-rowcount")) - 1
    header = grid.locator("th").all_text_contents()
    rows: dict[int, list[str]] = {}
    for _ in range(100):
        for index, cells in grid.locator("tbody tr").evaluate_all(READ_ROWS):
            rows[int(index)] = cells
        if len(rows) == total:
            break
        grid.locator(".dvn-scroller").evaluate("e => e.scrollBy(0, e.clientHeight - 40)")
        page.wait_for_timeout(150)
    return pd.DataFrame([rows[i] for i in sorted(rows)], columns=header)


def equal(cell: str, value) -> bool:
    """A cell of the grid shows ``value`` (missing values as an empty cell)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return cell in ("", "None", "<NA>", "NaN")
    if isinstance(value, pd.Timestamp):  # shown to the second
        return pd.Timestamp(cell) == value.floor("s")
    if isinstance(value, bool):
        return cell.lower() == str(value).lower()
    if isinstance(value, int | float):
        return math.isclose(float(cell), float(value), rel_tol=1e-9)
    return cell == str(value)


def check(page, key: str, frame: pd.DataFrame, drawn: dict[str, list[str]]) -> None:
    """Chart ``key`` is drawn with marks, and for each ``drawn`` title -> columns, the
    values its marks carry under that title are those of the columns; its table shows
    ``frame`` as it is."""
    figure = page.locator(f".st-key-figure_{key}")
    figure.scroll_into_view_if_needed()
    shown = as_shown(frame)
    labels = marks(figure)
    assert labels, f"{key}: no data marks drawn"
    for title, columns in drawn.items():
        carried = {float(m[title]) for m in labels if title in m}
        expected = {float(v) for column in columns for v in shown[column].dropna()}
        assert len(carried) == len(expected), (key, title, carried, expected)
        for value in expected:
            # Tooltips, which the labels follow, show three decimals.
            assert any(math.isclose(value, c, abs_tol=5e-4) for c in carried), (key, value)
    assert_table(table(page, figure), frame, key)


def assert_table(grid: pd.DataFrame, frame: pd.DataFrame, key: str) -> None:
    """The grid shows ``frame``: its columns titled, every row, every value."""
    shown = as_shown(frame)
    assert list(grid.columns) == [t(f"col_{c}", "en") for c in frame.columns], key
    assert len(grid) == len(shown), key
    for i, column in enumerate(shown.columns):
        cells, values = grid.iloc[:, i].tolist(), shown[column].tolist()
        wrong = [(c, v) for c, v in zip(cells, values, strict=True) if not equal(c, v)]
        assert not wrong, (key, column, wrong)


def choose_pool(page, name: str) -> None:
    """Choose pool ``name`` in the sidebar."""
    page.locator(".st-key-pool input").click()
    page.get_by_role("option", name=name, exact=True).click()


def test_every_lead_chart_is_drawn_and_its_table_shows_what_the_module_computes(
    lead_server,
    browser,  # noqa: F811 (the fixture)
):
    address, engine = lead_server
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    log_in(page, address, "boss")

    page.get_by_role("link", name="Team progress").click()
    figures = team_figures(engine, "demo-pool")
    judged = figures.table["judged"].tolist()
    assert figures.summary.complete == 5 and judged[:2] == [5, 5] and judged[2] >= 8
    done = figures.completion[~figures.completion["projected"]]  # the projection moves on
    check(page, "timeline", figures.timeline, {"judged": ["judged"]})
    check(page, "throughput", figures.table, {"items per hour worked": ["per_hour"]})
    check(page, "distribution", figures.distribution, {"count": ["count"]})
    check(page, "drift", figures.drift, {"mean grade": ["mean_grade"]})
    # Completion: the projection starts from the moment the page is drawn.
    figure = page.locator(".st-key-figure_completion")
    drawn = {float(m["complete"]) for m in marks(figure) if "complete" in m}
    assert drawn >= set(done["complete"].astype(float))
    assert_table(table(page, figure).iloc[: len(done)], done, "completion")

    standings = gold.team_gold(engine, "demo-pool").standings
    assert standings["annotator"].tolist() == ["annotator3"] and standings["seen"][0] == 4
    check(page, "gold", standings, {"kappa vs gold": ["kappa"]})

    page.get_by_role("link", name="Pools").click()
    pools = pool_figures(engine, "demo-pool")
    check(page, "systems", pools.systems, {"candidates": ["found", "unique"]})
    check(page, "combinations", pools.combinations, {"candidates": ["candidates"]})
    choose_pool(page, "active")
    page.get_by_text("Active pooling: where each query stands").wait_for(timeout=60_000)
    status = active_queries(engine, "active")
    assert status["chosen"].str.endswith(f"/{ACTIVE_BUDGET}").all()
    assert status["judged"].sum() == 2
    check(page, "active", status, {"judged": ["judged"], "relevant found": ["relevant"]})
    choose_pool(page, "demo-pool")

    page.get_by_role("link", name="Agreement").click()
    reports = pool_quality.pool_agreement(engine, "demo-pool", "threshold").reports
    check(page, "alpha", agreement.figures_frame(reports, "alpha", "en"), {"value": ["value"]})
    pairs = agreement.figures_frame(reports, "quadratic", "en")
    check(page, "pairs", pairs, {"value": ["value"], "95% high": ["high"]})
    confusion = agreement.confusion_frame(reports[0].pairs[0])
    assert confusion["count"].sum() == 4  # the five shared items less the one unsure
    check(page, "confusion", confusion, {"count": ["count"]})

    page.get_by_role("link", name="Releases").click()
    history = releases.release_history(releases.list_releases(engine))
    check(page, "releases", history, {"value": [f"grade_{g}" for g in range(4)]})
