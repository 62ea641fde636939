"""An evaluation as a report: one plain dictionary (``report``) that the CLI prints, ``--json``
dumps and the files of ``--out`` are written from: ``report.json``, ``per_query.csv`` and
``report.md`` (release version and manifest hash, run file hashes, metric definitions,
query counts and exclusions, figures, comparisons, the gate). No Streamlit in here.

The dictionary's layout is stable and its texts are English, whatever the language of
the messages; ``report.md`` and the CLI's lines are in the user's language.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import pandas as pd

from annotator.evaluation import comparison
from annotator.evaluation.evaluation import Evaluation, low_judged
from annotator.evaluation.evaluation_text import markdown
from pooling.i18n import t
from pooling.multiple_testing import ADJUSTMENT_NAME
from pooling.resampling import INTERVAL_NAME, TEST_NAME

REPORT_FILES = ("report.json", "per_query.csv", "report.md")
MOVERS = 5  # queries listed per direction, metric and group


def _plain(value):
    """JSON-safe: NaN and missing as None, numpy numbers as Python ones."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [_plain(row) for row in frame.to_dict("records")]


def topup_command(evaluation: Evaluation, run: str, k: int) -> str:
    """The command that adds a run's unjudged chunks in its top ``k`` to the release's pool."""
    source = next(info.source for info in evaluation.runs if info.name == run)
    pool = evaluation.release.manifest.get("pool", {}).get("name", "POOL")
    folder = evaluation.release.folder
    return f"qrels coverage --release {folder} --run {source} --k {k} --topup {pool}"


def judged_warnings(evaluation: Evaluation) -> list[dict]:
    """Per run and group with a Judged@k below ``evaluation.LOW_JUDGED``: each low k's
    Judged@k and the command that tops the pool up to the deepest of them."""
    low = low_judged(evaluation)
    warnings = []
    for (run, group), rows in low.groupby(["run", "group"], sort=False):
        judged = {int(k): float(v) for k, v in zip(rows["judged_k"], rows["judged"], strict=True)}
        command = topup_command(evaluation, run, max(judged))
        warnings.append({"run": run, "group": group, "judged": judged, "command": command})
    return warnings


def report(
    evaluation: Evaluation,
    gate_checks=None,
    allow_dev_gate: bool = False,
    min_queries: int = comparison.MIN_QUERIES,
    gate_small: bool = False,
) -> dict:
    """The whole evaluation as plain data (see the module's docstring); with
    ``gate_checks`` (``comparison.parse_gate``), the gate's checks and verdict too (groups
    under ``min_queries`` reported but not gated, unless ``gate_small``). Raises what
    ``comparison.gate`` raises."""
    release, settings, scope = evaluation.release, evaluation.settings, evaluation.scope
    excluded = scope[scope["status"] == "no_relevant"]
    marked = scope[(scope["status"] == "unanswerable") & (scope["relevant"] > 0)]
    families = list(dict.fromkeys(m.family for m in settings.metrics))
    result = {
        "release": {
            "version": release.version,
            "folder": str(release.folder),
            "manifest_sha256": release.manifest_sha256,
            "query_set": release.manifest.get("query_set", {}).get("name"),
            "corpus_version": release.corpus_version,
            "chunk_map": release.parents is not None,
        },
        "settings": {
            "metrics": [m.name for m in settings.metrics],
            "relevance_threshold": settings.threshold,
            "level": settings.level,
            "split": settings.split,
            "by": settings.by,
            "context_k": settings.context_k,
            "added_for_gate": [m.name for m in settings.added_for_gate],
            "condensed": settings.condensed,
            "rounds": settings.rounds,
            "seed": settings.seed,
            "interval": INTERVAL_NAME,
            "test": TEST_NAME,
            "adjustment": ADJUSTMENT_NAME,
        },
        "definitions": {f: t(f"metric_def_{f}", "en", t=settings.threshold) for f in families},
        "runs": [
            {
                "name": info.name,
                "file": info.source,
                "sha256": info.sha256,
                "ids": info.ids,
                "reduced_to_documents": info.reduced,
                "ranked_queries": info.ranked_queries,
                "counted_without_ranking": info.without_ranking,
                "queries_not_in_release": info.unknown_queries,
            }
            for info in evaluation.runs
        ],
        "queries": {
            "in_scope": len(scope),
            "counted": int((scope["status"] == "counted").sum()),
            "unanswerable": int((scope["status"] == "unanswerable").sum()),
            "excluded": [{"query_id": q, "reason": "no_relevant"} for q in excluded["query_id"]],
            "unanswerable_with_relevant": list(marked["query_id"]),
        },
        "summary": _records(evaluation.summary),
        "judged_warnings": judged_warnings(evaluation),
        "unanswerable": _records(evaluation.unanswerable),
        "comparisons": _records(comparison.differences(evaluation)),
        "movers": _records(comparison.movers(evaluation, MOVERS)),
        "gate": None,
    }
    if gate_checks:
        checks = comparison.gate(
            evaluation, gate_checks, allow_dev_gate, min_queries=min_queries, gate_small=gate_small
        )
        result["gate"] = {
            "split": settings.split or comparison.GATE_SPLIT,
            "min_queries": min_queries,
            "gate_small": gate_small,
            "checks": _records(checks),
            "passed": bool(checks.loc[checks["gated"], "passed"].all()),
        }
    return result


def per_query_csv(evaluation: Evaluation) -> str:
    """One row per run and query (counted and unanswerable), with the query's split,
    slices and how many relevant ids it has."""
    scope = evaluation.scope[["query_id", "split", "slices", "relevant"]].assign(
        slices=lambda f: f["slices"].map(" ".join)
    )
    frame = evaluation.per_query.merge(scope, on="query_id", how="left")
    first = ["run", "query_id", "status", "split", "slices", "relevant"]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    return frame.to_csv(index=False, float_format="%.6f", lineterminator="\n")


def report_files(evaluation: Evaluation, data: dict, lang: str | None = None) -> dict[str, bytes]:
    """The three files of a report, by name."""
    return {
        "report.json": (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8"),
        "per_query.csv": per_query_csv(evaluation).encode("utf-8"),
        "report.md": markdown(data, lang).encode("utf-8"),
    }


def write_report(folder: Path | str, files: dict[str, bytes]) -> Path:
    """Write ``files`` into ``folder`` (created if needed); returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content)
    return folder


def zip_report(files: dict[str, bytes], name: str = "evaluation") -> bytes:
    """The report's files as a zip archive in a folder ``name``, for a download."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file, content in files.items():
            archive.writestr(f"{name}/{file}", content)
    return buffer.getvalue()
