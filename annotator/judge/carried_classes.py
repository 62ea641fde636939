"""The mapping classes of the grades a carried judge (``carried:<release>``) holds: what
``annotator.judge.calibration`` splits a carried judge's agreement by. Read from the
mappings the database keeps (``storage.carry_records``) under the pure rules of
``pooling.carry_mapping``, so that the judge needs nothing of the room that carries.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from pooling.carry_mapping import carried_chunks, carried_grades
from storage import carry_records
from storage.db import referenced, snapshot_scope


def judge_classes(engine: Engine, judge: str, corpus_version: str) -> dict[tuple[str, str], str]:
    """(query id, chunk id) -> mapping class of the grades ``judge`` carried onto
    ``corpus_version``; empty for a judge that carried nothing there."""
    from storage.models import CorpusVersion

    classes: dict[tuple[str, str], str] = {}
    with snapshot_scope(engine) as session:
        for pool in carry_records.carried_pools(session=session):
            version = referenced(CorpusVersion, pool.corpus_version_id, session=session)
            if pool.config["carried"]["judge"] == judge and version.name == corpus_version:
                rows = carry_records.mapping_rows(pool, session=session)
                classes.update(
                    {
                        key: mapping
                        for key, (_, mapping) in carried_grades(carried_chunks(rows)).items()
                    }
                )
    return classes
