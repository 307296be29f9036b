"""The conversation list in Chromium: search it, delete one and undo, axe-core clean in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.test_chat_e2e import ask
from tests.e2e.test_layout_a11y_e2e import axe_violations

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_search_delete_and_undo_in_the_conversation_list(browser, live_server, fake_claude, scheme):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(live_server)
    fake_claude.enqueue_text("Seedlings need light.")
    ask(page, "How do seedlings grow?", exchanges=1)
    page.goto(f"{live_server}/conversations")
    page.get_by_label("Search your conversations").fill("SEEDLINGS")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("link", name="How do seedlings grow?")).to_be_visible()
    assert axe_violations(page) == []
    page.get_by_role("button", name="Delete “How do seedlings grow?”").click()
    expect(page.get_by_role("status")).to_contain_text("Deleted “How do seedlings grow?”.")
    expect(page.get_by_role("link", name="How do seedlings grow?")).to_have_count(0)
    assert axe_violations(page) == []
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("article.exchange .prose")).to_have_text("Seedlings need light.")
    context.close()
