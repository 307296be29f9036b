"""answer runs and their events: answers followed from any worker

Revision ID: live30_answer_runs
Revises: course_spaces_31a9
Created: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "live30_answer_runs"
down_revision = "course_spaces_31a9"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "answer_runs",
        sa.Column("id", sa.String(length=43), nullable=False),
        sa.Column("beat_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_answer_runs")),
    )
    with op.batch_alter_table("answer_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_answer_runs_created_at"), ["created_at"], unique=False)
    op.create_table(
        "answer_run_events",
        sa.Column("run_id", sa.String(length=43), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["answer_runs.id"],
            name=op.f("fk_answer_run_events_run_id_answer_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", "seq", name=op.f("pk_answer_run_events")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("answer_run_events")
    with op.batch_alter_table("answer_runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_answer_runs_created_at"))
    op.drop_table("answer_runs")
