"""conversations, pending questions, feedback, question log, eval cases

Revision ID: 0001
Revises: none
Created: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "conversations",
        sa.Column("id", sa.String(length=43), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("title", sa.String(length=120), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversations")),
    )
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.create_index("ix_conversations_owner_updated", ["owner", "updated_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_conversations_updated_at"), ["updated_at"], unique=False)

    op.create_table(
        "eval_cases",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("gold_course", sa.String(length=200), nullable=False),
        sa.Column("gold_lesson", sa.Integer(), nullable=True),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_cases")),
    )
    op.create_table(
        "exchanges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("conversation_id", sa.String(length=43), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("sources", sa.JSON(), nullable=False),
        sa.Column("mode", sa.String(length=20), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("first_text_ms", sa.Integer(), nullable=True),
        sa.Column("total_ms", sa.Integer(), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'answered', 'interrupted', 'failed', 'stopped')",
            name=op.f("ck_exchanges_status"),
        ),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_exchanges_conversation_id_conversations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_exchanges")),
    )
    with op.batch_alter_table("exchanges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_exchanges_conversation_id"), ["conversation_id"], unique=False)

    op.create_table(
        "feedback",
        sa.Column("exchange_id", sa.Integer(), nullable=False),
        sa.Column("vote", sa.String(length=4), nullable=False),
        sa.Column("comment", sa.String(length=500), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("vote IN ('up', 'down')", name=op.f("ck_feedback_vote")),
        sa.ForeignKeyConstraint(
            ["exchange_id"],
            ["exchanges.id"],
            name=op.f("fk_feedback_exchange_id_exchanges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("exchange_id", name=op.f("pk_feedback")),
    )
    op.create_table(
        "pending_questions",
        sa.Column("id", sa.String(length=43), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("exchange_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["exchange_id"],
            ["exchanges.id"],
            name=op.f("fk_pending_questions_exchange_id_exchanges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_questions")),
    )
    with op.batch_alter_table("pending_questions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pending_questions_created_at"), ["created_at"], unique=False)

    op.create_table(
        "question_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("course", sa.String(length=200), nullable=True),
        sa.Column("declined", sa.Boolean(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("mode", sa.String(length=20), nullable=True),
        sa.Column("closest_course", sa.String(length=200), nullable=True),
        sa.Column("closest_lesson", sa.Integer(), nullable=True),
        sa.Column("exchange_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["exchange_id"],
            ["exchanges.id"],
            name=op.f("fk_question_log_exchange_id_exchanges"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_question_log")),
    )
    with op.batch_alter_table("question_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_question_log_course"), ["course"], unique=False)
        batch_op.create_index(batch_op.f("ix_question_log_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_question_log_exchange_id"), ["exchange_id"], unique=False)

    op.create_table(
        "question_lessons",
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("course", sa.String(length=200), nullable=False),
        sa.Column("lesson", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["question_log.id"],
            name=op.f("fk_question_lessons_question_id_question_log"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("question_id", "course", "lesson", name=op.f("pk_question_lessons")),
    )
    with op.batch_alter_table("question_lessons", schema=None) as batch_op:
        batch_op.create_index("ix_question_lessons_lesson", ["course", "lesson"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("question_lessons", schema=None) as batch_op:
        batch_op.drop_index("ix_question_lessons_lesson")

    op.drop_table("question_lessons")
    with op.batch_alter_table("question_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_question_log_exchange_id"))
        batch_op.drop_index(batch_op.f("ix_question_log_created_at"))
        batch_op.drop_index(batch_op.f("ix_question_log_course"))

    op.drop_table("question_log")
    with op.batch_alter_table("pending_questions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pending_questions_created_at"))

    op.drop_table("pending_questions")
    op.drop_table("feedback")
    with op.batch_alter_table("exchanges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_exchanges_conversation_id"))

    op.drop_table("exchanges")
    op.drop_table("eval_cases")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversations_updated_at"))
        batch_op.drop_index("ix_conversations_owner_updated")

    op.drop_table("conversations")
