"""The release format, defined once: the record kinds of ``judgments.jsonl`` and each kind's
fields in the order they are written, ``model_judgments.jsonl``'s fields, and the versions
of the files that carry one. Every writer (``storage.release_lines``,
``annotator.releases.release_files``, ``annotator.releases.releases``,
``annotator.releases.carry``) and every reader (``pooling.release_folder``) names kinds and
fields through this module, so a kind added here is one both sides know
(``tests/pooling/test_release_format.py`` checks that what each writer emits is what the
reader reads).

A line of ``judgments.jsonl`` is one JSON object whose ``type`` names its kind:

- ``judgment``: one person's judgment, under a pseudonym (``annotator``); ``grade`` null
  and ``unsure`` true when the person was unsure; ``reason`` only where it was recorded
  (why the judgment was asked for; readers that do not know it pass it by);
- ``adjudication``: a lead's decision (``lead``, a pseudonym) under the pool's ``policy``;
- ``gold``: a gold item's grade, which stands whatever annotators gave it;
- ``carried``: a grade carried from an earlier release (``--accept-carried``), with the
  mapping class and the chunks it came from.

Read in order, a person's last judgment of a candidate is their current grade and a
candidate's last decision the final word (``pooling.release_folder.Tally``).
"""

from __future__ import annotations

from typing import Any

JUDGMENTS = "judgments.jsonl"
MODEL_JUDGMENTS = "model_judgments.jsonl"
SAMPLE = "sample.json"
SAMPLE_FORMAT = 2  # sample.json's "format": 2 added "draws" (a release before holds none)

KIND = "type"  # the field that names a line's kind
JUDGMENT = "judgment"
ADJUDICATION = "adjudication"
GOLD = "gold"
CARRIED = "carried"

# Each kind's fields, in the order a line holds them (``KIND`` first).
FIELDS: dict[str, tuple[str, ...]] = {
    JUDGMENT: (
        KIND,
        "annotator",
        "query_id",
        "chunk_id",
        "grade",
        "unsure",
        "note",
        "revision",
        "rubric_version",
        "seconds",
        "source",
        "reason",
        "created_at",
    ),
    ADJUDICATION: (
        KIND,
        "lead",
        "query_id",
        "chunk_id",
        "grade",
        "rationale",
        "policy",
        "created_at",
    ),
    GOLD: (KIND, "query_id", "chunk_id", "grade", "rationale", "source"),
    CARRIED: (
        KIND,
        "judge",
        "query_id",
        "chunk_id",
        "grade",
        "mapping",
        "from_release",
        "from_chunks",
    ),
}
KINDS = tuple(FIELDS)
# Fields a line of the kind holds only where there is something to say.
OPTIONAL: dict[str, frozenset[str]] = {JUDGMENT: frozenset({"reason"})}
# The kinds that are a decision on a candidate, with its rationale (the last one stands).
DECISIONS = (ADJUDICATION, GOLD)

# model_judgments.jsonl: one line per model, query and chunk (never part of the qrels).
MODEL_FIELDS = ("model", "prompt_hash", "query_id", "chunk_id", "grade")


def required(kind: str) -> tuple[str, ...]:
    """The fields every line of ``kind`` holds."""
    return tuple(name for name in FIELDS[kind] if name not in OPTIONAL.get(kind, ()))


def record(kind: str, **fields: Any) -> dict[str, Any]:
    """A line of ``judgments.jsonl`` of ``kind``, its fields in the format's order. Raises
    ``KeyError`` for an unknown kind or a required field left out, ``TypeError`` naming a
    field the kind does not have: a writer cannot drift from the format unnoticed."""
    extra = set(fields) - set(FIELDS[kind])
    if extra:
        raise TypeError(sorted(extra))
    line: dict[str, Any] = {KIND: kind}
    for name in FIELDS[kind][1:]:
        if name in fields:
            line[name] = fields[name]
        elif name not in OPTIONAL.get(kind, ()):
            raise KeyError(name)
    return line
