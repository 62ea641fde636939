"""Retrieval, pooling and evaluation over files, with no database and no app: texts and ids
in, typed results out.

What an evaluator imports is here (``__all__``): ``Qrels`` and ``Run`` with their formats,
the metrics (``parse_metrics``, ``Metric``), reading and checking a release folder
(``read_qrels``, ``read_queries``, ``read_manifest``, ``verify_release``, ``recompute``), the
grading scale and the errors a user can act on. Each name is imported from its module when
first used, so that importing one module of ``pooling`` loads no more than it needs (the
``qrels`` command starts at once)::

    from pooling import Run, parse_metrics, read_qrels
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pooling.grades import EVIDENCE, GRADES, RELEVANT
    from pooling.i18n import LocalizedError, NotFound, Refused
    from pooling.metrics import DEFAULT_METRICS, Metric, parse_metrics
    from pooling.qrels import JudgmentLine, Qrels, read_judgments
    from pooling.readers import InputError
    from pooling.release_folder import (
        read_chunk_map,
        read_chunk_places,
        read_manifest,
        read_model_judgments,
        read_qrels,
        read_queries,
        read_sample,
        recompute,
        verify_release,
    )
    from pooling.run import Retriever, Run
    from pooling.settings import Settings

__all__ = [
    "DEFAULT_METRICS",
    "EVIDENCE",
    "GRADES",
    "RELEVANT",
    "InputError",
    "JudgmentLine",
    "LocalizedError",
    "Metric",
    "NotFound",
    "Qrels",
    "Refused",
    "Retriever",
    "Run",
    "Settings",
    "parse_metrics",
    "read_chunk_map",
    "read_chunk_places",
    "read_judgments",
    "read_manifest",
    "read_model_judgments",
    "read_qrels",
    "read_queries",
    "read_sample",
    "recompute",
    "verify_release",
]

# Each public name -> the module that defines it.
_HOMES = {
    **dict.fromkeys(("EVIDENCE", "GRADES", "RELEVANT"), "pooling.grades"),
    **dict.fromkeys(("LocalizedError", "NotFound", "Refused"), "pooling.i18n"),
    **dict.fromkeys(("DEFAULT_METRICS", "Metric", "parse_metrics"), "pooling.metrics"),
    **dict.fromkeys(("JudgmentLine", "Qrels", "read_judgments"), "pooling.qrels"),
    "InputError": "pooling.readers",
    **dict.fromkeys(
        (
            "read_chunk_map",
            "read_chunk_places",
            "read_manifest",
            "read_model_judgments",
            "read_qrels",
            "read_queries",
            "read_sample",
            "recompute",
            "verify_release",
        ),
        "pooling.release_folder",
    ),
    **dict.fromkeys(("Retriever", "Run"), "pooling.run"),
    "Settings": "pooling.settings",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'pooling' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value  # found once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
