"""The pieces of the kept grades that make a restart quick (``kept.current_grades``,
``kept.progress_rows``) against the plain way they replace: a dict of positions, a lexsort,
texts encoded one by one."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from annotator.quality.kept.current_grades import Places, _of_texts, _texts
from annotator.quality.kept.progress_rows import _in_order, inserted

IDS = ["a", "b", "é", "中文", "z\u2028", "😀", "a b", "", "nul\x00"]


def test_places_find_what_a_dict_of_positions_finds():
    rng = random.Random(1)
    keys = sorted(
        {(rng.choice(IDS[:5]), rng.choice(IDS) + str(rng.randrange(30))) for _ in range(300)}
    )
    query_ids = sorted({q for q, _ in keys})
    candidate_query = np.array([query_ids.index(q) for q, _ in keys])
    query_start = np.searchsorted(candidate_query, np.arange(len(query_ids) + 1))
    chunk_ids = np.empty(len(keys), dtype=object)
    chunk_ids[:] = [c for _, c in keys]
    places, expected = Places(query_ids, query_start, chunk_ids), {k: i for i, k in enumerate(keys)}
    asked = keys + [(rng.choice(IDS), rng.choice(IDS) + str(rng.randrange(40))) for _ in range(300)]
    for key in asked:
        assert places.get(key) == expected.get(key)
        assert (key in places) == (key in expected)
        if key in expected:
            assert places[key] == expected[key]
        else:
            with pytest.raises(KeyError):
                places[key]


def test_texts_read_back_as_written():
    for texts in (IDS * 3 + ["x" * 1000], []):
        buffer = io.BytesIO()
        np.savez(buffer, **_texts("t", texts))
        saved = np.load(io.BytesIO(buffer.getvalue()), allow_pickle=False)
        assert _of_texts(saved, "t") == texts


@pytest.mark.parametrize("span", [100, 2**62])  # the second overflows: lexsort
def test_rows_in_order_as_lexsort_puts_them(span):
    rng = np.random.default_rng(3)
    position = rng.integers(0, 50, 2_000)
    first = rng.integers(0, 5, 2_000) * (span // 5)
    user = rng.permutation(2_000)  # no two rows alike
    found = _in_order(position, first, user)
    assert found.tolist() == np.lexsort((user, first, position)).tolist()
    assert _in_order(position[:0], first[:0], user[:0]).tolist() == []


def test_rows_inserted_in_room_as_np_insert_puts_them():
    """A column grown in its room, view after view, holds what ``np.insert`` would; the
    room is used again while it lasts (nothing before the first place moves), and an
    array that is not the start of the room (saved grades read back) is copied first."""
    rng = np.random.default_rng(7)
    room: dict[str, np.ndarray] = {}
    expected = column = np.sort(rng.integers(0, 1_000, 50))
    for view in range(40):
        values = np.sort(rng.integers(0, 1_200, int(rng.integers(0, 6))))
        at = np.searchsorted(column, values)
        expected = np.insert(expected, at, values)
        column = inserted(column, room, "key", at, values)
        assert column.tolist() == expected.tolist()
        if view == 20:  # as if read back from a checkpoint: not the room's
            column = column.copy()
    assert column.base is room["key"] and len(room["key"]) > len(column)
    elsewhere = np.arange(10)
    assert inserted(elsewhere, room, "key", np.array([3]), np.array([99]))[3] == 99
    assert elsewhere.tolist() == list(range(10))  # not written into
