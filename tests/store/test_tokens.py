"""MCP bearer tokens: made with a label, kept only as a hash, checked, revoked for good."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select

from app.errors import BadRequest
from app.store.models import McpToken
from app.store.tokens import TOKEN_PREFIX


def test_an_issued_token_opens_until_it_is_revoked(store):
    issued = store.tokens.issue("  Grading   agent ")

    assert issued.record.label == "Grading agent" and issued.record.active
    assert issued.secret.startswith(TOKEN_PREFIX) and len(issued.secret) > 40
    checked = store.tokens.check(issued.secret)
    assert checked is not None and checked.id == issued.record.id

    assert store.tokens.revoke(issued.record.id) is True

    assert store.tokens.check(issued.secret) is None
    assert store.tokens.revoke(issued.record.id) is False, "a token is revoked once"
    [listed] = store.tokens.all()
    assert not listed.active and listed.revoked_at is not None


def test_only_the_hash_of_a_token_is_stored(store):
    issued = store.tokens.issue("Editor plugin")

    with store.db.reading() as session:
        row = session.scalars(select(McpToken)).one()
        stored = [str(getattr(row, column.key)) for column in McpToken.__table__.columns]
    assert not any(issued.secret in value for value in stored)
    assert row.digest == hashlib.sha256(issued.secret.encode()).hexdigest()


def test_any_other_string_is_no_token(store):
    issued = store.tokens.issue("Desktop")

    assert store.tokens.check(issued.secret + "x") is None
    assert store.tokens.check(issued.secret[:-1]) is None
    assert store.tokens.check("") is None
    assert store.tokens.check("\udcff") is None, "a string that is not valid UTF-8 is refused, not a crash"


def test_each_token_is_its_own_and_revoking_one_keeps_the_others(store):
    first = store.tokens.issue("First")
    second = store.tokens.issue("Second")

    assert first.secret != second.secret
    store.tokens.revoke(first.record.id)

    assert store.tokens.check(second.secret) is not None
    assert [token.label for token in store.tokens.all()] == ["Second", "First"], "newest first"


def test_using_a_token_notes_when(store):
    issued = store.tokens.issue("Agent")
    assert store.tokens.all()[0].last_used_at is None

    store.tokens.check(issued.secret)

    assert store.tokens.all()[0].last_used_at is not None


@pytest.mark.parametrize("label", ["", "   ", "x" * 121])
def test_a_token_needs_a_short_label(store, label):
    with pytest.raises(BadRequest):
        store.tokens.issue(label)
    assert store.tokens.all() == []


def test_revoking_a_token_that_never_was_says_so(store):
    assert store.tokens.revoke(12345) is False
