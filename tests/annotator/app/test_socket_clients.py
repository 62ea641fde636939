"""benchmarks/socket_clients.py presses keys as a browser's clicks do, by Streamlit's
websocket protocol: against ``qrels serve``, every key it counts is one grade in the
database, on the passage it was pressed for, and a Streamlit that changed its protocol
fails here rather than in a benchmark run."""

from __future__ import annotations

import threading
import time

import pytest

from tests.browser_support import judgments
from tests.conftest import benchmark_module


def test_each_key_counted_is_one_grade_in_the_database(server):
    address, url = server
    module = benchmark_module("socket_clients")
    started, stop, answer = threading.Event(), threading.Event(), {}
    pressing = threading.Thread(
        target=lambda: answer.setdefault(
            "keys", module.annotate(address, url, ["ann1"], started, stop, pace=0.4)
        )
    )
    pressing.start()
    assert started.wait(60), "the annotator never saw the labeling page"
    deadline = time.monotonic() + 30
    while len(judgments(url, "ann1")) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    stop.set()
    pressing.join(timeout=90)
    keys, lost = answer["keys"]
    graded = judgments(url, "ann1")
    assert lost == 0
    assert len(graded) >= 3
    # A key whose run drew the next passage is counted, and one grade was saved for it:
    # the last key may have drawn nothing new (the pool's end), never two grades for one.
    assert len(graded) - 1 <= len(keys) <= len(graded)
    assert all(grade in (0, 1, 2, 3) for _, grade, _, _ in graded)
    assert len({chunk for chunk, _, _, _ in graded}) == len(graded)  # each passage once
    assert all(0 < ms < 30_000 for _, ms in keys)


def test_the_lead_by_socket_is_shown_each_lead_page_it_asks_for(server):
    address, url = server
    module = benchmark_module("socket_clients")
    pages = ["", "pools", "agreement"]
    started, stop, answer = threading.Event(), threading.Event(), {}
    browsing = threading.Thread(
        target=lambda: answer.setdefault(
            "views", module.browse(address, url, "boss", pages, started, stop, 120)
        )
    )
    browsing.start()
    started.set()
    time.sleep(8)
    stop.set()
    browsing.join(timeout=90)
    # browse raises (and "views" stays unset) when a view ran another page than asked
    assert len(answer["views"]) >= len(pages), "not one round of the pages in 8 s"
    assert all(0 < seconds < 30 for seconds in answer["views"])


def test_an_annotator_by_socket_is_not_shown_the_lead_pages(server):
    address, url = server
    module = benchmark_module("socket_clients")
    started, stop = threading.Event(), threading.Event()
    started.set()
    stop.set()
    with pytest.raises(RuntimeError, match="not shown the lead pages"):
        module.browse(address, url, "ann1", ["pools"], started, stop, 60)
