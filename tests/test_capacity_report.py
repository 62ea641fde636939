"""benchmarks/capacity.py's report pools each setting's keys over ``--rounds``: one p95 of
all its runs' keys, compared with the keys alone of the same annotators' side (in
Chromium or by socket), whether the lead was in Chromium or by socket."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import benchmark_module


@pytest.fixture(scope="module")
def capacity():
    yield benchmark_module("capacity")
    sys.modules.pop("capacity", None)


def run(keys: list[float], lead: bool, lead_by: str | None = None, by: str = "chromium"):
    return {
        "layout": "two",
        "annotators": 1,
        "annotators_by": by,
        "lead": lead,
        "lead_by": lead_by,
        "keys": len(keys),
        "p50_ms": 0.0,
        "p95_ms": max(keys),
        "max_ms": max(keys),
        "key_ms": keys,
        "lead_views_a_minute": 40.0 if lead else None,
        "lead_view_median_s": 0.5 if lead else None,
        "load_before": 1.0,
        "load_after": 1.0,
        "seconds": 60,
        "cpu_s": {},
    }


def pooled_line(printed: str, start: str) -> list[str]:
    table = printed.split("pooled over runs")[1].split("\n\n")[0]
    (line,) = [row for row in table.splitlines() if row.startswith(start)]
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_rounds_pool_their_keys_against_the_keys_alone_of_the_same_side(capacity, capsys):
    alone = [[100.0] * 19 + [400.0], [100.0] * 20]  # one slow key in 40
    beside = [[150.0] * 20, [150.0] * 19 + [900.0]]
    by_socket = [[300.0] * 20, [300.0] * 20]  # annotators by socket: another side
    rows = [run(keys, lead=False) for keys in alone]
    rows += [run(keys, lead=True, lead_by="socket") for keys in beside]
    rows += [run(keys, lead=False, by="socket") for keys in by_socket]
    capacity.report(rows)
    printed = capsys.readouterr().out
    p95 = capacity.app_scale.p95
    cells = pooled_line(printed, "| two lead by socket |")
    assert cells[3:5] == ["2", "40"]  # runs, keys
    assert cells[6] == f"{p95([m for k in beside for m in k]):.0f}"
    ratio = p95([m for k in beside for m in k]) / p95([m for k in alone for m in k])
    assert cells[7] == f"{ratio:.2f}"
    assert pooled_line(printed, "| two | 1 | no |")[7] == "1.00"
