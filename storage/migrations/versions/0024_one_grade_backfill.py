"""One grade per person per (query, chunk) in a database that had pools before the rule.

Revision ID: 0024
Revises: 0023

Since issue 36 a person's first grade of a pair gives them a judged row, on a judgment slot,
in every other pool holding the pair (``storage.one_grade``), so no pool hands it to them
again and it counts toward that pool's overlap. Those rows are made as grades arrive; a
database whose pools shared pairs before kept handing people pairs they had graded in the
other pool. This makes the rows that are missing, as the code makes them, and recounts the
tallies of the pools it touched (``pool_candidate.held``, ``query_tally.held`` and ``open``,
``annotator_tally.done`` and ``waiting``), as ``storage.tallies.recount`` counts them; then
every candidate's ``judges`` (now the people with a judged row of it) and every query's
``complete``.

A row is made for a human's grade under the rubric version of the newest human judgment (the
version in force when the database was last written to: a migration cannot read the app's
rubric folder): for each candidate whose pair they graded, with no row of theirs, or a row
not judged (held open: judged now, its revision moved so that a grade sent from an open page
is refused as stale; skipped, lapsed, or theirs as the candidate's finder: judged on the
lowest free slot, the finder's mark kept). Written in SQL and Core on tables named here, so
that later changes of the models or of ``storage`` cannot change what it does.
"""

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import count

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PAGE = 500  # candidates named in one statement

assignment = sa.table(
    "assignment",
    sa.column("id", sa.Integer),
    sa.column("pool_id", sa.Integer),
    sa.column("candidate_id", sa.Integer),
    sa.column("user_id", sa.Integer),
    sa.column("slot", sa.Integer),
    sa.column("revision", sa.Integer),
    sa.column("taken_at", sa.DateTime(timezone=True)),
    sa.column("expires_at", sa.DateTime(timezone=True)),
    sa.column("done_at", sa.DateTime(timezone=True)),
    sa.column("skipped_at", sa.DateTime(timezone=True)),
)

MISSING = sa.text(
    "SELECT DISTINCT pc.id, pc.pool_id, j.user_id, a.id, a.slot FROM pool_candidate pc"
    " JOIN judgment j ON j.query_id = pc.query_id AND j.chunk_id = pc.chunk_id"
    " JOIN app_user u ON u.id = j.user_id"
    " LEFT JOIN assignment a ON a.candidate_id = pc.id AND a.user_id = j.user_id"
    " WHERE u.kind = 'human' AND j.rubric_version = :version"
    " AND a.done_at IS NULL"
)

# The tallies of one pool, from its assignments (``storage.tallies.recount``).
RECOUNT = (
    "UPDATE pool_candidate SET held = (SELECT count(*) FROM assignment a"
    " WHERE a.candidate_id = pool_candidate.id AND a.slot IS NOT NULL) WHERE pool_id = :pool",
    "UPDATE query_tally SET"
    " held = (SELECT coalesce(sum(pc.held), 0) FROM pool_candidate pc"
    " WHERE pc.pool_id = query_tally.pool_id AND pc.query_id = query_tally.query_id),"
    " open = (SELECT count(*) FROM pool_candidate pc JOIN pool ON pool.id = pc.pool_id"
    " WHERE pc.pool_id = query_tally.pool_id AND pc.query_id = query_tally.query_id"
    " AND pc.held < coalesce(pc.required, pool.overlap))"
    " WHERE pool_id = :pool",
    "INSERT INTO annotator_tally (pool_id, user_id, done, waiting)"
    " SELECT DISTINCT a.pool_id, a.user_id, 0, 0 FROM assignment a WHERE a.pool_id = :pool"
    " AND NOT EXISTS (SELECT 1 FROM annotator_tally t"
    " WHERE t.pool_id = a.pool_id AND t.user_id = a.user_id)",
    "UPDATE annotator_tally SET"
    " done = (SELECT count(*) FROM assignment a WHERE a.pool_id = annotator_tally.pool_id"
    " AND a.user_id = annotator_tally.user_id AND a.done_at IS NOT NULL),"
    " waiting = (SELECT count(*) FROM assignment a"
    " JOIN pool_candidate pc ON pc.id = a.candidate_id JOIN pool ON pool.id = pc.pool_id"
    " WHERE a.pool_id = annotator_tally.pool_id AND a.user_id = annotator_tally.user_id"
    " AND (a.slot IS NOT NULL OR a.found_at IS NOT NULL)"
    " AND pc.held < coalesce(pc.required, pool.overlap))"
    " WHERE pool_id = :pool",
)


# ``pool_candidate.judges`` is now the people with a judged row of the candidate (a grade
# under another rubric version gives no row, so no judge: ``storage.tallies``), and each
# query's ``complete`` the candidates asked about with the pool's overlap of them.
JUDGES = (
    "UPDATE pool_candidate SET judges = (SELECT count(DISTINCT a.user_id) FROM assignment a"
    " JOIN app_user u ON u.id = a.user_id WHERE u.kind = 'human'"
    " AND a.candidate_id = pool_candidate.id AND a.done_at IS NOT NULL)",
    "UPDATE query_tally SET complete = (SELECT count(*) FROM pool_candidate pc"
    " JOIN pool ON pool.id = pc.pool_id"
    " WHERE pc.pool_id = query_tally.pool_id AND pc.query_id = query_tally.query_id"
    " AND coalesce(pc.required, 1) <> 0 AND pc.judges >= pool.overlap)",
)


def upgrade() -> None:
    bind = op.get_bind()
    _rows(bind)
    for statement in JUDGES:
        bind.execute(sa.text(statement))


def _rows(bind) -> None:
    version = bind.execute(
        sa.text(
            "SELECT j.rubric_version FROM judgment j JOIN app_user u ON u.id = j.user_id"
            " WHERE u.kind = 'human' ORDER BY j.id DESC LIMIT 1"
        )
    ).scalar()
    if version is None:
        return
    missing = bind.execute(MISSING, {"version": version}).all()
    if not missing:
        return
    used = _used_slots(bind, sorted({row[0] for row in missing}))
    now = datetime.now(UTC)
    inserts = []
    for candidate, pool_id, user, row_id, slot in sorted(missing):
        if row_id is not None and slot is not None:  # held open: judged now
            values = {"done_at": now, "revision": assignment.c.revision + 1}
        else:
            free = next(s for s in count() if s not in used[candidate])
            used[candidate].add(free)
            if row_id is None:
                inserts.append(
                    {
                        "pool_id": pool_id,
                        "candidate_id": candidate,
                        "user_id": user,
                        "slot": free,
                        "revision": 1,
                        "taken_at": now,
                        "expires_at": now,
                        "done_at": now,
                    }
                )
                continue
            values = {
                "slot": free,
                "done_at": now,
                "skipped_at": None,
                "revision": assignment.c.revision + 1,
            }
        bind.execute(sa.update(assignment).where(assignment.c.id == row_id).values(values))
    if inserts:
        bind.execute(sa.insert(assignment), inserts)
    for pool_id in sorted({row[1] for row in missing}):
        for statement in RECOUNT:
            bind.execute(sa.text(statement), {"pool": pool_id})


def _used_slots(bind, candidates: list[int]) -> dict[int, set[int]]:
    used: dict[int, set[int]] = defaultdict(set)
    for start in range(0, len(candidates), PAGE):
        page = candidates[start : start + PAGE]
        rows = bind.execute(
            sa.select(assignment.c.candidate_id, assignment.c.slot).where(
                assignment.c.candidate_id.in_(page), assignment.c.slot.is_not(None)
            )
        )
        for candidate, slot in rows:
            used[candidate].add(slot)
    return used


def downgrade() -> None:
    # The rows made stand for grades people gave: they stay, as the tallies counted them.
    pass
