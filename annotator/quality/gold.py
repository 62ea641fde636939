"""Quality control with gold items: (query, chunk) pairs whose grade a lead settled, mixed
into each annotator's work to see how well they grade, long before adjudication.

A lead makes adjudicated candidates gold (the Adjudication page), or a whole earlier
release of the same query set and corpus version (``qrels gold add``). Then about one
item in ``rate`` an annotator is given is a gold item: a share of the gold items drawn for
each annotator is part of their work from the start, offered as one more candidate of its
query in their own order and counted in their progress like any other, so nothing tells it
apart (``storage.gold_records.own_gold``). It is judged on a slot beyond the candidate's
own, so it never takes a place in anyone's overlap, and it never changes the gold grade,
which is the item's grade in every release. Only an annotator's first judgment of a gold
item counts (a change after seeing the answer does not), and one given back unjudged
(skipped) counts as missed. How each annotator does on gold (exact, within one, relevant or
not at grade 1 and at grade 2, quadratic kappa with a bootstrap interval) is for the lead,
who sets a floor below which an annotator is flagged (their judgments stay: the lead
decides); and, once they have seen enough, for the annotator too, with the gold items they
missed and the lead's rationale: how the rubric is learnt.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from sqlalchemy.engine import Engine

from annotator.quality.agreement import Figure, bootstrap, pair_statistic
from pooling.i18n import LocalizedError
from pooling.pool_config import GoldSettings
from storage import gold_records
from storage.accounts import acting
from storage.db import session_scope, snapshot_scope
from storage.pool_records import get_pool

SOURCE_ADJUDICATION = "adjudication"


def settings(engine: Engine, pool_name: str) -> GoldSettings:
    """How pool ``pool_name`` mixes in gold (the defaults before it has any)."""
    with snapshot_scope(engine) as session:
        return GoldSettings.of(get_pool(pool_name, session=session).config) or GoldSettings()


def _enable(pool) -> None:
    """Start mixing gold into a pool's work (with the default settings, or its own)."""
    pool.config = {**pool.config, "gold": vars(GoldSettings.of(pool.config) or GoldSettings())}


def configure(engine: Engine, pool_name: str, by: int | None = None, **values) -> GoldSettings:
    """Change how pool ``pool_name`` mixes in gold (``rate``, ``floor``, ``show``,
    ``min_seen``), by the lead ``by`` (None: the command line)."""
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        chosen = replace(GoldSettings.of(pool.config) or GoldSettings(), **values)
        if chosen.rate < 2 or chosen.min_seen < 1 or not -1 <= chosen.floor <= 1:
            raise LocalizedError(
                "gold_settings_invalid", rate=chosen.rate, floor=chosen.floor, seen=chosen.min_seen
            )
        pool.config = {**pool.config, "gold": vars(chosen)}
        session.add(pool)
    return chosen


def add_from_release(
    engine: Engine,
    pool_name: str,
    release: Path | str,
    *,
    sample: int | None = None,
    seed: int = 0,
    by: int | None = None,
) -> gold_records.GoldAdded:
    """Make the graded candidates of an earlier release gold items of pool ``pool_name``
    (all, or a seeded random ``sample`` of them), each with the rationale of its last
    adjudication in the release. Raises ``LocalizedError`` for a release that is not intact
    or not one this database recorded (``storage.release_records.recorded_release``), or
    of another query set or corpus version."""
    from pooling.release_folder import read_qrels, release_rationales
    from storage.release_records import recorded_release

    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        manifest = recorded_release(release, session=session)
        grades = dict(
            ((q, c), g) for q, judged in read_qrels(release).items() for c, g in judged.items()
        )
        if sample is not None and sample < len(grades):
            grades = dict(random.Random(seed).sample(sorted(grades.items()), sample))
        rationales = release_rationales(release)
        pool = get_pool(pool_name, session=session)
        _same_versions(pool, manifest, session)
        chosen = {key: (g, rationales.get(key, "")) for key, g in grades.items()}
        _enable(pool)
        return gold_records.add(
            pool, chosen, source=f"release:{manifest['release']}", user_id=by, session=session
        )


def _same_versions(pool, manifest: dict, session) -> None:
    from storage.models import CorpusVersion, QuerySet

    ours = (
        session.get(QuerySet, pool.query_set_id).name,
        session.get(CorpusVersion, pool.corpus_version_id).name,
    )
    theirs = (manifest["query_set"]["name"], manifest["corpus_version"]["name"])
    if ours != theirs:
        raise LocalizedError(
            "gold_other_versions", release=manifest["release"], theirs=" × ".join(theirs),
            ours=" × ".join(ours), pool=pool.name,
        )  # fmt: skip


def add_from_adjudications(
    engine: Engine, pool_name: str, keys: list[tuple[str, str]], by: int | None = None
) -> gold_records.GoldAdded:
    """Make adjudicated candidates ``keys`` of pool ``pool_name`` gold items, at the grade
    and with the rationale of the lead's latest decision. Raises ``LocalizedError`` for a
    candidate no lead has decided."""
    from storage.history import latest_adjudications

    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        pool = get_pool(pool_name, session=session)
        decisions = latest_adjudications(pool, session=session)
        undecided = [key for key in keys if key not in decisions]
        if undecided:
            raise LocalizedError(
                "gold_not_adjudicated", query=undecided[0][0], chunk=undecided[0][1]
            )
        chosen = {key: (decisions[key][0], decisions[key][1]) for key in keys}
        _enable(pool)
        return gold_records.add(
            pool, chosen, source=SOURCE_ADJUDICATION, user_id=by, session=session
        )


def gold_items(engine: Engine, pool_name: str) -> list[gold_records.Gold]:
    with snapshot_scope(engine) as session:
        return gold_records.items(get_pool(pool_name, session=session), session=session)


# -- how annotators do on gold ------------------------------------------------------------

CHECK_COLUMNS = ["annotator", "query_id", "chunk_id", "grade", "gold", "skipped"]
FIGURES = ["seen", "exact", "within_one", "binary_ge1", "binary_ge2", "kappa", "flagged"]


def gold_checks(engine: Engine, pool_name: str) -> pd.DataFrame:
    """Every annotator's first judgment of each gold item they were checked on, beside the
    gold grade, and the gold items they skipped (``CHECK_COLUMNS``; an unsure judgment and
    a skipped item have no grade)."""
    with snapshot_scope(engine) as session:
        rows = gold_records.checks(get_pool(pool_name, session=session), session=session)
    frame = pd.DataFrame(rows, columns=CHECK_COLUMNS)
    frame["grade"] = frame["grade"].astype("Int64")
    frame["skipped"] = frame["skipped"].astype(bool)
    return frame


def missed_grade(gold: int) -> int:
    """The grade a skipped gold item counts as: the one farthest from gold, so that skipping
    never helps an annotator's figures."""
    return 0 if gold >= 2 else 3


def _counted(checks: pd.DataFrame) -> pd.DataFrame:
    """The checks that count: graded ones, and skipped ones at ``missed_grade``."""
    checks = checks.copy()
    if "skipped" in checks:
        skipped = checks["skipped"].astype(bool)
        checks.loc[skipped, "grade"] = checks.loc[skipped, "gold"].map(missed_grade)
    return checks.dropna(subset=["grade"])


@dataclass(frozen=True)
class Standing:
    """One annotator on gold: items seen (graded and skipped ones, a skipped one as missed
    by the farthest grade; unsure ones take no part), shares
    exact, within one grade, and on the right side of grade 1 and of grade 2; quadratic
    kappa against gold with its bootstrap interval; flagged when that kappa is below the
    floor (not while it is undefined)."""

    annotator: str
    seen: int
    exact: float | None
    within_one: float | None
    binary_ge1: float | None
    binary_ge2: float | None
    kappa: Figure
    flagged: bool


def standings(checks: pd.DataFrame, floor: float, rounds: int = 500) -> list[Standing]:
    """How each annotator in ``checks`` (``gold_checks``) does on gold, by name."""
    result = []
    for annotator, mine in _counted(checks).groupby("annotator", sort=True):
        given, gold = mine["grade"].astype(int).to_numpy(), mine["gold"].astype(int).to_numpy()
        kappa = _gold_kappa(given, gold, rounds)
        result.append(
            Standing(
                annotator=annotator,
                seen=len(given),
                exact=float(np.mean(given == gold)),
                within_one=float(np.mean(np.abs(given - gold) <= 1)),
                binary_ge1=float(np.mean((given >= 1) == (gold >= 1))),
                binary_ge2=float(np.mean((given >= 2) == (gold >= 2))),
                kappa=kappa,
                # Undefined (one item, or every grade the same): no evidence below the floor yet.
                flagged=kappa.value is not None and kappa.value < floor,
            )
        )
    return result


def _gold_kappa(given: np.ndarray, gold: np.ndarray, rounds: int) -> Figure:
    """Quadratic kappa of ``given`` grades against ``gold``, with a 95% bootstrap interval
    over the gold items (each item a unit of its own)."""
    items = pd.DataFrame(
        {"query_id": np.arange(len(given)).astype(str), "grade_a": gold, "grade_b": given}
    )
    return bootstrap(items, pair_statistic("quadratic"), rounds)


STANDING_COLUMNS = ["annotator", *FIGURES[:6], "low", "high", "flagged"]


def standings_frame(found: list[Standing]) -> pd.DataFrame:
    """``standings`` as a frame to chart (``STANDING_COLUMNS``: ``kappa`` its value, ``low``
    and ``high`` its interval, missing where undefined)."""
    rows = [
        (s.annotator, s.seen, s.exact, s.within_one, s.binary_ge1, s.binary_ge2,
         s.kappa.value, s.kappa.low, s.kappa.high, s.flagged)
        for s in found
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=STANDING_COLUMNS)
    return frame.astype({c: "Float64" for c in STANDING_COLUMNS[2:-1]})


@dataclass(frozen=True)
class TeamGold:
    """A pool's gold for its lead: the settings, how many gold items, and each annotator's
    standing (``standings_frame``)."""

    settings: GoldSettings
    items: int
    standings: pd.DataFrame


def team_gold(engine: Engine, pool_name: str, rounds: int = 500) -> TeamGold | None:
    """What the lead's page shows of a pool's gold; None while the pool has none."""
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        chosen, count = GoldSettings.of(pool.config), gold_records.count(pool, session=session)
    if chosen is None or not count:
        return None
    found = standings(gold_checks(engine, pool_name), chosen.floor, rounds)
    return TeamGold(chosen, count, standings_frame(found))


def missed(checks: pd.DataFrame, annotator: str) -> pd.DataFrame:
    """The gold items ``annotator`` graded otherwise than gold (or marked unsure, or
    skipped)."""
    mine = checks[checks["annotator"] == annotator]
    return mine[mine["grade"].isna() | (mine["grade"] != mine["gold"])]


@dataclass(frozen=True)
class OwnFigures:
    """What an annotator sees of their own gold checks on "My progress": nothing until they
    have seen ``needed`` gold items (or when the lead turned it off)."""

    shown: bool
    needed: int
    standing: Standing | None
    missed: list[dict]


def own_figures(engine: Engine, pool_name: str, user_name: str) -> OwnFigures:
    """``user_name``'s figures on gold, and the gold items they missed with the grade and
    the lead's rationale, when the pool shows them."""
    chosen = settings(engine, pool_name)
    checks = gold_checks(engine, pool_name)
    mine = checks[checks["annotator"] == user_name]
    if not chosen.show or len(_counted(mine)) < chosen.min_seen:
        return OwnFigures(False, chosen.min_seen, None, [])
    from storage.candidate_texts import candidate_view

    standing = standings(mine, chosen.floor)[0]
    rationale = {(g.query_id, g.chunk_id): g.rationale for g in gold_items(engine, pool_name)}
    wrong = []
    with snapshot_scope(engine) as session:
        pool = get_pool(pool_name, session=session)
        for row in missed(checks, user_name).itertuples():  # a few: read one by one
            view = candidate_view(pool, row.query_id, row.chunk_id, session=session)
            wrong.append(
                {
                    "query_id": row.query_id,
                    "chunk_id": row.chunk_id,
                    "query_text": view.query_text,
                    "text": view.text,
                    "grade": None if pd.isna(row.grade) else int(row.grade),
                    "skipped": bool(row.skipped),
                    "gold": int(row.gold),
                    "rationale": rationale.get((row.query_id, row.chunk_id), ""),
                }
            )
    return OwnFigures(True, chosen.min_seen, standing, wrong)
