"""course spaces: spaces, their courses, users by issuer and subject, and their roles

Revision ID: course_spaces_31a9
Revises: mcp_tokens_7c4e
Created: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "course_spaces_31a9"
down_revision = "mcp_tokens_7c4e"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "spaces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("answer_mode", sa.String(length=8), nullable=False),
        sa.Column("avoid_topics", sa.JSON(), nullable=False),
        sa.Column("welcome", sa.Text(), nullable=False),
        sa.Column("suggestions", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("answer_mode IN ('full', 'hints')", name=op.f("ck_spaces_answer_mode")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_spaces")),
        sa.UniqueConstraint("name", name=op.f("uq_spaces_name")),
    )
    op.create_table(
        "space_courses",
        sa.Column("space_id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_space_courses_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("space_id", "course_id", name=op.f("pk_space_courses")),
    )
    op.create_index(op.f("ix_space_courses_course_id"), "space_courses", ["course_id"])
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("issuer", "subject", name="uq_users_issuer_subject"),
    )
    op.create_table(
        "space_members",
        sa.Column("space_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.CheckConstraint("role IN ('staff', 'student')", name=op.f("ck_space_members_role")),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_space_members_space_id_spaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_space_members_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("space_id", "user_id", name=op.f("pk_space_members")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("space_members")
    op.drop_table("users")
    op.drop_index(op.f("ix_space_courses_course_id"), table_name="space_courses")
    op.drop_table("space_courses")
    op.drop_table("spaces")
