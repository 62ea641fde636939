"""Issue 21, item 6, the smaller holes of the second audit: ``NaN`` in JSON metadata gave a
traceback on PostgreSQL and was stored on SQLite; ranks >= 2^31 gave a traceback on
PostgreSQL; JSON nested 100,000 deep raised RecursionError; a lone surrogate gave an error
without file, line and field; pool names were not checked (ESC, empty, 20 KB); typed text
had no length limit; ``--metrics ndcg@99999999999999999999`` printed
``error: 'ndcg_cut_9223372036854775807'``. Each is refused here with a located error and
nothing written, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest

from annotator.auth import add_user
from annotator.labeling import assignment
from annotator.labeling.search import ManualSearch
from annotator.pools.pool_building import build_pool
from annotator.quality import pool_quality
from pooling.i18n import LocalizedError
from pooling.metrics import MAX_CUTOFF, parse_metrics
from pooling.readers import MAX_JSON_DEPTH, MAX_NAME, MAX_SEARCH, MAX_TEXT, InputError
from pooling.run import Run
from storage import accounts
from storage.db import session_scope
from storage.imports import import_corpus, import_queries, import_run
from tests.annotator.evaluation.test_evaluation import BASE, make_release
from tests.annotator.releases.test_releases import CORPUS, RUN
from tests.conftest import run_qrels, snapshot, write
from tests.storage.test_bad_input import corpus, judgments, queries, run
from tests.storage.test_imports import jsonl

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


NAMES = [  # (a name, what is said of it)
    ("p\x1b[2J", "the pool name holds the control character U+001B"),
    ("two\nlines", "the pool name holds the control character U+000A"),
    ("", "the pool name must not be empty"),
    ("   ", "the pool name must not be empty"),
    ("p" * 20_000, f"the pool name is 20000 characters long; at most {MAX_NAME} are taken"),
]


@pytest.mark.parametrize(("name", "said"), NAMES)
def test_pool_names_are_checked(pooled, name, said):
    before = snapshot(pooled)
    with pytest.raises(LocalizedError) as caught:
        build_pool(pooled, name, systems="run:r", depth=5)
    assert said in caught.value.message("en")
    assert caught.value.message("zh") != caught.value.message("en")
    assert snapshot(pooled) == before


def test_names_given_on_import_and_to_accounts_are_checked(pooled, tmp_path):
    before = snapshot(pooled)
    queries_file = write(tmp_path, "q.jsonl", '{"_id": "q7", "text": "x"}\n')
    attempts = [
        (lambda s: import_run(write(tmp_path, "r.trec", RUN), session=s, system="r\x9b"),
         "the system name holds the control character U+009B"),
        (lambda s: import_queries(queries_file, session=s, name=""),
         "the query set name must not be empty"),
        (lambda s: import_corpus(write(tmp_path, "c.jsonl", jsonl(CORPUS)), session=s,
                                 version="c" * (MAX_NAME + 1)),
         f"the corpus version name is {MAX_NAME + 1} characters long"),
        (lambda s: add_user("a" * (MAX_NAME + 1), "annotator", "password-1", session=s),
         f"the account name is {MAX_NAME + 1} characters long"),
        (lambda s: add_user(" ", "annotator", "password-1", session=s),
         "the account name must not be empty"),
    ]  # fmt: skip
    for attempt, said in attempts:
        with pytest.raises(LocalizedError) as caught, session_scope(pooled) as session:
            attempt(session)
        assert said in caught.value.message("en")
    assert snapshot(pooled) == before


def test_typed_text_has_limits_enforced_on_the_server(pooled):
    with session_scope(pooled) as session:
        ann1 = accounts.get_user("ann1", session=session).id
        boss = accounts.get_user("boss", session=session).id
    item = assignment.next_item(pooled, "p", ann1)
    before = snapshot(pooled)
    long_note = "n" * (MAX_TEXT + 1)
    with pytest.raises(LocalizedError, match=f"the note is {MAX_TEXT + 1} characters long"):
        assignment.submit(pooled, item, ann1, grade=2, note=long_note)
    with pytest.raises(LocalizedError, match=f"at most {MAX_TEXT} are taken"):
        pool_quality.record_decision(pooled, "p", ("q1", "a#1"), 2, long_note, boss, "threshold")
    with pytest.raises(LocalizedError, match=f"the search is {MAX_SEARCH + 1} characters long"):
        ManualSearch(pooled, "p").search("alpha " * (MAX_SEARCH // 6) + "x" * 3)
    after = snapshot(pooled)
    after.pop("assignment"), before.pop("assignment")  # the hold is renewed as she works
    assert after == before
    assignment.submit(pooled, item, ann1, grade=2, note="n" * MAX_TEXT)  # the limit is taken
    assert ManualSearch(pooled, "p").search("alpha " * (MAX_SEARCH // 6)) is not None


@pytest.mark.parametrize(
    ("metrics", "said"),
    [
        ("ndcg@99999999999999999999", f"the cutoff is larger than {MAX_CUTOFF}"),
        ("recall@²", "recall@²"),
        ("ndcg@0", "ndcg@0"),
    ],
)  # fmt: skip
def test_a_cutoff_too_large_or_not_a_number_is_refused_plainly(pooled, tmp_path, metrics, said):
    release = make_release(tmp_path / "v1")
    Run(BASE, "base").save(tmp_path / "base.trec")
    url = pooled.url.render_as_string(hide_password=False)
    result = run_qrels(url, "--lang", "en", "evaluate", "--release", release, "--run",
                       tmp_path / "base.trec", "--metrics", metrics, expect=2)  # fmt: skip
    assert said in result.output + result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert "ndcg_cut_" not in result.output + result.stderr
    assert parse_metrics(f"ndcg@{MAX_CUTOFF}")[0].k == MAX_CUTOFF
