"""Alembic's environment: run on the connection that app.store.migrate hands over."""

from __future__ import annotations

from alembic import context

from app.store.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    # SQLite alters a table by copying it; batch mode does that, and is a no-op elsewhere.
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
