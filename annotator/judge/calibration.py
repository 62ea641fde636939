"""How far an automatic judge agrees with the adjudicated human grades of a release.
No Streamlit in here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from sqlalchemy.engine import Engine

from annotator.quality.agreement import KAPPAS, Figure, confusion, kappa


@dataclass
class Calibration:
    judge: str
    shared: int
    kappas: dict[str, Figure]
    confusion: list[list[int]]  # rows: human grade 0–3, columns: the judge's
    per_slice: dict[str, dict] = field(default_factory=dict)
    differences: list[dict] = field(default_factory=list)
    # A judge that carried grades across a chunking change: per mapping class, how far the
    # carried grades are from the humans' (``annotator.judge.carried_classes``).
    per_class: dict[str, dict] = field(default_factory=dict)


def calibrate(
    judge: str,
    labels: pd.DataFrame,
    qrels: Mapping[str, Mapping[str, int]],
    slices: dict[str, list[str]],
    worst: int = 20,
    classes: dict[tuple[str, str], str] | None = None,
) -> Calibration:
    """``labels`` (query_id, chunk_id, grade) of the judge against the release's ``qrels``
    on the candidates both graded; per slice (from the release's queries) the quadratic
    kappa; per class of ``classes`` ((query id, chunk id) -> class, for a judge that
    carried grades) the share of grades the same, the mean gap and the quadratic kappa;
    and the ``worst`` candidates where judge and humans differ most."""
    rows = [
        (r.query_id, r.chunk_id, int(qrels[r.query_id][r.chunk_id]), int(r.grade))
        for r in labels.dropna(subset=["grade"]).itertuples()
        if r.chunk_id in qrels.get(r.query_id, {})
    ]
    both = pd.DataFrame(rows, columns=["query_id", "chunk_id", "human", "judge"])
    human, machine = both["human"].tolist(), both["judge"].tolist()
    per_slice = {}
    for tag in sorted({t for tags in slices.values() for t in tags}):
        # as booleans: mapping no row at all gives an object series, read as column names
        part = both[both["query_id"].map(lambda q, tag=tag: tag in slices.get(q, [])).astype(bool)]
        figure = kappa(part["human"].tolist(), part["judge"].tolist(), "quadratic")
        per_slice[tag] = {"shared": len(part), "quadratic": figure}
    gaps = both.assign(gap=(both["judge"] - both["human"]).abs())
    per_class = {}
    if classes:
        kinds = [classes.get(key) for key in zip(both["query_id"], both["chunk_id"], strict=True)]
        for kind, part in gaps.groupby(pd.Series(kinds, index=gaps.index, dtype=object)):
            per_class[kind] = {
                "shared": len(part),
                "same_grade": float((part["gap"] == 0).mean()),
                "mean_gap": float(part["gap"].mean()),
                "quadratic": kappa(part["human"].tolist(), part["judge"].tolist(), "quadratic"),
            }
    gaps = gaps.sort_values(["gap", "query_id", "chunk_id"], ascending=[False, True, True])
    return Calibration(
        judge=judge,
        shared=len(both),
        kappas={kind: kappa(human, machine, kind) for kind in KAPPAS},
        confusion=confusion(human, machine),
        per_slice=per_slice,
        differences=gaps[gaps["gap"] > 0].head(worst).drop(columns="gap").to_dict("records"),
        per_class=per_class,
    )


def calibrate_judge(
    engine: Engine, judge: str, release: Path | str, worst: int = 20
) -> Calibration:
    """``calibrate`` with the judge's labels on the release's corpus version and query set
    from the database, the release's grades and slices from its folder, and for a judge
    that carried grades (``annotator.judge.carried_classes``) their mapping classes. Raises
    ``NotFound`` for a judge the database does not know."""
    from annotator.judge.carried_classes import judge_classes
    from pooling.release_folder import read_manifest, read_qrels, read_queries

    manifest = read_manifest(release)
    corpus_version = manifest["corpus_version"]["name"]
    labels = judge_labels(engine, judge, corpus_version, manifest["query_set"]["name"])
    slices = {q["_id"]: q.get("slices", []) for q in read_queries(release)}
    classes = judge_classes(engine, judge, corpus_version)
    return calibrate(judge, labels, read_qrels(release), slices, worst, classes)


def judge_labels(engine: Engine, judge: str, corpus_version: str, query_set: str) -> pd.DataFrame:
    """The judge's current grades (query_id, chunk_id, grade) on a corpus version and query
    set (names): what ``calibrate`` reads of a judge, against a release (``qrels
    calibrate``) or a pool (``annotator.judge.judge_report``). Raises ``NotFound`` for a
    judge the database does not know."""
    from storage.accounts import get_user
    from storage.db import snapshot_scope
    from storage.history import labels_of

    with snapshot_scope(engine) as session:
        get_user(judge, session=session)
        rows = labels_of(judge, session=session, corpus_version=corpus_version, query_set=query_set)
    return pd.DataFrame(rows, columns=["query_id", "chunk_id", "grade"])
