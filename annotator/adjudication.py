"""Which candidates need a lead's decision, and what every candidate's final grade is.
Plain functions over the judgments frame of ``annotator.agreement``; no Streamlit.

The disagreement policies and how agreeing grades resolve are ``pooling.grades``. Someone
marking unsure always needs a decision, and a lead can still override any candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pooling.grades import check_policy, disagree, resolved_grade


def candidates(frame: pd.DataFrame, policy: str, overlap: int) -> pd.DataFrame:
    """One row per judged candidate: ``query_id``, ``chunk_id``, ``grades`` (by annotator),
    ``notes``, ``unsure`` (who), ``severity`` (the gap between grades; an unsure counts as
    the widest gap), ``status`` (``disagree``, ``unsure``, ``incomplete`` (fewer than
    ``overlap`` judgments), or ``agreed``; ``pool_table`` adds ``adjudicated``) and
    ``auto_grade`` (for agreed ones)."""
    check_policy(policy)
    rows = []
    for (query_id, chunk_id), group in frame.groupby(["query_id", "chunk_id"], sort=True):
        graded = group.dropna(subset=["grade"])
        grades = [int(g) for g in graded["grade"]]
        unsure = sorted(group.loc[group["grade"].isna(), "annotator"])
        if unsure:
            status = "unsure"
        elif len(group) < overlap:
            status = "incomplete"
        elif disagree(grades, policy):
            status = "disagree"
        else:
            status = "agreed"
        gap = max(grades) - min(grades) if grades else 0
        rows.append(
            {
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grades": dict(zip(graded["annotator"], grades, strict=True)),
                "notes": {
                    a: n for a, n in zip(group["annotator"], group["note"], strict=True) if n
                },
                "unsure": unsure,
                "severity": 4 if unsure else gap,
                "status": status,
                "auto_grade": resolved_grade(grades) if status == "agreed" else None,
                "slices": group["slices"].iloc[0],
            }
        )
    columns = [
        "query_id",
        "chunk_id",
        "grades",
        "notes",
        "unsure",
        "severity",
        "status",
        "auto_grade",
        "slices",
    ]
    return pd.DataFrame(rows, columns=columns)


def queue(
    table: pd.DataFrame,
    *,
    query_id: str | None = None,
    slice_tag: str | None = None,
    annotator: str | None = None,
    everything: bool = False,
) -> pd.DataFrame:
    """The candidates that need a decision (disagree or unsure; with ``everything``, all
    of them, so that a lead can override any), most severe first, optionally only for one
    query, slice, or annotator."""
    wanted = table if everything else table[table["status"].isin(["disagree", "unsure"])]
    if query_id is not None:
        wanted = wanted[wanted["query_id"] == query_id]
    if slice_tag is not None:
        wanted = wanted[wanted["slices"].apply(lambda tags: slice_tag in tags)]
    if annotator is not None:
        wanted = wanted[
            wanted.apply(lambda r: annotator in r["grades"] or annotator in r["unsure"], axis=1)
        ]
    return wanted.sort_values(["severity", "query_id", "chunk_id"], ascending=[False, True, True])


def final_grades(
    table: pd.DataFrame, decisions: dict[tuple[str, str], tuple]
) -> tuple[dict[tuple[str, str], int], list[tuple[str, str]]]:
    """Each candidate's final grade (a lead's latest decision, else the agreed grade) and
    the candidates still unresolved."""
    grades, unresolved = {}, []
    for row in table.itertuples():
        key = (row.query_id, row.chunk_id)
        if key in decisions:
            grades[key] = int(decisions[key][0])
        elif row.status == "agreed":
            grades[key] = int(row.auto_grade)
        else:
            unresolved.append(key)
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
) -> Resolution:
    """Every candidate of a pool resolved: ``frame`` holds the current human judgments
    (``annotator.agreement``), ``decisions`` the leads' latest adjudications, ``pool``
    every candidate."""
    grades, unresolved = final_grades(candidates(frame, policy, overlap), decisions)
    settled = grades.keys() | set(unresolved) | not_chosen
    unresolved += [key for key in pool if key not in settled]
    return Resolution(grades, unresolved, sum(1 for key in grades if key in decisions))


def pool_table(engine, pool_name: str, policy: str) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """For a pool: the candidates table (status ``adjudicated`` where a lead decided), the
    leads' latest decisions, and the judgments frame."""
    from annotator.agreement import judgments_frame
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


def versus_final(frame: pd.DataFrame, table: pd.DataFrame, decisions: dict) -> pd.DataFrame:
    """Each annotator's quadratic kappa against the final grades: ``before`` adjudication
    (the candidates that resolved by themselves) and ``after`` (all final grades)."""
    from annotator.agreement import kappa

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
            row[label] = figure.value if figure.value is not None else figure.undefined
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
