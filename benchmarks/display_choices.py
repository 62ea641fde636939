"""How long each display choice on the lead's pages takes: a kappa, a pair, a grouping, a
policy, a filter, a period, a table shown. Issue 27 asks for each ≤ 1 s at L, never a
recount.

Each page is rendered with Streamlit's AppTest, as ``app_scale.py`` renders it, after a
restart and the kept figures read once (what a running app has); then each choice is made in
turn, on the same page, and the render after it timed: wall seconds and this process's
CPU seconds (user + system; the page runs in a thread of it). Nobody presses keys: the
figures are current, so what a choice costs is what it derives from the kept tables.

    python benchmarks/display_choices.py --db URL [--json FILE]

``--db`` is a database built by ``app_scale.py`` (a copy: nothing is written into it but
the kept figures' checkpoint).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import app_scale  # noqa: E402  (sets one BLAS thread before numpy is imported)

PAGES = app_scale.ROOT / "annotator" / "app" / "pages"


def by_label(widgets, label: str):
    """The widget of ``widgets`` labelled ``label`` (the unkeyed filters)."""
    return next(w for w in widgets if w.label == label)


def choices(page: str) -> list[tuple[str, Callable]]:
    """``page``'s display choices, each a name and what it does to an ``AppTest``."""
    from pooling.grades import POLICIES
    from pooling.i18n import t

    policies = [p for p in POLICIES if p != "threshold"] + ["threshold"]
    policy = [
        (f"policy {p}", lambda at, p=p: at.selectbox(key="policy").set_value(p)) for p in policies
    ]
    if page == "agreement_page.py":
        return [
            *[
                (f"kappa {m}", lambda at, m=m: at.selectbox(key="agreement_measure").set_value(m))
                for m in ("unweighted", "linear", "binary_ge1", "percent", "quadratic")
            ],
            ("pair 2", lambda at: at.selectbox(key="confusion_pair").set_value(2)),
            *[
                (f"group by {g}", lambda at, g=g: at.radio(key="agreement_by").set_value(g))
                for g in ("slice", "split", "all", "slice")
            ],
            *policy,
            ("group by all", lambda at: at.radio(key="agreement_by").set_value("all")),
            ("table alpha", lambda at: at.toggle(key="table_alpha").set_value(True)),
            ("table pairs", lambda at: at.toggle(key="table_pairs").set_value(True)),
        ]
    if page == "adjudication_page.py":
        return [
            (
                "filter query",
                lambda at: by_label(at.selectbox, t("filter_query", "en")).select_index(5),
            ),
            (
                "filter query all",
                lambda at: by_label(at.selectbox, t("filter_query", "en")).set_value(
                    t("filter_all", "en")
                ),
            ),
            (
                "filter slice faq",
                lambda at: by_label(at.selectbox, t("filter_slice", "en")).set_value("faq"),
            ),
            (
                "filter annotator a03",
                lambda at: by_label(at.selectbox, t("filter_annotator", "en")).set_value("a03"),
            ),
            (
                "filter slice all",
                lambda at: by_label(at.selectbox, t("filter_slice", "en")).set_value(
                    t("filter_all", "en")
                ),
            ),
            (
                "filter annotator all",
                lambda at: by_label(at.selectbox, t("filter_annotator", "en")).set_value(
                    t("filter_all", "en")
                ),
            ),
            ("show names", lambda at: by_label(at.toggle, t("hide_names", "en")).set_value(False)),
            ("include resolved", lambda at: at.toggle(key="include_resolved").set_value(True)),
            ("exclude resolved", lambda at: at.toggle(key="include_resolved").set_value(False)),
            ("candidate 10", lambda at: _candidate(at, 10)),
            *policy,
            ("table statuses", lambda at: at.toggle(key="table_statuses").set_value(True)),
        ]
    if page == "team_progress_page.py":
        return [
            ("per day", lambda at: at.radio(key="team_per").set_value("day")),
            ("per hour", lambda at: at.radio(key="team_per").set_value("hour")),
            *[
                (f"table {k}", lambda at, k=k: at.toggle(key=f"table_{k}").set_value(True))
                for k in ("timeline", "completion", "throughput", "distribution", "drift")
            ],
        ]
    if page == "pools_page.py":
        return [
            (f"table {k}", lambda at, k=k: at.toggle(key=f"table_{k}").set_value(True))
            for k in ("systems", "combinations")
        ]
    raise ValueError(page)


def _candidate(at, index: int):
    """Choose the adjudication queue's ``index``-th candidate (its options are shown as
    "query / chunk")."""
    box = at.selectbox(key="candidate")
    return box.set_value(tuple(box.options[index].split(" / ")))


def timed(at) -> tuple[float, float]:
    """Wall and CPU seconds of one render of ``at``."""
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if at.exception:
        raise RuntimeError(str(at.exception))
    return wall, cpu


def measure(url: str, lead: int) -> list[dict]:
    from streamlit.testing.v1 import AppTest

    os.environ["QRELS_DATABASE_URL"] = url
    rows = []
    for page in (
        "agreement_page.py",
        "adjudication_page.py",
        "team_progress_page.py",
        "pools_page.py",
    ):
        # Each page after a restart: the policies' tables derived on one page are not
        # there for the next.
        app_scale.restart()
        app_scale.counted_once(url)
        at = AppTest.from_file(str(PAGES / page), default_timeout=900)
        at.session_state["user_id"] = lead
        first = timed(at)
        again = timed(at)
        rows.append({"page": page, "choice": "first view", "wall_s": first[0], "cpu_s": first[1]})
        rows.append(
            {"page": page, "choice": "same view again", "wall_s": again[0], "cpu_s": again[1]}
        )
        for name, choose in choices(page):
            choose(at)
            wall, cpu = timed(at)
            rows.append({"page": page, "choice": name, "wall_s": wall, "cpu_s": cpu})
            print(f"{page} {name}: {wall:.2f} s wall, {cpu:.2f} s CPU", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    rows = measure(args.db, app_scale.known_users(args.db)["lead"])
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    print("| page | choice | wall s | CPU s |")
    print("|---|---|---:|---:|")
    for r in rows:
        page = r["page"].removesuffix("_page.py")
        print(f"| {page} | {r['choice']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} |")


if __name__ == "__main__":
    main()
