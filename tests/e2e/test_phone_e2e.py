"""Phones in Chromium: the conversations and courses one tap away behind Menu, a header that fits 320 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.test_chat_e2e import ask
from tests.e2e.test_layout_a11y_e2e import axe_violations, overflow

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_390_px_conversations_and_courses_are_one_tap_away(browser, live_server, fake_claude, scheme):
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    page.goto(live_server)
    fake_claude.enqueue_text("Fixtures give each test a known start.")
    ask(page, "What do fixtures give?", exchanges=1)
    sidebar = page.locator("#sidebar")
    expect(sidebar).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    # One tap: the conversation list and the courses are on screen, above the fold.
    conversation = sidebar.get_by_role("link", name="What do fixtures give?")
    courses = sidebar.get_by_role("heading", name="Courses")
    for shown in (conversation, courses):
        expect(shown).to_be_visible()
        box = shown.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    assert overflow(page) == 0
    assert axe_violations(page) == []
    page.screenshot(path=f"/tmp/ui-phone-menu-{scheme}.png")
    sidebar.get_by_role("button", name="Close").click()
    expect(sidebar).to_be_hidden()
    context.close()


def test_the_menu_opens_with_javascript_off(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server)
    page.get_by_role("button", name="Menu").click()
    expect(page.locator("#sidebar").get_by_role("heading", name="Courses")).to_be_in_viewport()
    context.close()


def test_wide_screens_show_the_sidebar_beside_the_chat_without_a_menu(browser, live_server):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(live_server)
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    sidebar = page.locator("#sidebar").bounding_box()
    chat = page.locator("main.chat").bounding_box()
    assert sidebar and chat and sidebar["x"] + sidebar["width"] <= chat["x"] and sidebar["y"] < 200
    page.close()


def test_at_320_px_the_header_and_the_title_fit_on_few_lines(browser, live_server, fake_claude):
    page = browser.new_page(viewport={"width": 320, "height": 640})
    page.goto(live_server)
    fake_claude.enqueue_text("Fixtures give each test a known start.")
    ask(page, "What do fixtures give?", exchanges=1)
    page.reload()
    page.screenshot(path="/tmp/ui-phone-320.png", full_page=False)
    line = 24 * 1.6  # generous line height at the title's size
    for selector in (".topbar .brand", ".chat-head h1"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["height"] <= 2 * line, (selector, box)
    header = page.locator(".topbar").bounding_box()
    assert header is not None and header["height"] <= 60, header
    assert overflow(page) == 0
    page.close()
