"""A pool's agreement and adjudication from the database: the loaders beside the plain
functions of ``annotator.quality.agreement`` and ``annotator.quality.adjudication``, which
take frames and never open a session. Here a pool's judgments become the frame, the leads'
latest decisions a dict, and a lead's decision a row of the history. No Streamlit in here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from annotator.quality.adjudication import Queue, candidates, versus_final
from annotator.quality.agreement import PAGE_ROUNDS, AgreementReport, report, without_gold
from pooling.grouping import groups
from pooling.resolution import frame_of
from storage import gold_records
from storage.accounts import acting
from storage.candidate_texts import candidate_view as view
from storage.db import session_scope, snapshot_scope
from storage.history import JUDGMENT_COLUMNS, adjudicate, candidate_judgments, latest_adjudications
from storage.pool_records import get_pool

# -- agreement ---------------------------------------------------------------------------------


def _judgments(engine, pool_name: str) -> tuple[pd.DataFrame, set[tuple[str, str]]]:
    """The current human judgments on a pool's candidates, gold items' too, and the gold
    items' keys."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        rows = candidate_judgments(pool, session=session)
        gold = {(g.query_id, g.chunk_id) for g in gold_records.items(pool, session=session)}
    return frame_of(rows, JUDGMENT_COLUMNS), gold


def judgments_frame(engine, pool_name: str) -> pd.DataFrame:
    """The current human judgments on a pool's candidates but its gold items
    (``agreement.without_gold``), as the judgments frame (``annotator.quality.agreement``)."""
    return without_gold(*_judgments(engine, pool_name))


@dataclass(frozen=True)
class PoolAgreement:
    """What the lead's Agreement page shows of a pool: a report per group, and each
    annotator against the final grades (``annotator.quality.adjudication.versus_final``)."""

    reports: list[AgreementReport]
    versus_final: pd.DataFrame


def pool_agreement(
    engine, pool_name: str, policy: str, by: str | None = None, rounds: int = PAGE_ROUNDS
) -> PoolAgreement:
    """Agreement on pool ``pool_name``, whole or ``by`` slice or split
    (``pooling.grouping.groups``), final grades resolved under ``policy``. Raises
    ``NotFound`` for an unknown pool and ``LocalizedError`` for an unknown policy or
    grouping."""
    table, decisions, frame = pool_table(engine, pool_name, policy)
    reports = [report(part, name, rounds) for name, part in groups(frame, by).items()]
    return PoolAgreement(reports, versus_final(frame, table, decisions))


# -- adjudication ------------------------------------------------------------------------------


def pool_table(engine, pool_name: str, policy: str) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """For a pool: the candidates table (status ``gold`` for a gold item, whose grade is
    settled and needs no decision, ``adjudicated`` where a lead decided), the leads' latest
    decisions, and the judgments frame without the gold items' (``judgments_frame``)."""
    frame, gold = _judgments(engine, pool_name)
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        decisions, overlap = latest_adjudications(pool, session=session), pool.overlap
    table = candidates(frame, policy, overlap)
    keys = list(zip(table["query_id"], table["chunk_id"], strict=True))
    table.loc[[key in gold for key in keys], "status"] = "gold"
    table.loc[[key in decisions for key in keys], "status"] = "adjudicated"
    return table, decisions, without_gold(frame, gold)


def pool_queue(engine, pool_name: str, policy: str) -> Queue:
    """``Queue`` of pool ``pool_name`` under ``policy``."""
    table, decisions, _ = pool_table(engine, pool_name, policy)
    return Queue(
        table,
        decisions,
        sorted({a for grades in table["grades"] for a in grades}),
        sorted({tag for tags in table["slices"] for tag in tags}),
        sorted(table["query_id"].unique()),
    )


def record_decision(
    engine,
    pool_name: str,
    key: tuple[str, str],
    grade: int,
    rationale: str,
    lead_id: int,
    policy: str,
) -> None:
    """A lead's final grade for the candidate ``key`` (query id, chunk id), with the reason;
    an earlier decision stays in the history. Raises ``LocalizedError`` for a grade off the
    scale or a missing rationale, ``Refused`` for an account that is not an enabled lead's."""
    with session_scope(engine) as session:
        lead = acting(lead_id, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        adjudicate(pool, *key, grade, rationale, lead, policy, session=session)


def candidate_view(engine, pool_name: str, key: tuple[str, str]):
    """What a lead sees of the candidate ``key``: ``storage.candidate_texts.CandidateView``."""
    with snapshot_scope(engine) as session:
        return view(get_pool(pool_name, session=session), *key, session=session)
