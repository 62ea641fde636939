"""Topping up a pool from a coverage report (``pooling.judged_at_k``): the chunks a new
run ranks in its top k that the release has no grade for. No Streamlit in here."""

from __future__ import annotations

from pooling.judged_at_k import CoverageReport, coverage, topup_candidates

__all__ = ["CoverageReport", "coverage", "topup", "topup_candidates"]


def topup(
    engine, pool_name: str, report: CoverageReport, run_name: str, k: int, by: int | None = None
):
    """Add the unjudged chunks of ``report`` to pool ``pool_name`` as a top-up, with the run
    as their provenance (``run:<name>``), by the lead ``by`` (None: the command line);
    returns ``storage.pool_records.PoolResult``."""
    from annotator.pools.pool_building import add_candidates

    system = f"run:{run_name}"
    config = {"systems_spec": system, "source": "coverage", "k": k}
    return add_candidates(engine, pool_name, topup_candidates(report, system), config, by=by)
