"""Coverage of a new run (equal to ir_measures' Judged@k) and model-judge calibration."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score

from annotator.cli import cli
from annotator.pools.judged import coverage
from pooling.run import Run
from storage.db import make_engine, session_scope
from storage.imports import import_judgments
from storage.pool_records import get_pool, pool_candidates
from tests.annotator.releases.test_releases import decide, judged, pooled  # noqa: F401  (fixtures)
from tests.conftest import write

QRELS = {"q1": {"a": 3, "b": 0, "c": 1}, "q2": {"x": 2}, "q3": {"z": 1}}
RUN = Run({"q1": {"a": 5.0, "d": 4.0, "b": 3.0, "e": 2.0}, "q2": {"y": 1.0}, "q9": {"a": 1.0}})


def test_judged_at_k_equals_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    report = coverage(QRELS, RUN, [1, 2, 3, 10])
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run = [
        ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.scores.items() for d, s in docs.items()
    ]
    for k in (1, 2, 3, 10):
        expected = ir_measures.calc_aggregate([ir_measures.Judged @ k], qrels, run)[
            ir_measures.Judged @ k
        ]
        assert report.overall[k] == pytest.approx(expected)
    per_query = {(r.query_id, r.k): r.judged_at_k for r in report.per_query.itertuples()}
    assert per_query[("q1", 3)] == pytest.approx(2 / 3) and per_query[("q2", 10)] == 0.0
    assert report.unjudged == [("q1", "d", 2, 4.0), ("q1", "e", 4, 2.0), ("q2", "y", 1, 1.0)]


def test_coverage_command_tops_up_a_pool_with_the_unjudged(judged, tmp_path, db_url):  # noqa: F811
    from annotator.releases.releases import create_release

    decide(judged, "q1", "a#1", 2)
    folder = create_release(judged, "v1", "p", tmp_path).folder
    run = write(tmp_path, "new.trec", "q1 Q0 a#0 1 9 new\nq1 Q0 c#0 2 8 new\nq2 Q0 a#1 1 5 new\n")
    result = CliRunner().invoke(
        cli,
        [
            "--db",
            db_url,
            "coverage",
            "--release",
            str(folder),
            "--run",
            str(run),
            "--k",
            "1,2",
            "--topup",
            "p",
        ],
    )
    assert result.exit_code == 0, result.output + result.stderr
    # q1: a#0 judged, c#0 not; q2: a#1 not judged for q2.
    assert "Judged@1: 0.500" in result.output and "Judged@2: 0.250" in result.output
    assert "pool 'p': 2 new candidates" in result.output
    with session_scope(make_engine(db_url)) as session:
        added = {
            (c.query_id, c.chunk_id): c.sources
            for c in pool_candidates(get_pool("p", session=session), session=session)
        }
    assert [(s.system, s.rank) for s in added[("q1", "c#0")]] == [("run:new", 2)]
    assert ("q2", "a#1") in added


def test_calibration_against_a_release(judged, tmp_path, db_url):  # noqa: F811
    from annotator.releases.releases import create_release

    decide(judged, "q1", "a#1", 2)
    folder = create_release(judged, "v1", "p", tmp_path).folder
    # Final grades: q1 a#0 3, a#1 2, b#0 0; q2 b#0 2, c#0 0.
    with session_scope(judged) as session:
        import_judgments(
            write(
                tmp_path, "llm.trec", "q1 0 a#0 3\nq1 0 a#1 0\nq1 0 b#0 1\nq2 0 b#0 2\nq2 0 c#0 0\n"
            ),
            session=session,
            annotator="llm",
            kind="model",
            rubric_version="v1",
        )
    result = CliRunner().invoke(
        cli, ["--db", db_url, "calibrate", "--judge", "llm", "--release", str(folder), "--json"]
    )
    assert result.exit_code == 0, result.output + result.stderr
    data = json.loads(result.stdout)
    human, judge = [3, 2, 0, 2, 0], [3, 0, 1, 2, 0]
    assert data["shared"] == 5
    assert data["kappas"]["quadratic"]["value"] == pytest.approx(
        cohen_kappa_score(human, judge, labels=[0, 1, 2, 3], weights="quadratic")
    )
    assert data["kappas"]["binary_ge2"]["value"] == pytest.approx(
        cohen_kappa_score([h >= 2 for h in human], [j >= 2 for j in judge])
    )
    assert data["confusion"][2][0] == 1
    assert data["differences"][0] == {"query_id": "q1", "chunk_id": "a#1", "human": 2, "judge": 0}
    assert data["per_slice"]["hard"]["shared"] == 2
    missing = CliRunner().invoke(
        cli, ["--db", db_url, "calibrate", "--judge", "nobody", "--release", str(folder)]
    )
    assert missing.exit_code == 2 and "user 'nobody' does not exist" in missing.stderr


def test_a_top_up_builds_only_on_the_release_the_database_recorded(judged, tmp_path, db_url):  # noqa: F811
    """Issue 21, item 3: an intact folder nobody recorded (forged) must not feed a pool."""
    from tests.annotator.evaluation.test_evaluation import make_release

    forged = make_release(tmp_path / "forged")
    run = write(tmp_path, "new.trec", "q1 Q0 a#0 1 9 new\nq1 Q0 c#0 2 8 new\n")

    def candidates() -> set:
        with session_scope(make_engine(db_url)) as session:
            pool = get_pool("p", session=session)
            return {(c.query_id, c.chunk_id) for c in pool_candidates(pool, session=session)}

    before = candidates()
    args = ["--db", db_url, "coverage", "--release", str(forged), "--run", str(run), "--k", "2"]
    refused = CliRunner().invoke(cli, [*args, "--topup", "p"])
    assert refused.exit_code == 2, refused.output + refused.stderr
    assert "the database has no release" in refused.stderr
    assert candidates() == before
    alone = CliRunner().invoke(cli, args)  # reading alone is allowed, and said so
    assert alone.exit_code == 0, alone.output + alone.stderr
    assert "checked against its own manifest only" in alone.stderr
