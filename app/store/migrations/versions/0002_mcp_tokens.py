"""mcp tokens: the MCP server's bearer tokens, stored as their SHA-256

Revision ID: mcp_tokens_7c4e
Revises: 0001
Created: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "mcp_tokens_7c4e"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "mcp_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=120), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_tokens")),
        sa.UniqueConstraint("digest", name=op.f("uq_mcp_tokens_digest")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("mcp_tokens")
