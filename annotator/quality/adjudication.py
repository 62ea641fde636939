"""Which candidates need a lead's decision, and what every candidate's final grade is.
Plain functions over the judgments frame of ``annotator.quality.agreement``; no Streamlit.

The disagreement policies and how agreeing grades resolve are ``pooling.grades``. Someone
marking unsure always needs a decision, and a lead can still override any candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooling.grades import POLICIES, check_policy

KEYS = ["query_id", "chunk_id"]
# One line per candidate, the way every one of them is decided.
STATUS_COLUMNS = ["status", "severity", "auto_grade"]


def statuses(frame: pd.DataFrame, policy: str, overlap: int) -> pd.DataFrame:
    """Per judged candidate (indexed by query id and chunk id): ``status`` (``unsure`` when
    someone marked it so, ``incomplete`` with fewer than ``overlap`` judgments, else
    ``disagree`` or ``agreed`` by ``policy``), ``severity`` (the gap between grades; unsure
    counts as the widest, 4) and ``auto_grade`` (the lower median, for agreed ones).
    Computed on whole columns at once: a million judgments take a second or two."""
    check_policy(policy)
    grades = frame.assign(grade=frame["grade"].astype(float)).groupby(KEYS, sort=True)["grade"]
    table = pd.DataFrame(
        {"judged": grades.size(), "graded": grades.count(), "low": grades.min()}
    ).assign(high=grades.max(), median=grades.quantile(0.5, interpolation="lower"))
    unsure = table["judged"] > table["graded"]
    split = POLICIES[policy](table["low"], table["high"])
    table["status"] = np.select(
        [unsure, table["judged"] < overlap, split], ["unsure", "incomplete", "disagree"], "agreed"
    )
    table["severity"] = np.where(unsure, 4, (table["high"] - table["low"]).fillna(0)).astype(int)
    agreed = table["status"] == "agreed"
    table["auto_grade"] = table["median"].where(agreed).astype("Int64")
    return table[STATUS_COLUMNS]


def candidates(frame: pd.DataFrame, policy: str, overlap: int) -> pd.DataFrame:
    """One row per judged candidate, most severe first: ``query_id``, ``chunk_id``,
    ``grades`` (by annotator), ``notes``, ``unsure`` (who), and the ``statuses`` columns
    (``pool_table`` adds the status ``adjudicated``) and ``slices``; for the lead's queue,
    which shows who said what."""
    table = statuses(frame, policy, overlap)
    grades, notes, unsure, slices = {}, {}, {}, {}
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


def final_grades(
    table: pd.DataFrame, decisions: dict[tuple[str, str], tuple]
) -> tuple[dict[tuple[str, str], int], list[tuple[str, str]]]:
    """Each candidate's final grade (a lead's latest decision, else the agreed grade) and
    the candidates still unresolved; ``table`` is ``candidates`` or ``statuses``."""
    if "query_id" in table:
        table = table.set_index(KEYS)
    agreed = (table["status"] == "agreed").to_numpy()
    # Whole columns at once: half a million candidates one row at a time took seconds.
    auto = table["auto_grade"][agreed].astype("int64").tolist()
    grades = dict(zip(table.index[agreed], auto, strict=True))
    grades.update({key: int(d[0]) for key, d in decisions.items() if key in table.index})
    decided = table.index.isin(list(decisions)) if decisions else np.zeros(len(table), bool)
    unresolved = table.index[~agreed & ~decided].tolist()
    return grades, unresolved


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
    every candidate, ``gold`` the gold items' grades, which stand whatever annotators gave
    (a later adjudication still has the last word)."""
    grades, unresolved = final_grades(statuses(frame, policy, overlap), decisions)
    settled = {key: g for key, g in (gold or {}).items() if key not in decisions}
    grades.update(settled)
    unresolved = [key for key in unresolved if key not in settled]
    done = grades.keys() | set(unresolved) | not_chosen
    unresolved += [key for key in pool if key not in done]
    return Resolution(grades, unresolved, sum(1 for key in grades if key in decisions))


def pool_table(engine, pool_name: str, policy: str) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """For a pool: the candidates table (status ``adjudicated`` where a lead decided), the
    leads' latest decisions, and the judgments frame."""
    from annotator.quality.agreement import judgments_frame
    from storage.db import session_scope
    from storage.history import latest_adjudications
    from storage.pool_records import get_pool

    frame = judgments_frame(engine, pool_name)
    with session_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        decisions, overlap = latest_adjudications(pool, session=session), pool.overlap
    table = candidates(frame, policy, overlap)
    decided = [
        (q, c) in decisions for q, c in zip(table["query_id"], table["chunk_id"], strict=True)
    ]
    table.loc[decided, "status"] = "adjudicated"
    return table, decisions, frame


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
    from annotator.quality.agreement import kappa

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
    from storage.accounts import acting
    from storage.db import session_scope
    from storage.history import adjudicate
    from storage.pool_records import get_pool

    with session_scope(engine) as session:
        lead = acting(lead_id, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        adjudicate(pool, *key, grade, rationale, lead, policy, session=session)


def candidate_view(engine, pool_name: str, key: tuple[str, str]):
    """What a lead sees of the candidate ``key``: ``storage.pool_records.CandidateView``."""
    from storage.db import session_scope
    from storage.pool_records import candidate_view as view
    from storage.pool_records import get_pool

    with session_scope(engine) as session:
        return view(get_pool(pool_name, session=session), *key, session=session)
