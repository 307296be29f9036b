"""The chat in headless Chromium: ask, read the cited answer, follow up, start over; JavaScript on and off."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

SEARCH_TOOL = "search_course_content"


def user_questions(fake_claude) -> list[str]:
    """The plain-text user turns of the last request the fake model received."""
    messages = fake_claude.requests[-1]["messages"]
    return [m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str)]


def shot(page, path) -> None:
    """Save a full-page screenshot; caret="initial": hiding the caret injects a style the CSP blocks."""
    page.screenshot(path=path, full_page=True, caret="initial")


def csp_violations(page) -> list[str]:
    """Collect console errors about the Content-Security-Policy while the page lives."""
    found: list[str] = []
    page.on(
        "console",
        lambda message: found.append(message.text) if "Content Security Policy" in message.text else None,
    )
    return found


def ask(page, question: str, exchanges: int) -> None:
    """Type a question, press Send and wait until the conversation holds `exchanges` finished exchanges."""
    page.get_by_label("Your question").fill(question)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("article.exchange")).to_have_count(exchanges)
    expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)


def start_new_chat(page) -> None:
    """Press New chat and wait for the empty conversation with its welcome."""
    page.get_by_role("button", name="New chat").click()
    expect(page.locator("article.exchange")).to_have_count(0)
    expect(page.locator(".empty-state")).to_be_visible()


def check_answer_and_sources(page, answer_text: str) -> None:
    """The newest exchange shows the answer and, as visible chips, lesson links that open in a new tab."""
    exchange = page.locator("article.exchange").last
    expect(exchange.locator(".prose")).to_contain_text(answer_text)
    links = exchange.locator(".source-chip a")
    expect(links.first).to_be_visible()
    assert links.count() >= 1
    for index in range(links.count()):
        link = links.nth(index)
        assert link.get_attribute("target") == "_blank"
        assert re.match(r"https://example\.com/courses/", link.get_attribute("href"))
        assert " – Lesson " in link.inner_text()


def test_chat_with_javascript(browser, live_server, fake_claude, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    violations = csp_violations(page)
    page.goto(live_server)
    expect(page.get_by_role("heading", name="Ask about your courses")).to_be_visible()
    expect(page.locator(".mode")).to_contain_text("Answers are written from the course lessons")

    # The first question, sent by keyboard (Tab to Send, Enter); the reply is held to see the in-flight state.
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "cosine similarity"})
    fake_claude.enqueue_hang(30, "**Cosine similarity** compares the direction of two vectors.")
    question = page.get_by_label("Your question")
    question.fill("What is cosine similarity?")
    question.press("Tab")
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    # The question shows at once, the answer is pending; the box is empty and editable, only Send is off.
    expect(page.locator("article.exchange .question-text")).to_have_text("What is cosine similarity?")
    expect(page.locator("article.exchange[aria-busy] .stream-status")).to_be_visible()
    expect(page.locator("#question")).to_have_value("")
    expect(page.locator("#question")).to_be_editable()
    expect(page.locator("#question")).to_be_focused()
    expect(page.locator("#ask-send")).to_be_disabled()
    fake_claude.release()
    expect(page.locator("article.exchange")).to_have_count(1)
    expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
    expect(page.locator("#ask-send")).to_be_enabled()
    expect(page.locator("#ask-indicator")).to_be_hidden()
    check_answer_and_sources(page, "Cosine similarity compares the direction")
    # htmx swapped the fragment (no navigation) and gave the new conversation its own address.
    assert re.fullmatch(rf"{re.escape(live_server)}/c/[\w-]{{43}}", page.url)
    shot(page, tmp_path / "1-answer.png")

    # A follow-up: the model receives the first exchange as history.
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "dot product normalised vectors"})
    fake_claude.enqueue_text("With unit vectors it equals the **dot product**.")
    ask(page, "And for normalised vectors?", exchanges=2)
    check_answer_and_sources(page, "equals the dot product")
    assert user_questions(fake_claude) == ["What is cosine similarity?", "And for normalised vectors?"]
    shot(page, tmp_path / "2-follow-up.png")

    # A new chat empties the conversation, and the next question goes without history.
    start_new_chat(page)
    shot(page, tmp_path / "3-new-chat.png")
    fake_claude.enqueue_text("A fresh start.")
    expect(page.locator("button.suggestion")).to_have_count(4)
    page.locator("button.suggestion").first.click()
    expect(page.locator("article.exchange")).to_have_count(1)
    expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
    assert len(user_questions(fake_claude)) == 1
    assert violations == []
    page.close()


def test_chat_without_javascript(browser, live_server, fake_claude, tmp_path):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server)
    expect(page.get_by_role("heading", name="Ask about your courses")).to_be_visible()

    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "fixture scope"})
    fake_claude.enqueue_text("The **fixture scope** decides how often a fixture is created.")
    ask(page, "What is fixture scope?", exchanges=1)  # a plain POST, then 303 back to the page
    # The page lands on the new exchange, on the new conversation's own page.
    assert re.fullmatch(rf"{re.escape(live_server)}/c/[\w-]{{43}}#exchange-1", page.url)
    conversation = page.url.partition("#")[0]
    check_answer_and_sources(page, "decides how often a fixture is created")
    expect(page.locator("#question")).to_have_value("")
    shot(page, tmp_path / "1-answer-nojs.png")

    fake_claude.enqueue_text("Once per test function, unless you choose a wider scope.")
    ask(page, "What is the default?", exchanges=2)
    assert page.url == f"{conversation}#exchange-2"
    expect(page.locator("article.exchange").last).to_contain_text("Once per test function")
    assert user_questions(fake_claude) == ["What is fixture scope?", "What is the default?"]
    shot(page, tmp_path / "2-follow-up-nojs.png")

    start_new_chat(page)
    shot(page, tmp_path / "3-new-chat-nojs.png")
    context.close()


def body_colour(page) -> str:
    """The page's background colour now."""
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_theme_switch_from_the_menu(browser, live_server, tmp_path, javascript):
    context = browser.new_context(color_scheme="light", java_script_enabled=javascript)
    page = context.new_page()
    page.goto(live_server)
    light = body_colour(page)
    page.locator(".theme-menu summary").click()
    page.get_by_role("button", name="Dark").click()
    # The menu closes after the choice: swapped in closed (htmx), or the page back from the redirect.
    expect(page.locator(".theme-menu[open]")).to_have_count(0)
    expect(page.get_by_role("button", name="Dark")).to_be_hidden()
    page.wait_for_load_state()
    page.locator(".theme-menu summary").click()
    expect(page.get_by_role("button", name="Dark")).to_have_attribute("aria-pressed", "true")
    page.wait_for_function(
        # A function is eval-ed once; an expression again on each poll, which the CSP refuses.
        "light => getComputedStyle(document.body).backgroundColor !== light",
        arg=light,
    )
    page.reload()  # the choice is kept
    assert body_colour(page) != light
    shot(page, tmp_path / "dark.png")
    context.close()
