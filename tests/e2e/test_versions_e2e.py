"""Retry and Edit in Chromium: the exchange gets a new version in its place, with ‹ 1 / 2 › links."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.test_chat_e2e import ask
from tests.e2e.test_layout_a11y_e2e import axe_violations

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("javascript", [True, False])
def test_retry_and_edit_give_the_same_exchange_new_versions(browser, live_server, fake_claude, javascript):
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    page.goto(live_server)
    fake_claude.enqueue_text("The first answer.")
    fake_claude.enqueue_text("A later question's answer.")
    fake_claude.enqueue_text("The second answer.")
    fake_claude.enqueue_text("The edited question's answer.")
    if javascript:
        ask(page, "What is a fixture?", exchanges=1)
        ask(page, "And a marker?", exchanges=2)
    else:
        for question in ("What is a fixture?", "And a marker?"):
            page.get_by_label("Your question").fill(question)
            page.get_by_role("button", name="Send", exact=True).click()
    first = page.locator("article.exchange").first
    expect(first.locator(".prose")).to_have_text("The first answer.")

    first.get_by_role("button", name="Retry").click()
    # Still two exchanges, in order: the first now reads its second version.
    exchanges = page.locator("article.exchange")
    expect(exchanges.first.locator(".prose")).to_have_text("The second answer.")
    expect(exchanges).to_have_count(2)
    expect(exchanges.nth(1).locator(".prose")).to_have_text("A later question's answer.")
    versions = exchanges.first.locator("nav.versions")
    expect(versions).to_contain_text("Version 2 / 2")

    # Edit adds a third version, of the edited question.
    exchanges.first.locator(".edit-question > summary").click()
    exchanges.first.get_by_label("Question").fill("What is a fixture for?")
    exchanges.first.get_by_role("button", name="Ask again").click()
    expect(exchanges.first.locator(".prose")).to_have_text("The edited question's answer.")
    expect(exchanges.first.locator(".question-text")).to_have_text("What is a fixture for?")
    expect(exchanges.first.locator(".edit-question[open]")).to_have_count(0)
    expect(exchanges).to_have_count(2)

    # The server-rendered links step back through the versions, and forward again.
    page.goto(page.url.split("#")[0])
    versions = page.locator("article.exchange").first.locator("nav.versions")
    expect(versions).to_contain_text("Version 3 / 3")
    versions.get_by_role("link", name="Previous version").click()
    first = page.locator("article.exchange").first
    expect(first.locator(".prose")).to_have_text("The second answer.")
    expect(first.locator("nav.versions")).to_contain_text("Version 2 / 3")
    first.locator("nav.versions").get_by_role("link", name="Previous version").click()
    first = page.locator("article.exchange").first
    expect(first.locator(".prose")).to_have_text("The first answer.")
    expect(first.locator(".question-text")).to_have_text("What is a fixture?")
    expect(page.locator("article.exchange")).to_have_count(2)
    if javascript:  # axe-core runs as a script in the page
        assert axe_violations(page) == []
    context.close()
