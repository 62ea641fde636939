"""The tables. One module, so the whole schema can be read in one sitting.

Ids the user gave (chunk ids, query ids) are kept as text beside a surrogate integer key;
they are unique only within their corpus version or query set, because the same id may
mean something else in another version. Judgments and adjudications are append-only
history: the database itself refuses to update or delete them (see the migration).

A surrogate key is typed ``int``: the database gives it when the row is added (None only
before that flush), and every reader meets rows that have one.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    Index,
    Integer,
    Text,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

from pooling.grades import sql_range
from pooling.readers import SPLITS
from storage.clock import utcnow  # noqa: F401  (models.utcnow, as its callers know it)
from storage.columns import created_field, json_field, one_of
from storage.sample_tables import QuerySample, QuerySampleMember  # noqa: F401  (in the schema)
from storage.session_tables import LoginSession  # noqa: F401  (in the schema)
from storage.tally_tables import (  # noqa: F401  (in the schema)
    AnnotatorTally,
    JudgedQuery,
    JudgmentTally,
    QueryTally,
    counted,
)

ROLES = ("annotator", "lead")
USER_KINDS = ("human", "model")
# Why a candidate was put before people: the guiding model pointed at it, it explored
# outside the model's top, its query is in the sample judged unguided, a gold item, or a
# person found it by searching.
ASKED_WHY = ("guided", "exploration", "sample", "gold", "search")
SYSTEM_KINDS = ("lexical", "vector", "fusion", "external_run", "manual", "model_judge")


# ``PoolCandidate.required`` of a candidate nobody is asked about as ordinary work.
NOT_ASKED = 0
# An assignment that holds a slot and is not judged yet.
OPEN_HOLD = "slot IS NOT NULL AND done_at IS NULL"


class CorpusVersion(SQLModel, table=True):
    __tablename__ = "corpus_version"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    chunking: dict = json_field(default_factory=dict)
    content_hash: str
    source: str = ""
    created_at: datetime = created_field()
    # Counted by the import that made it (a version never changes), for ``qrels status``.
    documents: int = counted()
    chunks: int = counted()


class Document(SQLModel, table=True):
    __tablename__ = "document"
    __table_args__ = (UniqueConstraint("corpus_version_id", "doc_id"),)

    id: int = Field(default=None, primary_key=True)
    corpus_version_id: int = Field(foreign_key="corpus_version.id", index=True)
    doc_id: str
    title: str = ""
    meta: dict = json_field(default_factory=dict)
    # sha256 of the document's text: two corpus versions hold the same document when its id
    # and this agree. None when the text never reached the import (chunks without
    # ``--documents``) or the version was imported before it was recorded.
    text_sha256: str | None = None


class Chunk(SQLModel, table=True):
    __tablename__ = "chunk"
    __table_args__ = (
        UniqueConstraint("corpus_version_id", "chunk_id"),
        UniqueConstraint("document_id", "position"),
        CheckConstraint("position >= 0", name="chunk_position_non_negative"),
    )

    id: int = Field(default=None, primary_key=True)
    corpus_version_id: int = Field(foreign_key="corpus_version.id", index=True)
    chunk_id: str
    document_id: int = Field(foreign_key="document.id", index=True)
    position: int
    text: str = Field(sa_column=Column(Text, nullable=False))
    text_sha256: str
    # Where the chunk's text (without surrounding whitespace) lies in its document's text,
    # in characters: ``pooling.spans``. None when it could not be located (see
    # ``storage.imports``), e.g. a passage that occurs twice in its document.
    span_start: int | None = None
    span_end: int | None = None


class QuerySet(SQLModel, table=True):
    __tablename__ = "query_set"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    content_hash: str
    source: str = ""
    created_at: datetime = created_field()


class Query(SQLModel, table=True):
    __tablename__ = "query"
    __table_args__ = (
        UniqueConstraint("query_set_id", "query_id"),
        CheckConstraint(one_of("split", SPLITS), name="query_split_valid"),
    )

    id: int = Field(default=None, primary_key=True)
    query_set_id: int = Field(foreign_key="query_set.id", index=True)
    query_id: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    slices: list = json_field(default_factory=list)
    split: str
    answerable: bool = True
    notes: str = ""
    meta: dict = json_field(default_factory=dict)


class System(SQLModel, table=True):
    """A retriever, an imported run, manual search or a model judge, as a source of candidates."""

    __tablename__ = "system"
    __table_args__ = (
        UniqueConstraint("name", "query_set_id", "corpus_version_id"),
        CheckConstraint(one_of("kind", SYSTEM_KINDS), name="system_kind_valid"),
    )

    id: int = Field(default=None, primary_key=True)
    name: str
    kind: str
    query_set_id: int = Field(foreign_key="query_set.id", index=True)
    corpus_version_id: int = Field(foreign_key="corpus_version.id", index=True)
    config: dict = json_field(default_factory=dict)
    content_hash: str = ""
    created_at: datetime = created_field()
    entries: int = counted()  # its run's entries, counted by the import that made them


class RunEntry(SQLModel, table=True):
    """One line of a system's ranking: this chunk, for this query, at this rank and score."""

    __tablename__ = "run_entry"
    __table_args__ = (
        UniqueConstraint("system_id", "query_id", "chunk_id"),
        Index("ix_run_entry_system_query_rank", "system_id", "query_id", "rank"),
    )

    id: int = Field(default=None, primary_key=True)
    system_id: int = Field(foreign_key="system.id")
    query_id: int = Field(foreign_key="query.id")
    chunk_id: int = Field(foreign_key="chunk.id")
    rank: int
    score: float


class Pool(SQLModel, table=True):
    __tablename__ = "pool"
    __table_args__ = (CheckConstraint("overlap >= 1", name="pool_overlap_positive"),)

    id: int = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    query_set_id: int = Field(foreign_key="query_set.id", index=True)
    corpus_version_id: int = Field(foreign_key="corpus_version.id", index=True)
    config: dict = json_field(default_factory=dict)
    overlap: int = 2
    created_at: datetime = created_field()


class PoolCandidate(SQLModel, table=True):
    __tablename__ = "pool_candidate"
    __table_args__ = (
        UniqueConstraint("pool_id", "query_id", "chunk_id"),
        Index("ix_pool_candidate_pool_query_order", "pool_id", "query_id", "shuffle_key"),
    )

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id")
    query_id: int = Field(foreign_key="query.id", index=True)
    chunk_id: int = Field(foreign_key="chunk.id", index=True)
    # A seeded random key: candidates are shown in this order, which carries no hint of rank.
    shuffle_key: int = Field(sa_column=Column(BigInteger, nullable=False))
    # Judgments this candidate needs when not the pool's overlap: more when a lead asked for
    # more; NOT_ASKED in an active pool until active pooling chooses it
    # (storage.active_records), and for a gold item (storage.gold_records).
    required: int | None = None
    # Slots held or judged now (storage.tallies keeps it with every change of a slot).
    held: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # Distinct human annotators with a judgment of its (query, chunk), from the app, an
    # import or a carry: it is complete at its pool's overlap (storage.tallies keeps it).
    judges: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # Why people were asked about it (ASKED_WHY; None: a fixed pool's candidate).
    reason: str | None = None
    added_at: datetime = created_field()


class CandidateSource(SQLModel, table=True):
    """Provenance: which system put a candidate in the pool, at which rank and score."""

    __tablename__ = "candidate_source"
    __table_args__ = (UniqueConstraint("candidate_id", "system"),)

    id: int = Field(default=None, primary_key=True)
    candidate_id: int = Field(foreign_key="pool_candidate.id", index=True)
    # The system name as given to --systems ("bm25", "run:NAME", "manual:<user>").
    system: str
    rank: int | None = None
    score: float | None = None


class User(SQLModel, table=True):
    __tablename__ = "app_user"
    __table_args__ = (
        CheckConstraint(one_of("role", ROLES), name="user_role_valid"),
        CheckConstraint(one_of("kind", USER_KINDS), name="user_kind_valid"),
    )

    id: int = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    role: str = "annotator"
    kind: str = "human"
    # None means the account cannot log in (imported or model judgments).
    password_hash: str | None = None
    disabled: bool = False
    # The app's language this person chose last ("en" or "zh"); None until they choose.
    language: str | None = None
    # The pool this person chose last in the app (its name); None until they choose.
    pool: str | None = None
    # Superseded by ``login_throttle`` (revision 0003), which counts unknown names too;
    # kept because migrations only ever add.
    failed_logins: int = 0
    last_failed_login: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    created_at: datetime = created_field()


class LoginThrottle(SQLModel, table=True):
    """Failed logins per name tried, known or not (so that the answer's timing never tells
    which names exist), to slow down password guessing in every process. The name is kept
    only as its sha256: people type passwords into the name field. An attempt counts as a
    failure from its start until it succeeds, so that parallel guesses are slowed too."""

    __tablename__ = "login_throttle"
    __table_args__ = (CheckConstraint("failures >= 0", name="login_throttle_failures"),)

    name_sha256: str = Field(primary_key=True)
    failures: int
    last_attempt: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class JudgmentBatch(SQLModel, table=True):
    """One imported judgments file, so that importing the same file twice is a no-op."""

    __tablename__ = "judgment_batch"
    __table_args__ = (
        UniqueConstraint("user_id", "query_set_id", "corpus_version_id", "content_hash"),
    )

    id: int = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True)
    query_set_id: int = Field(foreign_key="query_set.id")
    corpus_version_id: int = Field(foreign_key="corpus_version.id")
    source: str
    format: str
    content_hash: str
    created_at: datetime = created_field()


class Judgment(SQLModel, table=True):
    """One grade given by one user; never updated: a later judgment supersedes an earlier one."""

    __tablename__ = "judgment"
    __table_args__ = (
        CheckConstraint(f"grade IS NULL OR ({sql_range('grade')})", name="judgment_grade_range"),
        CheckConstraint(
            "(unsure AND grade IS NULL) OR (NOT unsure AND grade IS NOT NULL)",
            name="judgment_grade_or_unsure",
        ),
        CheckConstraint("seconds IS NULL OR seconds >= 0", name="judgment_seconds_non_negative"),
        Index("ix_judgment_query_chunk", "query_id", "chunk_id"),
        Index("ix_judgment_user_query_chunk", "user_id", "query_id", "chunk_id"),
        Index("ux_judgment_assignment_revision", "assignment_id", "revision", unique=True),
    )

    id: int = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id")
    query_id: int = Field(foreign_key="query.id")
    chunk_id: int = Field(foreign_key="chunk.id")
    grade: int | None = None
    unsure: bool = False
    note: str = ""
    rubric_version: str
    seconds: float | None = None
    pool_id: int | None = Field(default=None, foreign_key="pool.id")
    batch_id: int | None = Field(default=None, foreign_key="judgment_batch.id", index=True)
    # For judgments made in the app: the assignment, and which revision of its grade this
    # is (1, 2, ... as the annotator changes it); unique, so a double click writes once.
    assignment_id: int | None = Field(default=None, foreign_key="assignment.id")
    revision: int | None = None
    # Why it was asked (ASKED_WHY), copied from its candidate; None for fixed pools and imports.
    reason: str | None = None
    created_at: datetime = created_field()


class Assignment(SQLModel, table=True):
    """An annotator's hold on one of a candidate's judgment slots.

    A candidate needing ``overlap`` judgments has slots 0..overlap-1; the unique slot per
    candidate means no more than that many annotators hold it at once, even under
    concurrency, and the unique user per candidate means nobody judges it twice. A hold
    not judged before ``expires_at`` or skipped gives up its slot (``slot`` None); the row
    stays, so the annotator can come back to it.
    """

    __tablename__ = "assignment"
    __table_args__ = (
        UniqueConstraint("candidate_id", "user_id"),
        UniqueConstraint("candidate_id", "slot"),
        CheckConstraint("slot IS NULL OR slot >= 0", name="assignment_slot_non_negative"),
        CheckConstraint("revision >= 0", name="assignment_revision_non_negative"),
        Index("ix_assignment_pool_user", "pool_id", "user_id"),
        # What a keypress looks for: the item an annotator holds, holds that expired, an
        # annotator's history newest first. Partial, so they stay the size of what is open.
        Index(
            "ix_assignment_open_holds",
            "pool_id",
            "user_id",
            sqlite_where=text(OPEN_HOLD),
            postgresql_where=text(OPEN_HOLD),
        ),
        Index(
            "ix_assignment_hold_expiry",
            "pool_id",
            "expires_at",
            sqlite_where=text(OPEN_HOLD),
            postgresql_where=text(OPEN_HOLD),
        ),
        Index("ix_assignment_pool_user_done", "pool_id", "user_id", "done_at", "id"),
    )

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id")
    candidate_id: int = Field(foreign_key="pool_candidate.id", index=True)
    user_id: int = Field(foreign_key="app_user.id")
    slot: int | None = None
    revision: int = 0
    taken_at: datetime = created_field()
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    done_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    skipped_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    # The finder's row of a candidate their search added (never a hold): not offered to
    # them, not in their progress (pool_records.add_manual_candidate).
    found_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class GoldItem(SQLModel, table=True):
    """A (query, chunk) of a pool whose grade a lead settled, mixed into annotators' work to
    see how they grade (``annotator.quality.gold``). Append-only: a gold grade never changes."""

    __tablename__ = "gold_item"
    __table_args__ = (
        UniqueConstraint("pool_id", "query_id", "chunk_id"),
        CheckConstraint(sql_range("grade"), name="gold_item_grade_range"),
    )

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id", index=True)
    query_id: int = Field(foreign_key="query.id")
    chunk_id: int = Field(foreign_key="chunk.id")
    grade: int
    rationale: str = ""
    source: str  # "adjudication" or "release:<version>"
    user_id: int | None = Field(default=None, foreign_key="app_user.id")  # None: command line
    created_at: datetime = created_field()


class Adjudication(SQLModel, table=True):
    """A lead's final grade for a pool candidate, with the reason; append-only like judgments."""

    __tablename__ = "adjudication"
    __table_args__ = (
        CheckConstraint(sql_range("grade"), name="adjudication_grade_range"),
        Index("ix_adjudication_pool_query_chunk", "pool_id", "query_id", "chunk_id"),
    )

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id")
    query_id: int = Field(foreign_key="query.id")
    chunk_id: int = Field(foreign_key="chunk.id")
    user_id: int | None = Field(default=None, foreign_key="app_user.id")
    grade: int
    rationale: str = ""
    policy: str = ""
    created_at: datetime = created_field()


class CarriedMapping(SQLModel, table=True):
    """A judged candidate of a release carried to a pool on another corpus version
    (``qrels carry``): the old chunk, its released grade and mapping class, and one new chunk
    it maps onto with the characters they share; a candidate that maps onto nothing has one
    row without a new chunk. Written once with the pool, never changed."""

    __tablename__ = "carried_mapping"
    __table_args__ = (
        CheckConstraint(sql_range("grade"), name="carried_mapping_grade_range"),
        Index("ix_carried_mapping_pool", "pool_id"),
    )

    id: int = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id")
    query_id: int = Field(foreign_key="query.id")
    old_chunk_id: int = Field(foreign_key="chunk.id")
    grade: int
    mapping: str
    new_chunk_id: int | None = Field(default=None, foreign_key="chunk.id")
    shared: int | None = None  # characters the two chunks share
    share_old: float | None = None  # shared / the old chunk's length
    share_new: float | None = None  # shared / the new chunk's length


class Release(SQLModel, table=True):
    __tablename__ = "release"

    id: int = Field(default=None, primary_key=True)
    version: str = Field(unique=True, index=True)
    pool_id: int = Field(foreign_key="pool.id")
    manifest: dict = json_field(default_factory=dict)
    manifest_sha256: str
    created_at: datetime = created_field()


# The model judge's tables live in a module of their own; imported here so that this module
# still names the whole schema (``SQLModel.metadata``) for the migrations and the tests.
import storage.figure_tables  # noqa: E402, F401  (the lead's maintained figures)
import storage.judge_tables  # noqa: E402, F401  (the model judge's runs and answers)
