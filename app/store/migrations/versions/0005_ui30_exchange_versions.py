"""exchange versions (a Retry or Edit stores a new version of the exchange it replaces); conversations
deleted with an undo

Revision ID: ui30_exchange_versions
Revises: live30_answer_runs
Created: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "ui30_exchange_versions"
down_revision = "live30_answer_runs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deleted_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("exchanges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version_of", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_exchanges_version_of"), ["version_of"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_exchanges_version_of_exchanges"),
            "exchanges",
            ["version_of"],
            ["id"],
            ondelete="CASCADE",
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("exchanges", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_exchanges_version_of_exchanges"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_exchanges_version_of"))
        batch_op.drop_column("version_of")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_column("deleted_at")
