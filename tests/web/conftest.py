"""Fixtures for the view tests."""

from __future__ import annotations

import pytest


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
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, STORE_CONVERSATIONS=False)
    app.config["WTF_CSRF_ENABLED"] = False
    return app.test_client()
