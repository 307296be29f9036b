"""Fixtures for the view tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def claude_client(claude_app):
    """A test client on the app in Claude mode (fake Messages API)."""
    return claude_app.test_client()
