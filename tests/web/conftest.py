"""Fixtures for the view tests."""

from __future__ import annotations

import itertools

import pytest

from tests.store.conftest import postgres  # noqa: F401  # the session's PostgreSQL server, for db_app


@pytest.fixture
def claude_client(claude_app):
    """A test client on the app in Claude mode (fake Messages API)."""
    return claude_app.test_client()


@pytest.fixture
def cookie_app(make_app):
    """An app that keeps conversations in the cookie only (STORE_CONVERSATIONS=false), CSRF off."""
    app = make_app(STORE_CONVERSATIONS=False)
    app.config["WTF_CSRF_ENABLED"] = False
    return app


@pytest.fixture
def cookie_client(cookie_app):
    """A test client on the cookie-only app."""
    return cookie_app.test_client()


@pytest.fixture
def cookie_claude_client(make_app, fake_claude):
    """A test client on a cookie-only app in Claude mode (fake Messages API)."""
    app = make_app(
        ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, STORE_CONVERSATIONS=False
    )
    app.config["WTF_CSRF_ENABLED"] = False
    return app.test_client()


_pg_databases = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_app(request, make_app):
    """An app (extractive, CSRF off) whose conversations live in SQLite, or in PostgreSQL on loopback."""
    if request.param == "sqlite":
        app = make_app()
    else:
        server = request.getfixturevalue("postgres")
        url = server.create_database(f"web_{next(_pg_databases)}")
        app = make_app(DATABASE_URL=url)
        app.extensions["services"].store.upgrade()
    app.config["WTF_CSRF_ENABLED"] = False
    yield app
    app.extensions["services"].store.close()
