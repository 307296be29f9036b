"""An admin app whose database is SQLite or a real PostgreSQL server, and a signed-in client on it."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import update

from app.store.models import LoggedQuestion
from app.store.records import QuestionEntry
from tests.store.conftest import database_url, postgres  # noqa: F401  (the SQLite and PostgreSQL databases)
from tests.web.admin_helpers import PASSWORD, Admin


def build(make_app, **settings):
    """An admin app (CSRF on) with a migrated database."""
    app = make_app(ADMIN_PASSWORD=PASSWORD, **settings)
    app.extensions["services"].store.upgrade()
    return app


@pytest.fixture
def insights_app(make_app, database_url):  # noqa: F811  (the fixture imported above)
    """The admin app on each database."""
    app = build(make_app, DATABASE_URL=database_url)
    yield app
    app.extensions["services"].store.close()


@pytest.fixture
def sqlite_app(make_app):
    """The admin app on its default SQLite file, for the tests that are about search, not the database."""
    app = build(make_app)
    yield app
    app.extensions["services"].store.close()


@pytest.fixture
def admin(insights_app) -> Admin:
    """A signed-in admin on each database."""
    client = Admin(insights_app)
    assert client.login().status_code == 303
    return client


def log(app, asked_at: datetime | None = None, **fields) -> int:
    """Log one question through the store, as if asked at `asked_at`."""
    store = app.extensions["services"].store
    log_id = store.questions.record(QuestionEntry(**fields))
    if asked_at is not None:
        with store.db.writing() as session:
            session.execute(
                update(LoggedQuestion).where(LoggedQuestion.id == log_id).values(created_at=asked_at)
            )
    return log_id


def down_voted(app, question: str, comment: str | None = None, **fields) -> int:
    """A question answered in a stored conversation, logged, and voted down by its browser."""
    store = app.extensions["services"].store
    asked = store.conversations.ask("browser-1", question)
    assert store.votes.vote("browser-1", asked.exchange_id, "down", comment)
    return log(app, question=question, exchange_id=asked.exchange_id, **fields)
