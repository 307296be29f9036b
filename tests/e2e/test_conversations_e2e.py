"""Conversations that last, in headless Chromium: reload, Back/Forward, tabs, Stop, and other browsers."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from app.assistant.base import Answer, DoneEvent, TextEvent
from tests.e2e.conftest import serve
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer

pytestmark = pytest.mark.e2e

ANSWER = Answer(markdown="Fixtures give tests their **setup**.[^1]", sources=[FIXTURES_SOURCE])
CONVERSATION = re.compile(r".*/c/[\w-]{43}$")


def ask(page, question: str, exchanges: int) -> None:
    """Type a question, press Ask and wait for `exchanges` finished exchanges."""
    page.get_by_label("Your question").fill(question)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("article.exchange")).to_have_count(exchanges)
    expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)


def questions(page) -> list[str]:
    """The questions the conversation shows."""
    return page.locator("#conversation .question-text").all_inner_texts()


def test_five_questions_survive_reload_back_forward_and_a_second_tab(browser, make_app):
    app = make_app()
    use_answerer(app, ScriptedAnswerer([DoneEvent(ANSWER)]))
    asked = [f"Question number {n}?" for n in range(1, 6)]
    with serve(app) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(base)
        for number, question in enumerate(asked, start=1):
            ask(page, question, number)
        expect(page).to_have_url(CONVERSATION)
        url = page.url
        page.reload()
        assert questions(page) == asked
        page.goto(f"{base}/courses/nowhere")  # away from the app's page, then back and forward
        page.go_back()
        expect(page).to_have_url(url)
        assert questions(page) == asked
        page.go_forward()
        page.go_back()
        assert questions(page) == asked

        second = context.new_page()  # a second tab of the same browser
        second.goto(url)
        assert questions(second) == asked
        # A new tab starts its own conversation, which the first never shows.
        second.goto(base)
        ask(second, "A question in the second tab?", 1)
        expect(second).to_have_url(CONVERSATION)
        assert second.url != url
        page.reload()
        assert questions(page) == asked
        # Both are in the list, newest first.
        titles = page.locator(".conversation-list li a").all_inner_texts()
        assert titles[:2] == ["A question in the second tab?", "Question number 1?"]
        context.close()


def test_stop_keeps_the_partial_answer_and_leaves_the_form_enabled(browser, make_app):
    app = make_app()
    answerer = ScriptedAnswerer([TextEvent("Half an answer"), DoneEvent(ANSWER)], hold_at=1)
    use_answerer(app, answerer)
    with serve(app) as base:
        page = browser.new_page()
        page.goto(base)
        page.get_by_label("Your question").fill("Stop me halfway?")
        page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("article.exchange[aria-busy] .prose")).to_contain_text("Half an answer")
        assert answerer.held.wait(10)
        started = time.monotonic()
        page.get_by_role("button", name="Stop").click()
        stopped = page.locator("article.exchange-stopped")
        expect(stopped.locator(".answer-note")).to_have_text("You stopped this answer.")
        elapsed = time.monotonic() - started
        print(f"Stop to stopped exchange on the page: {elapsed * 1000:.0f} ms")
        expect(stopped.locator(".prose")).to_have_text("Half an answer")
        expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
        expect(page.locator("#ask-send")).to_be_enabled()
        # The stream ends as soon as the model says anything more: its call is closed, nothing else comes.
        answerer.release()
        assert answerer.closed.wait(10)
        page.reload()
        expect(page.locator("article.exchange-stopped .prose")).to_have_text("Half an answer")
        # And the next question is asked in the same conversation.
        ask(page, "And now in full?", 2)
        page.close()


def test_a_second_browser_cannot_open_the_conversation(browser, make_app):
    app = make_app()
    use_answerer(app, ScriptedAnswerer([DoneEvent(ANSWER)]))
    with serve(app) as base:
        first = browser.new_context()
        page = first.new_page()
        page.goto(base)
        ask(page, "Only mine?", 1)
        expect(page).to_have_url(CONVERSATION)
        url = page.url
        second = browser.new_context()  # another browser: its own cookies
        stranger = second.new_page()
        response = stranger.goto(url)
        assert response is not None and response.status == 404
        expect(stranger.locator("body")).not_to_contain_text("Only mine?")
        export = stranger.goto(f"{url}/export.md")
        assert export is not None and export.status == 404
        first.close()
        second.close()


def test_new_chat_mid_answer_gives_an_enabled_empty_chat(browser, make_app):
    app = make_app()
    answerer = ScriptedAnswerer([TextEvent("Still talking"), DoneEvent(ANSWER)], hold_at=1)
    use_answerer(app, answerer)
    with serve(app) as base:
        page = browser.new_page()
        page.goto(base)
        page.get_by_label("Your question").fill("Leave me mid-answer?")
        page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("article.exchange[aria-busy] .prose")).to_contain_text("Still talking")
        # Only Send is disabled while the answer streams: the next question can be typed meanwhile.
        expect(page.locator("#ask-send")).to_be_disabled()
        expect(page.locator("#question")).to_be_editable()
        page.get_by_role("button", name="New chat").click()
        expect(page.locator("article.exchange")).to_have_count(0)
        expect(page.locator(".empty-state")).to_be_visible()
        expect(page.locator("#ask-send")).to_be_enabled()
        expect(page).to_have_url(f"{base}/")
        answerer.release()
        ask(page, "A fresh question?", 1)
        page.close()
