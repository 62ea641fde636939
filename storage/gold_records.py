"""Gold items in the database: (query, chunk) pairs of a pool whose grade a lead settled,
mixed into annotators' work (``annotator.quality.gold``).

A gold item is a candidate of its pool that needs no judgments of its own (``required``
0): it never fills up like ordinary work, and its final grade in a release is the gold
grade, whatever annotators give it. A share of the pool's gold items is part of each
annotator's work (``own_gold``): offered as one more candidate of its query, in their own
order, counted in their progress from the start, and judged on a slot of its own beyond any
other (``storage.slots.claim(..., unbounded=True)``), so the check counts toward nobody's
overlap. Every function takes a keyword-only ``session`` and never commits."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, func, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, select

from pooling.i18n import t
from pooling.pool import Candidate, Source, shuffle_key
from storage import tallies
from storage.catalog import chunk_keys, query_keys
from storage.history import latest_judgments
from storage.models import (
    NOT_ASKED,
    Assignment,
    Chunk,
    CorpusVersion,
    GoldItem,
    Judgment,
    Pool,
    PoolCandidate,
    Query,
    QuerySet,
    QueryTally,
    User,
)
from storage.pool_records import GOLD_PREFIX, ensure_candidates
from storage.tallies import NO_SYNC, SlotChange


@dataclass(frozen=True)
class GoldAdded:
    """What adding gold did: items added, pairs that were gold already, and how many of
    the added ones were not candidates of the pool before."""

    added: int
    already: int
    new_candidates: int

    def message(self, pool: str, lang: str | None = None) -> str:
        return t(
            "gold_added", lang, pool=pool, added=self.added, new=self.new_candidates,
            already=self.already,
        )  # fmt: skip


def add(
    pool: Pool,
    grades: dict[tuple[str, str], tuple[int, str]],
    *,
    source: str,
    user_id: int | None,
    session: Session,
) -> GoldAdded:
    """Make the pairs of ``grades`` ((query id, chunk id) -> (grade, rationale)) gold items
    of ``pool``, from ``source`` (``"adjudication"``, ``"release:<version>"``), by
    ``user_id`` (None: the command line). A pair gold already is left as it is."""
    queries = query_keys(session.get(QuerySet, pool.query_set_id), session=session)
    chunks = chunk_keys(session.get(CorpusVersion, pool.corpus_version_id), session=session)
    present = {
        (q, c)
        for q, c in session.exec(
            select(GoldItem.query_id, GoldItem.chunk_id).where(GoldItem.pool_id == pool.id)
        )
    }
    wanted = {
        pair: value
        for pair, value in grades.items()
        if (queries[pair[0]], chunks[pair[1]]) not in present
    }
    provenance = [Source(f"{GOLD_PREFIX}{source}", None, None)]
    ids, new = ensure_candidates(
        pool,
        [Candidate(q, c, list(provenance)) for q, c in sorted(wanted)],
        session=session,
        required=NOT_ASKED,
    )
    asked = [ids[key] for key in ids if key not in new]  # candidates that were ordinary work
    # Each check's judgment says it was asked as a gold item (``record_judgment`` copies
    # the candidate's reason).
    session.execute(
        update(PoolCandidate).where(PoolCandidate.id.in_(list(ids.values()))).values(reason="gold"),
        execution_options=NO_SYNC,
    )
    tallies.apply(
        pool,
        [SlotChange(c, required=NOT_ASKED, set_required=True) for c in sorted(asked)],
        session=session,
    )
    for (query_id, chunk_id), (grade, rationale) in sorted(wanted.items()):
        session.add(
            GoldItem(
                pool_id=pool.id,
                query_id=queries[query_id],
                chunk_id=chunks[chunk_id],
                grade=grade,
                rationale=rationale,
                source=source,
                user_id=user_id,
            )
        )
    session.flush()
    return GoldAdded(len(wanted), len(grades) - len(wanted), len(new))


def _is_gold():
    return exists().where(
        GoldItem.pool_id == PoolCandidate.pool_id,
        GoldItem.query_id == PoolCandidate.query_id,
        GoldItem.chunk_id == PoolCandidate.chunk_id,
    )


def not_gold():
    """A condition on ``PoolCandidate``: it is not a gold item (active pooling never
    chooses one, and a release does not count one as never asked)."""
    return ~_is_gold()


@dataclass(frozen=True)
class OwnGold:
    """A gold item as one annotator's work: its candidate, and whether they judged it, hold
    it now, skipped it, and whether it counts in their pool's progress yet."""

    candidate_id: int
    query_key: int
    chunk_key: int
    done: bool
    held: bool
    skipped: bool
    counted: bool

    @property
    def pending(self) -> bool:
        """Still to be handed to them (skipped ones too: they come back)."""
        return not self.done and not self.held


SCALE = 1_000_000  # resolution of the share of gold items each annotator is checked on


def own_gold(pool: Pool, user: User, rate: int, *, session: Session) -> list[OwnGold]:
    """The gold items that are part of ``user``'s work in ``pool``: a share of the pool's
    gold items drawn for them (so that about one item in ``rate`` of their work is gold),
    and every one they were handed already. A gold item is work of its query like any
    candidate: it counts in their progress while its query has work open or once they
    started that query, so nothing changes when it comes up. One statement, whose rows grow
    with the pool's gold items only."""
    other = aliased(PoolCandidate)
    mine = aliased(Assignment)
    started = (
        exists()
        .where(mine.user_id == user.id, mine.pool_id == pool.id, mine.candidate_id == other.id)
        .where(other.pool_id == pool.id, other.query_id == GoldItem.query_id)
    )
    going = exists().where(
        QueryTally.pool_id == pool.id, QueryTally.query_id == GoldItem.query_id, QueryTally.open > 0
    )
    candidates = (
        select(func.coalesce(func.sum(QueryTally.candidates), 0))
        .where(QueryTally.pool_id == pool.id)
        .scalar_subquery()
    )
    rows = session.exec(
        select(
            GoldItem.id,
            PoolCandidate.id,
            PoolCandidate.query_id,
            PoolCandidate.chunk_id,
            Assignment.id,
            Assignment.done_at,
            Assignment.slot,
            Assignment.skipped_at,
            started | going,
            candidates,
        )
        .select_from(GoldItem)
        .join(
            PoolCandidate,
            (PoolCandidate.pool_id == GoldItem.pool_id)
            & (PoolCandidate.query_id == GoldItem.query_id)
            & (PoolCandidate.chunk_id == GoldItem.chunk_id),
        )
        .join(
            Assignment,
            (Assignment.candidate_id == PoolCandidate.id) & (Assignment.user_id == user.id),
            isouter=True,
        )
        .where(GoldItem.pool_id == pool.id)
        .order_by(GoldItem.id)
    ).all()
    if not rows:
        return []
    ordinary = max(rows[0][-1] - len(rows), 0)
    # About one in ``rate`` of an annotator's items: ordinary / (rate - 1) gold items.
    share = min(1.0, ordinary / (max(rate, 2) - 1) / len(rows))
    found = []
    for gold, candidate, query, chunk, held_row, done_at, slot, skipped_at, counted, _ in rows:
        drawn = shuffle_key(f"gold:{pool.id}:{user.id}", str(gold), "") % SCALE < share * SCALE
        if drawn or held_row is not None:
            found.append(
                OwnGold(
                    candidate,
                    query,
                    chunk,
                    done=done_at is not None,
                    held=done_at is None and slot is not None,
                    skipped=skipped_at is not None,
                    counted=bool(counted) or held_row is not None,
                )
            )
    return found


@dataclass(frozen=True)
class Gold:
    """A gold item as a lead or a release reads it."""

    query_id: str
    chunk_id: str
    grade: int
    rationale: str
    source: str
    created_at: datetime


def items(pool: Pool, *, session: Session) -> list[Gold]:
    """The pool's gold items, by query and chunk id."""
    rows = session.exec(
        select(
            Query.query_id,
            Chunk.chunk_id,
            GoldItem.grade,
            GoldItem.rationale,
            GoldItem.source,
            GoldItem.created_at,
        )
        .join(Query, Query.id == GoldItem.query_id)
        .join(Chunk, Chunk.id == GoldItem.chunk_id)
        .where(GoldItem.pool_id == pool.id)
        .order_by(Query.query_id, Chunk.chunk_id)
    )
    return [Gold(*row) for row in rows]


def count(pool: Pool, *, session: Session) -> int:
    """How many gold items the pool has."""
    statement = select(func.count()).select_from(GoldItem).where(GoldItem.pool_id == pool.id)
    return session.exec(statement).one()


def _on_gold(pool: Pool):
    """Judgments of the pool's gold items, joined to the gold item."""
    return (
        GoldItem,
        (GoldItem.query_id == Judgment.query_id)
        & (GoldItem.chunk_id == Judgment.chunk_id)
        & (GoldItem.pool_id == pool.id),
    )


def checks(pool: Pool, *, session: Session) -> list[tuple]:
    """Each human's first judgment of each gold item, among those made after it became gold
    (an earlier one was not a check: nobody knew; a later change, made perhaps after seeing
    the answer on My progress, does not count), and each gold item they were handed and gave
    back unjudged (skipped, or let its hold lapse): ``(annotator, query id, chunk id, grade,
    gold grade, skipped)``; unsure judgments and skipped items have grade None."""
    first = latest_judgments(
        User.kind == "human",
        Judgment.created_at >= GoldItem.created_at,
        join=_on_gold(pool),
        first=True,
    )
    rows = session.exec(
        select(User.name, Query.query_id, Chunk.chunk_id, Judgment.grade, GoldItem.grade)
        .join(first, first.c.id == Judgment.id)
        .join(User, User.id == Judgment.user_id)
        .join(Query, Query.id == Judgment.query_id)
        .join(Chunk, Chunk.id == Judgment.chunk_id)
        .join(*_on_gold(pool))
    )
    found = [(*row, False) for row in rows]
    skipped = session.exec(
        select(User.name, Query.query_id, Chunk.chunk_id, GoldItem.grade)
        .select_from(Assignment)
        .join(PoolCandidate, PoolCandidate.id == Assignment.candidate_id)
        .join(
            GoldItem,
            (GoldItem.pool_id == PoolCandidate.pool_id)
            & (GoldItem.query_id == PoolCandidate.query_id)
            & (GoldItem.chunk_id == PoolCandidate.chunk_id),
        )
        .join(User, User.id == Assignment.user_id)
        .join(Query, Query.id == PoolCandidate.query_id)
        .join(Chunk, Chunk.id == PoolCandidate.chunk_id)
        .where(
            Assignment.pool_id == pool.id,
            Assignment.taken_at >= GoldItem.created_at,
            Assignment.done_at.is_(None),
            Assignment.slot.is_(None),  # given back: skipped, or its hold lapsed
            User.kind == "human",
        )
    )
    found += [(name, q, c, None, grade, True) for name, q, c, grade in skipped]
    return sorted(found, key=lambda row: row[:3])
