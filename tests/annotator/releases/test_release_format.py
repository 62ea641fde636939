"""The release format is defined once (``pooling.release_format``): every kind a writer emits
into ``judgments.jsonl`` is one the format defines and the reader (``Tally``) reads, with
its fields in the format's order, and every kind the format defines is one a writer emits
and the reader reads. The writers' lines on SQLite and PostgreSQL."""

from __future__ import annotations

import ast
import inspect
import textwrap

import orjson
import pytest

from annotator.releases import releases
from pooling import release_folder, release_format
from pooling.release_folder import Tally
from pooling.release_format import FIELDS, KIND, KINDS, MODEL_FIELDS, record, required
from tests.annotator.releases.test_release_lines import everything_a_release_meets
from tests.security import test_carried_same_text as carried_case

VALUES = {"grade": 2, "from_chunks": ["o1"], "unsure": False, "revision": None, "seconds": 1.5}


def full(kind: str) -> dict:
    """A line of ``kind`` with every field the format gives it."""
    return record(kind, **{name: VALUES.get(name, name) for name in FIELDS[kind][1:]})


@pytest.mark.parametrize("kind", KINDS)
def test_the_reader_reads_every_kind_of_the_format(kind):
    seen = Tally()
    seen.add(full(kind))
    assert seen != Tally()


def compared_kinds(function) -> set[str]:
    """The values (through the reader's module) that ``function`` compares a kind with."""
    names = set()
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(function)))):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                assert not isinstance(side, ast.Constant) or not isinstance(side.value, str), (
                    f"{function.__qualname__} names a kind as text, not through release_format"
                )
                if isinstance(side, ast.Name) and side.id.isupper():
                    names.add(side.id)
    found: set[str] = set()
    for name in names:
        value = getattr(release_folder, name)
        found |= {value} if isinstance(value, str) else set(value)
    return found


def test_the_reader_knows_only_the_formats_kinds():
    assert compared_kinds(Tally.add) == set(KINDS)
    assert compared_kinds(release_folder.release_rationales) <= set(KINDS)


def test_a_record_keeps_to_its_kinds_fields():
    line = full("gold")
    assert list(line) == list(FIELDS["gold"])
    with pytest.raises(TypeError):
        record("gold", query_id="q", chunk_id="c", grade=1, rationale="", source="", lead="x")
    with pytest.raises(KeyError):
        record("gold", query_id="q", chunk_id="c", grade=1, rationale="")
    with pytest.raises(KeyError):
        record("verdict", query_id="q")
    # A judgment's reason is written only where it was recorded.
    assert "reason" not in record("judgment", **{f: 0 for f in required("judgment")[1:]})


def lines_of(folder) -> list[dict]:
    return [
        orjson.loads(line)
        for line in (folder / release_format.JUDGMENTS).read_bytes().split(b"\n")
        if line
    ]


def a_release_of_everything(engine, tmp_path):
    everything_a_release_meets(engine, tmp_path)
    return releases.create_release(
        engine, "v1", "p", tmp_path / "out", allow_unresolved=True
    ).folder


def a_release_accepting_carried_grades(engine, tmp_path):
    carried_case.test_only_a_chunk_with_the_same_text_gets_an_accepted_grade(engine, tmp_path)
    return tmp_path / "v2"


# Each writer's release and the kinds its judgments.jsonl holds.
WRITTEN = {
    a_release_of_everything: {"judgment", "adjudication", "gold"},
    a_release_accepting_carried_grades: {"carried"},
}


def test_every_kind_of_the_format_is_one_a_writer_emits():
    assert set().union(*WRITTEN.values()) == set(KINDS)


@pytest.mark.parametrize("release", WRITTEN, ids=lambda f: f.__name__)
def test_every_kind_a_writer_emits_is_one_the_format_defines(engine, tmp_path, release):
    folder = release(engine, tmp_path)
    written = lines_of(folder)
    for line in written:
        kind = line[KIND]
        assert kind in KINDS, line
        assert list(line) == [name for name in FIELDS[kind] if name in line], line
        assert set(required(kind)) <= set(line), line
    assert {line[KIND] for line in written} == WRITTEN[release]
    for line in (folder / release_format.MODEL_JUDGMENTS).read_bytes().splitlines():
        assert tuple(orjson.loads(line)) == MODEL_FIELDS
