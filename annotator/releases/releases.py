"""Versioned, immutable qrels releases: create and compare them.

A release is a folder an evaluator can load as it is (trec_eval, ir_measures, ranx, BEIR)
and a manifest that says which corpus, chunking, query set, rubric and pool the grades
belong to, with the sha256 of every file (``annotator.releases.release_files`` writes it,
``pooling.release_folder`` reads it). It is made from one snapshot of the pool, read in a
single transaction: the history's lines are streamed into ``judgments.jsonl``
(``storage.release_lines.release_history``), the grades are resolved from the rows of those
lines by a pure function (``annotator.quality.adjudication.resolve``), then the rest is
written. A version is
written once: never again, never changed.

A version names a folder, so it is checked in one place (``check_version``) for the CLI and
the app alike: letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit, so it
can be neither a path (``../x``, ``/abs/x``, ``a/b``) nor ``.`` or ``..``. A release's folder
is always ``ROOT/VERSION``: ``qrels release create --out ROOT``, the app's ``release_dir()``,
and ``create_release(..., root)``; an existing folder is refused, never written into. It is
written as a hidden sibling and renamed into place in the transaction that records the
release, so a failed or racing create leaves neither a folder nor a record behind; one
killed outright leaves its hidden folder, never a release (no version starts with a dot),
and the next create beside it removes it (``annotator.releases.staging``).
"""

from __future__ import annotations

import contextlib
import gc
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from pathlib import Path

import pandas as pd
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from annotator.quality.adjudication import resolve
from annotator.releases import carry
from annotator.releases.release_files import (
    write_history,
    write_judgments,
    write_model_judgments,
    write_release,
    write_sample,
)
from annotator.releases.staging import staging_folder
from pooling.grades import DEFAULT_POLICY, GRADES, check_policy
from pooling.i18n import LocalizedError
from pooling.release_folder import MANIFEST, read_manifest, read_qrels, valid_version
from pooling.release_format import GOLD, record
from pooling.settings import current
from storage import history, release_lines, release_records, sample_records
from storage.accounts import acting
from storage.db import session_scope, snapshot_scope
from storage.pool_records import get_pool


class ReleaseError(LocalizedError):
    """A release that cannot be written: unresolved candidates, a version that exists or
    is not a safe name, or a folder that exists."""


def check_version(version: str) -> str:
    """``version`` as given when it is a safe release name (see the module's docstring);
    raises ``ReleaseError`` otherwise."""
    if not valid_version(version):
        raise ReleaseError("release_version_invalid", version=version)
    return version


@dataclass
class ReleaseResult:
    version: str
    folder: Path
    manifest: dict


def create_release(
    engine: Engine,
    version: str,
    pool_name: str,
    root: Path | str | None = None,
    *,
    policy: str = DEFAULT_POLICY,
    allow_unresolved: bool = False,
    # A pool built by `qrels carry` records its lineage (``derived_from``); with this, its
    # same-text grades of dev queries nobody re-judged are published (carry.accept_carried).
    accept_carried: bool = False,
    now: datetime | None = None,
    by: int | None = None,
) -> ReleaseResult:
    """Write release ``version`` of pool ``pool_name`` into the new folder ``root / version``
    (``root`` by default the app's ``release_dir()``: the CLI's ``--out``, the app and this
    function name a release's folder one way) and record it, by the lead ``by`` (None: the
    command line). Everything is read in one read-only snapshot and the judgments are
    streamed into the folder, so a release of a million judgments neither blocks annotators
    nor holds its history in memory (only each person's current grades). Raises
    ``ReleaseError`` for a version that is not a safe name or exists already (also when
    another create of it wins a race), while candidates are unresolved (unless
    ``allow_unresolved``: they are left out and counted), or when its folder exists;
    ``Refused`` for an account that is not an enabled lead's. Nothing is left behind when
    it fails."""
    check_version(version)
    check_policy(policy)
    out = Path(root if root is not None else release_dir()) / version
    with _collector_paused(), snapshot_scope(engine) as session:
        acting(by, "lead", session=session)
        if release_records.find_release(version, session=session) is not None:
            raise ReleaseError("release_exists", version=version)
        pool = get_pool(pool_name, session=session)
        snapshot = release_records.read_snapshot(pool, session=session)
        lineage = carry.derived_from(pool)

        def write(folder: Path) -> tuple[dict, str]:
            # judgments.jsonl first, in one read of the history: the grades are decided
            # from the rows of the very lines written, as ``pooling.release_folder.recompute``
            # decides them reading the lines back.
            lines = release_lines.release_history(
                pool, session=session, names=(snapshot.query_ids, snapshot.chunk_ids)
            )
            frame, rubrics = write_history(folder, lines)
            decided = release_lines.release_decisions(pool, session=session)
            write_judgments(folder, chain(decided, _gold_records(snapshot)))
            resolution = resolve(
                frame,
                snapshot.decisions,
                lines.unjudged(),
                snapshot.not_chosen,
                policy=policy,
                overlap=pool.overlap,
                gold={(g.query_id, g.chunk_id): g.grade for g in snapshot.gold},
            )
            if accept_carried:
                splits = {query.query_id: query.split for query in snapshot.queries}
                judged = set(zip(frame["query_id"], frame["chunk_id"], strict=True))
                accepted = carry.accept_carried(engine, pool_name, resolution, splits, judged)
                resolution = accepted.resolution
                write_judgments(folder, accepted.records)  # marked "carried"
                assert lineage is not None  # accept_carried refuses a pool not carried
                lineage["accepted_carried"] = len(accepted.records)
                lineage["refused_carried_test_split"] = accepted.refused_test_split
            if resolution.unresolved and not allow_unresolved:
                query_id, chunk_id = resolution.unresolved[0]
                raise ReleaseError(
                    "release_unresolved",
                    count=len(resolution.unresolved),
                    query=query_id,
                    chunk=chunk_id,
                )
            # What metric estimates need beside the qrels: the models' grades (never part
            # of the qrels) and the sample of queries people judged completely.
            write_model_judgments(folder, history.model_candidate_judgments(pool, session=session))
            sample = sample_records.current_sample(pool, session=session)
            write_sample(folder, sample.to_dict() if sample is not None else None)
            return write_release(
                folder,
                version,
                snapshot,
                resolution,
                frame,
                snapshot.parents,
                rubrics,
                policy=policy,
                now=now,
                derived_from=lineage,
                places=snapshot.places,
            )

        manifest = _publish(engine, out, version, pool_name, write, by)
    return ReleaseResult(version, out, manifest)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a release is made, then as it was: a
    release makes millions of tuples and strings, none in a cycle, and the collector's
    passes over them, again and again as they were made, took a fifth of its time at L."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _gold_records(snapshot: release_records.ReleaseSnapshot) -> list[dict]:
    """The pool's gold items, for ``judgments.jsonl``: their grades stand."""
    return [
        record(
            GOLD,
            query_id=g.query_id,
            chunk_id=g.chunk_id,
            grade=g.grade,
            rationale=g.rationale,
            source=g.source,
        )
        for g in snapshot.gold
    ]


def _publish(
    engine: Engine,
    out: Path,
    version: str,
    pool_name: str,
    write: Callable[[Path], tuple[dict, str]],
    by: int | None,
) -> dict:
    """Write the release into a hidden sibling of ``out`` (``write`` returns the manifest
    and its sha256), then, in one transaction, record it (by the lead ``by``) and rename the
    folder into place. Whatever fails (the files, a refusal while writing them, the record,
    the rename, the commit), the sibling or the renamed folder is removed, with the folders
    made to hold it, and the record rolled back. Returns the manifest."""
    if out.exists():
        raise ReleaseError("release_folder_exists", folder=out)
    made = [folder for folder in out.parents if not folder.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = staging_folder(out.parent, out.name)  # a killed create's leftovers go first
    placed = False
    try:
        manifest, digest = write(staging)
        with session_scope(engine) as session:
            acting(by, "lead", session=session)
            pool = get_pool(pool_name, session=session)
            try:
                release_records.record_release(version, pool, manifest, digest, session=session)
            except IntegrityError:  # a create of the same version committed first
                raise ReleaseError("release_exists", version=version) from None
            try:
                staging.rename(out)  # atomic; refused when ``out`` holds anything
            except OSError:
                raise ReleaseError("release_folder_exists", folder=out) from None
            placed = True
    except BaseException:
        shutil.rmtree(out if placed else staging, ignore_errors=True)
        for folder in made:  # innermost first; one that holds something else stays
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return manifest


JUDGMENT, CHANGE = ("query_id", "id", "grade"), ("query_id", "id", "before", "after")


def _named(keys: tuple[str, ...], values: tuple) -> dict:
    return dict(zip(keys, values, strict=True))


@dataclass
class ReleaseDiff:
    added: list[tuple[str, str, int]]
    removed: list[tuple[str, str, int]]
    changed: list[tuple[str, str, int, int]]
    metrics: dict[str, tuple[float, float]]  # name -> (in A, in B)
    counted: tuple[int, int] | None = None  # the queries the metrics average over, in A and B
    # "chunk", or "document" when the releases are on different corpus versions, whose
    # chunk ids mean different things: ``corpus_versions`` names them (A, B).
    level: str = "chunk"
    corpus_versions: tuple[str, str] | None = None

    def to_dict(self) -> dict:
        """Plain data for ``qrels release diff --json``: the figures first (each metric's
        value in A and B and the change, floats unrounded), then the judgments."""
        return {
            "level": self.level,
            "corpus_versions": list(self.corpus_versions) if self.corpus_versions else None,
            "metrics": {
                name: {"a": before, "b": after, "change": after - before}
                for name, (before, after) in self.metrics.items()
            },
            "counted_queries": (
                None if self.counted is None else {"a": self.counted[0], "b": self.counted[1]}
            ),
            "counts": {k: len(getattr(self, k)) for k in ("added", "removed", "changed")},
            "added": [_named(JUDGMENT, r) for r in self.added],
            "removed": [_named(JUDGMENT, r) for r in self.removed],
            "changed": [_named(CHANGE, r) for r in self.changed],
        }


def diff_releases(a: Path | str, b: Path | str) -> ReleaseDiff:
    """Judgments added, removed and changed from release ``a`` to ``b`` (by document when
    they are on different corpus versions: ``comparison_level``). A run's figures under
    each (``metrics``, ``counted``) are evaluation's to compute:
    ``annotator.evaluation.comparison.run_under_two_releases``, at the diff's ``level``."""
    level, versions = comparison_level(a, b)
    judged = "chunk" if level == "chunk" else "doc"
    old, new = read_qrels(a, judged), read_qrels(b, judged)
    flat_old = {(q, c): g for q, d in old.items() for c, g in d.items()}
    flat_new = {(q, c): g for q, d in new.items() for c, g in d.items()}
    return ReleaseDiff(
        added=sorted((q, c, g) for (q, c), g in flat_new.items() if (q, c) not in flat_old),
        removed=sorted((q, c, g) for (q, c), g in flat_old.items() if (q, c) not in flat_new),
        changed=sorted(
            (q, c, flat_old[(q, c)], g)
            for (q, c), g in flat_new.items()
            if (q, c) in flat_old and flat_old[(q, c)] != g
        ),
        metrics={},
        level=level,
        corpus_versions=versions if level == "document" else None,
    )


def comparison_level(a: Path | str, b: Path | str) -> tuple[str, tuple[str, str]]:
    """``"chunk"`` for two releases on one corpus version, else ``"document"`` (chunk ids
    of two corpus versions are not comparable: each release's ``qrels-doc.trec`` is), with
    the two corpus versions' names."""
    versions = tuple(read_manifest(folder)["corpus_version"]["name"] for folder in (a, b))
    return ("chunk" if versions[0] == versions[1] else "document"), versions


def recorded_problems(engine: Engine, folder: Path | str) -> list[str]:
    """Why ``folder`` is not the release the database recorded
    (``storage.release_records.recorded_problems``); empty when it is that release."""
    with snapshot_scope(engine) as session:
        return release_records.recorded_problems(folder, session=session)


@dataclass(frozen=True)
class ReleaseRecord:
    """A release as the database recorded it, with what its manifest counts."""

    version: str
    pool: str
    created_at: datetime
    graded: int | None
    per_grade: dict[str, int] = field(default_factory=dict)  # "0".."3" -> judgments
    alpha: float | None = None  # Krippendorff's alpha (ordinal) of the judgments behind it


def list_releases(engine: Engine) -> list[ReleaseRecord]:
    """Every recorded release, oldest first."""
    with snapshot_scope(engine) as session:
        return [
            ReleaseRecord(
                r.version,
                r.manifest.get("pool", {}).get("name"),
                r.created_at,
                r.manifest.get("counts", {}).get("judged_candidates"),
                r.manifest.get("counts", {}).get("per_grade", {}),
                r.manifest.get("agreement", {}).get("krippendorff_alpha_ordinal"),
            )
            for r in release_records.list_releases(session=session)
        ]


HISTORY_GRADES = [f"grade_{g}" for g in GRADES]


def release_history(records: list[ReleaseRecord]) -> pd.DataFrame:
    """One row per release, oldest first: ``version``, ``pool``, ``created``, ``graded``
    (judged candidates), ``grade_0``..``grade_3`` (how many of them have each grade) and
    ``alpha`` (missing where it was undefined)."""
    frame = pd.DataFrame(
        [
            (
                r.version,
                r.pool,
                r.created_at,
                r.graded,
                *(int(r.per_grade.get(str(g), 0)) for g in GRADES),
                r.alpha,
            )
            for r in records
        ],
        columns=["version", "pool", "created", "graded", *HISTORY_GRADES, "alpha"],
    ).astype({"graded": "Int64", "alpha": "Float64"})
    # SQLite gives back the UTC time it stored without its zone: read as UTC.
    frame["created"] = pd.to_datetime(frame["created"], utc=True)
    return frame


def release_dir() -> Path:
    """Where the app writes releases: ``$QRELS_RELEASE_DIR``, else ``releases/``
    (``pooling.settings``)."""
    return current().release_dir


def recorded_folder(engine: Engine, version: str) -> Path:
    """The folder of release ``version`` in ``release_dir()`` once it passed the one check
    of a release folder (``storage.release_records.recorded_release``): what the app reads
    a release from. Raises ``LocalizedError`` for a folder that is not the release the
    database recorded, or a version that is not one."""
    folder = release_dir() / check_version(version)
    with snapshot_scope(engine) as session:
        release_records.recorded_release(folder, session=session)
    return folder


def app_releases(engine: Engine) -> list[str]:
    """The versions the database recorded whose folder is in ``release_dir()``, newest first
    (a folder being written, or one nobody recorded, is not offered)."""
    folder = release_dir()
    recorded = reversed(list_releases(engine))
    return [r.version for r in recorded if (folder / r.version / MANIFEST).is_file()]
