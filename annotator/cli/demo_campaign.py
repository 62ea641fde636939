"""``qrels demo``'s campaign in progress: three annotators' grades over the past three days,
a lead's decisions, a gold item, a release and two runs to evaluate, so that every lead page
has something true to show at once, while the annotators still have work left.

Everything is written through the functions the app calls when people work (assignment,
adjudication, gold, releases), under a replayed clock (``storage.clock.replayed_clock``) so
that the judgments fall on the hours ``annotator/demo/campaign.json`` gives. The grades are
ours: the careful annotator's in that file (every candidate not listed is 0), the lenient
one grading a partly relevant passage 2 and a misleading one as it misleads, the strict one
a grade lower on anything short of a full answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib.resources import files
from pathlib import Path

from sqlalchemy.engine import Engine

from annotator.auth import add_user
from annotator.labeling import assignment
from annotator.pools.pool_building import system_runs
from annotator.quality import gold
from annotator.quality.adjudication import queue
from annotator.quality.pool_quality import pool_table, record_decision
from annotator.releases.releases import create_release
from pooling.systems import RetrievalOptions
from storage.accounts import find_user, get_user
from storage.clock import replayed_clock
from storage.db import session_scope
from storage.imports import import_run

POLICY = "threshold"
LEAD = ("lead", "demo-lead-pass")
EMPTY_ANNOTATORS = 2  # enough to try grading, and to see two people disagree


@dataclass
class Campaign:
    """What the demo's campaign wrote: judgments per annotator, the lead's decisions and
    gold items, the release folder and the two run files (the weaker first)."""

    judged: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    gold: int = 0
    release: Path | None = None
    runs: list[Path] = field(default_factory=list)


def plan() -> dict:
    """The campaign as written in ``annotator/demo/campaign.json``."""
    return json.loads((files("annotator") / "demo" / "campaign.json").read_text("utf-8"))


def accounts(*, empty: bool = False) -> dict[str, tuple[str, str]]:
    """The demo's accounts, name -> (role, password): the annotators, then the lead; an
    ``empty`` demo (nobody has graded) has the first two annotators only."""
    found = {name: ("annotator", a["password"]) for name, a in plan()["annotators"].items()}
    kept = dict(list(found.items())[:EMPTY_ANNOTATORS]) if empty else found
    return {**kept, LEAD[0]: ("lead", LEAD[1])}


def add_accounts(engine: Engine, *, empty: bool = False) -> None:
    """The demo's accounts (``accounts``) that are not there yet."""
    with session_scope(engine) as session:
        for name, (role, password) in accounts(empty=empty).items():
            if find_user(name, session=session) is None:
                add_user(name, role, password, session=session)


def grade(style: str, query_id: str, chunk_id: str, written: dict) -> int:
    """The grade an annotator of ``style`` gives a candidate, from the careful grades in
    ``written`` (``campaign.json``)."""
    careful = written["grades"].get(query_id, {}).get(chunk_id, 0)
    misleading = written["misleading"].get(query_id, {}).get(chunk_id)
    if style == "lenient":
        return misleading if misleading is not None else {1: 2}.get(careful, careful)
    if style == "strict":
        return {1: 0, 2: 1}.get(careful, careful)
    return careful


def load_campaign(
    engine: Engine, pool: str, folder: Path, *, now: datetime | None = None
) -> Campaign:
    """Replay the campaign on pool ``pool`` (built, nobody has judged it) of the demo
    database, ending at ``now`` (default: the hour before this one); write the release into
    ``folder / "releases"`` and the two runs into ``folder / "runs"``."""
    written, done = plan(), Campaign()
    end = now or datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    start = end.replace(hour=0)  # sessions are given as days before today and hours
    ids = _user_ids(engine)
    for session_plan in written["sessions"]:
        name = session_plan["annotator"]
        clock = _Ticking(start + timedelta(days=session_plan["day"], hours=session_plan["hour"]))
        style = written["annotators"][name]["style"]
        with replayed_clock(clock):
            for _ in range(session_plan["items"]):
                item = assignment.next_item(engine, pool, ids[name])
                if item is None:
                    break
                clock.advance(session_plan["seconds"])
                given = grade(style, item.query_id, item.chunk_id, written)
                seconds = float(session_plan["seconds"])
                assignment.submit(engine, item, ids[name], grade=given, seconds=seconds)
                done.judged[name] = done.judged.get(name, 0) + 1
    _decide(engine, pool, written, ids[LEAD[0]], end - timedelta(hours=1), done)
    releases = folder / "releases"
    done.release = create_release(
        engine, written["release"], pool, releases, allow_unresolved=True, by=ids[LEAD[0]]
    ).folder
    done.runs = _write_runs(engine, written["runs"], folder / "runs")
    return done


def _decide(engine, pool: str, written: dict, lead: int, at: datetime, done: Campaign) -> None:
    """The lead decides the first disputed candidates of the queue, at the careful grade,
    and makes the first of them a gold item."""
    table, _, _ = pool_table(engine, pool, POLICY)
    disputed = queue(table).head(written["decisions"])
    keys = list(zip(disputed["query_id"], disputed["chunk_id"], strict=True))
    reasons = written["rationales"]
    with replayed_clock(_Ticking(at)):
        for (query_id, chunk_id), slices in zip(keys, disputed["slices"], strict=True):
            final = grade("careful", query_id, chunk_id, written)
            rationale = reasons.get(query_id) or reasons["zh" if "zh" in slices else "en"]
            record_decision(engine, pool, (query_id, chunk_id), final, rationale, lead, POLICY)
            done.decisions += 1
        if keys:
            done.gold = gold.add_from_adjudications(engine, pool, keys[:1], by=lead).added


def _write_runs(engine: Engine, runs: list[dict], folder: Path) -> list[Path]:
    """The demo's runs (each: the ``system`` that ranks, its ``vector_dim`` when it is
    the vector one, the ``file`` to write) as TREC files, in the order given, each also
    imported as a run named after its file."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for run in runs:
        options = RetrievalOptions(vector_dim=run.get("vector_dim", RetrievalOptions.vector_dim))
        ranked = system_runs(engine, run["system"], options=options)[run["system"]]
        ranked.save(folder / run["file"])
        paths.append(folder / run["file"])
        # Imported too, under the file's name: the Evaluate page offers imported runs, so
        # the demo's two are scored there without an upload.
        with session_scope(engine) as session:
            import_run(folder / run["file"], session=session, system=Path(run["file"]).stem)
    return paths


def _user_ids(engine: Engine) -> dict[str, int]:
    with session_scope(engine) as session:
        return {name: get_user(name, session=session).id for name in accounts()}


class _Ticking:
    """A replayed clock that moves on only when told."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
