"""Which candidates need a lead's decision, and what every candidate's final grade is.
Plain functions over the judgments frame of ``annotator.quality.agreement``; no Streamlit,
no database (``annotator.quality.pool_quality`` reads a pool's frame and its decisions).

The disagreement policies are ``pooling.grades``, how grades resolve ``pooling.resolution``. Someone
marking unsure always needs a decision, and a lead can still override any candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from annotator.quality.agreement import kappa
from pooling.resolution import STATUS_COLUMNS, final_grades, statuses


def candidates(frame: pd.DataFrame, policy: str, overlap: int) -> pd.DataFrame:
    """One row per judged candidate, most severe first: ``query_id``, ``chunk_id``,
    ``grades`` (by annotator), ``notes``, ``unsure`` (who), and the ``statuses`` columns
    (``pool_quality.pool_table`` adds the status ``adjudicated``) and ``slices``; for the
    lead's queue, which shows who said what."""
    table = statuses(frame, policy, overlap)
    grades: dict[tuple[str, str], dict[str, int]] = {}
    notes: dict[tuple[str, str], dict[str, str]] = {}
    unsure: dict[tuple[str, str], list[str]] = {}
    slices: dict[tuple[str, str], list[str]] = {}
    for row in frame.itertuples(index=False):
        key = (row.query_id, row.chunk_id)
        if pd.isna(row.grade):
            unsure.setdefault(key, []).append(row.annotator)
        else:
            grades.setdefault(key, {})[row.annotator] = int(row.grade)
        if row.note:
            notes.setdefault(key, {})[row.annotator] = row.note
        slices.setdefault(key, row.slices)
    keys = list(table.index)
    columns = {
        "query_id": [q for q, _ in keys],
        "chunk_id": [c for _, c in keys],
        "grades": [grades.get(k, {}) for k in keys],
        "notes": [notes.get(k, {}) for k in keys],
        "unsure": [sorted(unsure.get(k, [])) for k in keys],
        **{name: table[name].tolist() for name in STATUS_COLUMNS},
        "slices": [slices[k] for k in keys],
    }
    result = pd.DataFrame(columns)
    result["auto_grade"] = (
        result["auto_grade"].astype("object").where(result["auto_grade"].notna(), None)
    )
    # In the queue's order (most severe first, then by query and chunk, as ``statuses``
    # sorts), once: a page filters it on every click and need not sort half a million rows.
    return result.sort_values("severity", ascending=False, kind="stable", ignore_index=True)


def queue(
    table: pd.DataFrame,
    *,
    query_id: str | None = None,
    slice_tag: str | None = None,
    annotator: str | None = None,
    everything: bool = False,
) -> pd.DataFrame:
    """The candidates of ``table`` (``candidates``, most severe first) that need a decision
    (disagree or unsure; with ``everything``, all of them, so that a lead can override any),
    in its order, optionally only for one query, slice, or annotator."""
    wanted = table if everything else table[table["status"].isin(["disagree", "unsure"])]
    if query_id is not None:
        wanted = wanted[wanted["query_id"] == query_id]
    if slice_tag is not None:
        wanted = wanted.loc[[slice_tag in tags for tags in wanted["slices"]]]
    if annotator is not None:
        pairs = zip(wanted["grades"], wanted["unsure"], strict=True)
        wanted = wanted.loc[
            [annotator in graded or annotator in unsure for graded, unsure in pairs]
        ]
    return wanted


def proposed_grade(row: pd.Series, decision: tuple | None) -> int:
    """The final grade to offer a lead for a candidate of ``candidates``: its current
    decision (``(grade, rationale, ...)``), else its agreed grade, else the lower median of
    its grades (0 when nobody graded it)."""
    if decision is not None:
        return int(decision[0])
    agreed = row.get("auto_grade")
    if agreed is not None and not pd.isna(agreed):
        return int(agreed)
    grades = sorted(row["grades"].values())
    return int(grades[(len(grades) - 1) // 2]) if grades else 0


STATUS_ORDER = ("disagree", "unsure", "adjudicated", "gold", "agreed", "incomplete")


def status_counts(table: pd.DataFrame) -> pd.DataFrame:
    """How many judged candidates of each query are in each status (``candidates``'
    ``status``, and ``adjudicated`` where a lead decided), the statuses that need a lead
    first: ``query`` (its id), ``status``, ``candidates``; what the Adjudication page draws."""
    # Counted from codes by one bincount: grouping half a million rows by two columns of
    # strings (or categories) took a large part of a view.
    query_codes, queries = pd.factorize(table["query_id"], sort=True)
    status_codes, names = pd.factorize(table["status"])
    size = max(len(names), 1)
    cells = np.bincount(query_codes * size + status_codes, minlength=len(queries) * size)
    query, status = np.divmod(np.flatnonzero(cells), size)
    order = {status: i for i, status in enumerate(STATUS_ORDER)}
    counts = pd.DataFrame(
        {
            "query": np.asarray(queries, dtype=object)[query].astype(str),
            "status": np.asarray(names, dtype=object)[status].astype(str),
            "candidates": cells[cells > 0],
        }
    )
    counts["rank"] = counts["status"].map(order)
    counts = counts.sort_values(["query", "rank"], kind="stable", ignore_index=True)
    return counts.drop(columns="rank")


def most_needing(counts: pd.DataFrame, most: int) -> pd.DataFrame:
    """The rows of ``status_counts`` of the ``most`` queries with the most candidates
    needing a decision (then the most judged, then by id): a chart of every query of a
    large pool (ten thousand bars) could neither be read nor sent at every click."""
    total = counts.groupby("query", sort=True)["candidates"].sum()
    needing = counts[counts["status"].isin(["disagree", "unsure"])]
    need = needing.groupby("query")["candidates"].sum().reindex(total.index, fill_value=0)
    ranked = pd.DataFrame({"need": need, "total": total})
    chosen = ranked.sort_values(["need", "total"], ascending=False, kind="stable").index[:most]
    return counts[counts["query"].isin(chosen)].reset_index(drop=True)


@dataclass
class Resolution:
    """A pool's final grades, and the candidates left unresolved (disagreements, unsure,
    incomplete, or never judged); an active pool's candidates nobody was asked about are
    neither."""

    grades: dict[tuple[str, str], int]
    unresolved: list[tuple[str, str]]
    adjudicated: int


def resolve(
    frame: pd.DataFrame,
    decisions: dict[tuple[str, str], tuple],
    pool: list[tuple[str, str]],
    not_chosen: set[tuple[str, str]],
    *,
    policy: str,
    overlap: int,
    gold: dict[tuple[str, str], int] | None = None,
) -> Resolution:
    """Every candidate of a pool resolved: ``frame`` holds the current human judgments
    (``annotator.quality.agreement``), ``decisions`` the leads' latest adjudications, ``pool``
    every candidate (or only those nobody judged: a judged one is graded or unresolved by
    its judgments), ``gold`` the gold items' grades, which stand whatever annotators gave
    (a later adjudication still has the last word)."""
    grades, unresolved = final_grades(statuses(frame, policy, overlap), decisions, gold=gold)
    # Each set looked in apart: their union of half a million keys cost more than the looks.
    left = set(unresolved)
    unresolved += [
        key for key in pool if key not in grades and key not in left and key not in not_chosen
    ]
    return Resolution(grades, unresolved, sum(1 for key in grades if key in decisions))


@dataclass(frozen=True)
class Queue:
    """What the Adjudication page offers for a pool, counted once for every lead looking
    (``ui.figures``): the candidates table, the leads' decisions, and the choices of its
    filters."""

    table: pd.DataFrame
    decisions: dict[tuple[str, str], tuple]
    annotators: list[str]
    slice_tags: list[str]
    query_ids: list[str]
    # A kept queue (``annotator.quality.kept.figures``) has no columns of who said what but a
    # bit per annotator in ``people``, and gives ``grades``, ``notes``, ``unsure`` of the
    # candidates asked for here.
    details: Callable[[list[tuple[str, str]]], list[tuple[dict, dict, list]]] | None = None


def queue_of(found: Queue, *, annotator: str | None = None, **filters) -> pd.DataFrame:
    """``queue`` of a counted ``Queue``'s table, whether it names who said what or holds a
    bit per annotator (``people``)."""
    if "people" not in found.table or annotator is None:
        return queue(found.table, annotator=annotator, **filters)
    wanted = queue(found.table, **filters)
    if annotator not in found.annotators:
        return wanted.iloc[0:0]
    bit = 1 << found.annotators.index(annotator)
    return wanted[(wanted["people"] & bit) != 0]


def with_details(found: Queue, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` of ``found``'s table with ``grades``, ``notes`` and ``unsure`` (as
    ``candidates`` has them), asked of the kept queue for these rows alone."""
    if found.details is None or "grades" in rows:
        return rows
    keys = list(zip(rows["query_id"], rows["chunk_id"], strict=True))
    grades, notes, unsure = zip(*found.details(keys), strict=True) if keys else ((), (), ())
    return rows.assign(grades=list(grades), notes=list(notes), unsure=list(unsure))


def decided_since(
    shown: pd.DataFrame, decisions: dict[tuple[str, str], tuple], *, everything: bool = False
) -> pd.DataFrame:
    """``shown`` (rows of a counted ``Queue``) with the decisions a lead made since it was
    counted: those candidates marked adjudicated, and left out unless ``everything``. So a
    decision shows at once without counting the whole pool again."""
    if not decisions or shown.empty:
        return shown
    decided = pd.Series(
        [(q, c) in decisions for q, c in zip(shown["query_id"], shown["chunk_id"], strict=True)],
        index=shown.index,
    )
    if not everything:
        return shown[~decided]
    return shown.assign(status=shown["status"].where(~decided, "adjudicated"))


def versus_final(frame: pd.DataFrame, table: pd.DataFrame, decisions: dict) -> pd.DataFrame:
    """Each annotator's quadratic kappa against the final grades, as ``Figure``s: ``before``
    adjudication (the candidates that resolved by themselves) and ``after`` (all final
    grades)."""
    before = {
        (r.query_id, r.chunk_id): int(r.auto_grade)
        for r in table.itertuples()
        if r.status == "agreed"
    }
    after, _ = final_grades(table, decisions)
    rows = []
    for annotator, part in frame.dropna(subset=["grade"]).groupby("annotator"):
        mine = {(r.query_id, r.chunk_id): int(r.grade) for r in part.itertuples()}
        row = {"annotator": annotator}
        for label, finals in (("before", before), ("after", after)):
            keys = sorted(set(mine) & set(finals))
            figure = kappa([mine[k] for k in keys], [finals[k] for k in keys], "quadratic")
            row[label] = figure
        rows.append(row)
    return pd.DataFrame(rows, columns=["annotator", "before", "after"])
