"""Issue 21, item 6, the smaller holes of the second audit: ``NaN`` in JSON metadata gave a
traceback on PostgreSQL and was stored on SQLite; ranks >= 2^31 gave a traceback on
PostgreSQL; JSON nested 100,000 deep raised RecursionError; a lone surrogate gave an error
without file, line and field; pool names were not checked (ESC, empty, 20 KB); typed text
had no length limit; ``--metrics ndcg@99999999999999999999`` printed
``error: 'ndcg_cut_9223372036854775807'``. Each is refused here with a located error and
nothing written, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest

from pooling.readers import MAX_JSON_DEPTH, InputError
from storage.db import session_scope
from tests.conftest import snapshot, write
from tests.storage.test_bad_input import corpus, judgments, queries, run

DEEP = 100_000
IMPORT_CASES = [
    # (importer, file, content, where it is reported, what is said)
    (
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": "x"}\n{"_id": "d2", "text": "x", "metadata": {"w": NaN}}\n',
        "c.jsonl, line 2, field 'metadata.w'",
        "the number nan is not finite",
    ),
    (
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": "x", "metadata": {"w": [1, -Infinity]}}\n',
        "line 1, field 'metadata.w[1]'",
        "the number -inf is not finite",
    ),
    (
        queries,
        "q.jsonl",
        '{"_id": "q9", "text": "x", "metadata": {"big": 1e400}}\n',
        "q.jsonl, line 1, field 'metadata.big'",
        "the number inf is not finite",
    ),
    (
        judgments,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "grade": 1, "extra": NaN}\n',
        "j.jsonl, line 1, field 'extra'",
        "is not finite",
    ),
    (
        run,
        "r.trec",
        f"q1 Q0 tea 1 2.0 s\nq1 Q0 bike {2**31} 1.0 s\n",
        "r.trec, line 2, field 'rank'",
        f"rank {2**31} is larger than {2**31 - 1}",
    ),
    (
        run,
        "r.trec",
        "q1 Q0 tea 99999999999999999999999 2.0 s\n",
        "r.trec, line 1, field 'rank'",
        "is larger than",
    ),
    (
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": "x", "metadata": ' + "[" * DEEP + "]" * DEEP + "}\n",
        "c.jsonl, line 1:",
        f"nested more than {MAX_JSON_DEPTH} deep",
    ),
    (
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": "x", "metadata": {"a": ' + "[" * 40 + "]" * 40 + "}}\n",
        "c.jsonl, line 1, field 'metadata.a" + "[0]" * (MAX_JSON_DEPTH - 2) + "'",
        f"nested more than {MAX_JSON_DEPTH} deep",
    ),
    (
        corpus,
        "c.jsonl",
        '{"_id": "d1", "text": "half \\ud800 a character"}\n',
        "c.jsonl, line 1, field 'text'",
        "lone surrogate U+D800",
    ),
    (
        queries,
        "q.jsonl",
        '{"_id": "q9", "text": "x", "metadata": {"\\udfff": 1}}\n',
        "q.jsonl, line 1, field 'metadata'",
        "lone surrogate U+DFFF",
    ),
    (
        judgments,
        "j.jsonl",
        '{"query_id": "q1", "chunk_id": "tea", "grade": 1, "note": "\\udc80"}\n',
        "j.jsonl, line 1, field 'note'",
        "lone surrogate U+DC80",
    ),
]


@pytest.mark.parametrize(("importer", "name", "content", "where", "what"), IMPORT_CASES)
def test_imports_refuse_nan_huge_ranks_deep_json_and_surrogates_alike(
    seeded, tmp_path, importer, name, content, where, what
):
    before = snapshot(seeded)
    with pytest.raises(InputError) as caught, session_scope(seeded) as session:
        importer(write(tmp_path, name, content), session=session)
    message = caught.value.message("en")
    assert where in message and what in message, message
    assert "Traceback" not in message and "Recursion" not in message
    assert caught.value.message("zh") != message  # said in Chinese too
    assert snapshot(seeded) == before


def test_the_largest_rank_is_taken(seeded, tmp_path):
    with session_scope(seeded) as session:
        run(write(tmp_path, "r.trec", f"q1 Q0 tea {2**31 - 1} 2.0 s\n"), session=session)
