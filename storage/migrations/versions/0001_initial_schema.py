"""Initial schema, with judgments and adjudications append-only.

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-30 08:21:51.046029
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

from storage.migrations.append_only import (
    create_append_only_triggers,
    drop_append_only_triggers,
)

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "app_user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("role", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('human', 'model')", name="user_kind_valid"),
        sa.CheckConstraint("role IN ('annotator', 'lead')", name="user_role_valid"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("app_user", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_app_user_name"), ["name"], unique=True)

    op.create_table(
        "corpus_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "chunking",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("corpus_version", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_corpus_version_name"), ["name"], unique=True)

    op.create_table(
        "query_set",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("query_set", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_query_set_name"), ["name"], unique=True)

    op.create_table(
        "document",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("corpus_version_id", sa.Integer(), nullable=False),
        sa.Column("doc_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "meta",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["corpus_version_id"],
            ["corpus_version.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("corpus_version_id", "doc_id"),
    )
    with op.batch_alter_table("document", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_document_corpus_version_id"), ["corpus_version_id"], unique=False
        )

    op.create_table(
        "judgment_batch",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("query_set_id", sa.Integer(), nullable=False),
        sa.Column("corpus_version_id", sa.Integer(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("format", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["corpus_version_id"],
            ["corpus_version.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_set_id"],
            ["query_set.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["app_user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "query_set_id", "corpus_version_id", "content_hash"),
    )
    with op.batch_alter_table("judgment_batch", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_judgment_batch_user_id"), ["user_id"], unique=False)

    op.create_table(
        "pool",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("query_set_id", sa.Integer(), nullable=False),
        sa.Column("corpus_version_id", sa.Integer(), nullable=False),
        sa.Column(
            "config",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("overlap", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("overlap >= 1", name="pool_overlap_positive"),
        sa.ForeignKeyConstraint(
            ["corpus_version_id"],
            ["corpus_version.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_set_id"],
            ["query_set.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("pool", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_pool_corpus_version_id"), ["corpus_version_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_pool_name"), ["name"], unique=True)
        batch_op.create_index(batch_op.f("ix_pool_query_set_id"), ["query_set_id"], unique=False)

    op.create_table(
        "query",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("query_set_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column(
            "slices",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("split", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("answerable", sa.Boolean(), nullable=False),
        sa.Column("notes", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "meta",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.CheckConstraint("split IN ('dev', 'test')", name="query_split_valid"),
        sa.ForeignKeyConstraint(
            ["query_set_id"],
            ["query_set.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("query_set_id", "query_id"),
    )
    with op.batch_alter_table("query", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_query_query_set_id"), ["query_set_id"], unique=False)

    op.create_table(
        "system",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("query_set_id", sa.Integer(), nullable=False),
        sa.Column("corpus_version_id", sa.Integer(), nullable=False),
        sa.Column(
            "config",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('lexical', 'vector', 'fusion', 'external_run', 'manual', 'model_judge')",
            name="system_kind_valid",
        ),
        sa.ForeignKeyConstraint(
            ["corpus_version_id"],
            ["corpus_version.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_set_id"],
            ["query_set.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", "query_set_id", "corpus_version_id"),
    )
    with op.batch_alter_table("system", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_system_corpus_version_id"), ["corpus_version_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_system_query_set_id"), ["query_set_id"], unique=False)

    op.create_table(
        "chunk",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("corpus_version_id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.CheckConstraint("position >= 0", name="chunk_position_non_negative"),
        sa.ForeignKeyConstraint(
            ["corpus_version_id"],
            ["corpus_version.id"],
        ),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["document.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("corpus_version_id", "chunk_id"),
        sa.UniqueConstraint("document_id", "position"),
    )
    with op.batch_alter_table("chunk", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_chunk_corpus_version_id"), ["corpus_version_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_chunk_document_id"), ["document_id"], unique=False)

    op.create_table(
        "release",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column(
            "manifest",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("manifest_sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["pool_id"],
            ["pool.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("release", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_release_version"), ["version"], unique=True)

    op.create_table(
        "adjudication",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("rationale", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("policy", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("grade >= 0 AND grade <= 3", name="adjudication_grade_range"),
        sa.ForeignKeyConstraint(
            ["chunk_id"],
            ["chunk.id"],
        ),
        sa.ForeignKeyConstraint(
            ["pool_id"],
            ["pool.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_id"],
            ["query.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["app_user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("adjudication", schema=None) as batch_op:
        batch_op.create_index(
            "ix_adjudication_pool_query_chunk", ["pool_id", "query_id", "chunk_id"], unique=False
        )

    op.create_table(
        "judgment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=True),
        sa.Column("unsure", sa.Boolean(), nullable=False),
        sa.Column("note", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("rubric_version", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("pool_id", sa.Integer(), nullable=True),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "(unsure AND grade IS NULL) OR (NOT unsure AND grade IS NOT NULL)",
            name="judgment_grade_or_unsure",
        ),
        sa.CheckConstraint(
            "grade IS NULL OR (grade >= 0 AND grade <= 3)", name="judgment_grade_range"
        ),
        sa.CheckConstraint("seconds IS NULL OR seconds >= 0", name="judgment_seconds_non_negative"),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["judgment_batch.id"],
        ),
        sa.ForeignKeyConstraint(
            ["chunk_id"],
            ["chunk.id"],
        ),
        sa.ForeignKeyConstraint(
            ["pool_id"],
            ["pool.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_id"],
            ["query.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["app_user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("judgment", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_judgment_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index("ix_judgment_query_chunk", ["query_id", "chunk_id"], unique=False)
        batch_op.create_index(
            "ix_judgment_user_query_chunk", ["user_id", "query_id", "chunk_id"], unique=False
        )

    op.create_table(
        "pool_candidate",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.Integer(), nullable=False),
        sa.Column("shuffle_key", sa.BigInteger(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["chunk_id"],
            ["chunk.id"],
        ),
        sa.ForeignKeyConstraint(
            ["pool_id"],
            ["pool.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_id"],
            ["query.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("pool_id", "query_id", "chunk_id"),
    )
    with op.batch_alter_table("pool_candidate", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pool_candidate_chunk_id"), ["chunk_id"], unique=False)
        batch_op.create_index(
            "ix_pool_candidate_pool_query_order",
            ["pool_id", "query_id", "shuffle_key"],
            unique=False,
        )
        batch_op.create_index(batch_op.f("ix_pool_candidate_query_id"), ["query_id"], unique=False)

    op.create_table(
        "run_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("system_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("chunk_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chunk_id"],
            ["chunk.id"],
        ),
        sa.ForeignKeyConstraint(
            ["query_id"],
            ["query.id"],
        ),
        sa.ForeignKeyConstraint(
            ["system_id"],
            ["system.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("system_id", "query_id", "chunk_id"),
    )
    with op.batch_alter_table("run_entry", schema=None) as batch_op:
        batch_op.create_index(
            "ix_run_entry_system_query_rank", ["system_id", "query_id", "rank"], unique=False
        )

    op.create_table(
        "candidate_source",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("candidate_id", sa.Integer(), nullable=False),
        sa.Column("system", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["candidate_id"],
            ["pool_candidate.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("candidate_id", "system"),
    )
    with op.batch_alter_table("candidate_source", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_candidate_source_candidate_id"), ["candidate_id"], unique=False
        )

    create_append_only_triggers()


def downgrade() -> None:
    drop_append_only_triggers()
    with op.batch_alter_table("candidate_source", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_candidate_source_candidate_id"))

    op.drop_table("candidate_source")
    with op.batch_alter_table("run_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_run_entry_system_query_rank")

    op.drop_table("run_entry")
    with op.batch_alter_table("pool_candidate", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pool_candidate_query_id"))
        batch_op.drop_index("ix_pool_candidate_pool_query_order")
        batch_op.drop_index(batch_op.f("ix_pool_candidate_chunk_id"))

    op.drop_table("pool_candidate")
    with op.batch_alter_table("judgment", schema=None) as batch_op:
        batch_op.drop_index("ix_judgment_user_query_chunk")
        batch_op.drop_index("ix_judgment_query_chunk")
        batch_op.drop_index(batch_op.f("ix_judgment_batch_id"))

    op.drop_table("judgment")
    with op.batch_alter_table("adjudication", schema=None) as batch_op:
        batch_op.drop_index("ix_adjudication_pool_query_chunk")

    op.drop_table("adjudication")
    with op.batch_alter_table("release", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_release_version"))

    op.drop_table("release")
    with op.batch_alter_table("chunk", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chunk_document_id"))
        batch_op.drop_index(batch_op.f("ix_chunk_corpus_version_id"))

    op.drop_table("chunk")
    with op.batch_alter_table("system", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_system_query_set_id"))
        batch_op.drop_index(batch_op.f("ix_system_corpus_version_id"))

    op.drop_table("system")
    with op.batch_alter_table("query", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_query_query_set_id"))

    op.drop_table("query")
    with op.batch_alter_table("pool", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pool_query_set_id"))
        batch_op.drop_index(batch_op.f("ix_pool_name"))
        batch_op.drop_index(batch_op.f("ix_pool_corpus_version_id"))

    op.drop_table("pool")
    with op.batch_alter_table("judgment_batch", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_judgment_batch_user_id"))

    op.drop_table("judgment_batch")
    with op.batch_alter_table("document", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_document_corpus_version_id"))

    op.drop_table("document")
    with op.batch_alter_table("query_set", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_query_set_name"))

    op.drop_table("query_set")
    with op.batch_alter_table("corpus_version", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_corpus_version_name"))

    op.drop_table("corpus_version")
    with op.batch_alter_table("app_user", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_app_user_name"))

    op.drop_table("app_user")
