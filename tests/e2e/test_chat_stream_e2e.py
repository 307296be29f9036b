"""Streamed answers in headless Chromium: question first, words before the model is done, scroll, reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.assistant.base import Answer, DoneEvent, StatusEvent, TextEvent
from tests.e2e.conftest import serve
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer

pytestmark = pytest.mark.e2e


def long_answer(words: int = 450) -> str:
    """About 3,000 characters of markdown in paragraphs, like a long model answer."""
    sentence = "Fixtures set up what a test needs and tear it down again afterwards. "
    paragraphs = [sentence * 8 for _ in range(words // 90)]
    return "\n\n".join(paragraphs)


def is_commit(response) -> bool:
    """True for the request that stores a streamed exchange."""
    return response.url.endswith("/ask/commit")


@pytest.fixture
def streaming_app(make_app):
    """The app with a scripted answerer in place of the model."""
    return make_app()


def test_question_shows_first_and_words_stream_before_the_model_is_done(browser, streaming_app):
    answerer = ScriptedAnswerer(
        [
            StatusEvent("Searching Lesson 2 of Python Testing with Pytest"),
            TextEvent("First words of the answer"),
            TextEvent(", then the rest."),
            DoneEvent(
                Answer(markdown="First words of the answer, then the rest.", sources=[FIXTURES_SOURCE])
            ),
        ],
        hold_at=2,  # the model "thinks" after its first words until the test lets it go on
    )
    use_answerer(streaming_app, answerer)
    with serve(streaming_app) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base)
        page.get_by_label("Your question").fill("What are fixtures?")
        page.get_by_role("button", name="Send", exact=True).click()
        pending = page.locator("article.exchange[aria-busy]")
        expect(pending.locator(".question-text")).to_have_text("What are fixtures?")
        expect(pending.locator(".prose")).to_contain_text("First words of the answer")
        # Still pending: the model has not finished (it is held), yet its first words are on the page.
        # The server may flush those words before it asks the answerer for more: wait for the hold.
        assert answerer.held.wait(10) and not answerer.closed.is_set()
        # The status line went when the words came.
        expect(pending.locator(".stream-status")).to_be_hidden()
        # The next question can be typed meanwhile (Shift+Enter makes a new line); only Send waits.
        expect(page.locator("#ask-send")).to_be_disabled()
        box = page.locator("#question")
        box.type("And scopes?")
        box.press("Shift+Enter")
        box.type("Which is the default?")
        expect(box).to_have_value("And scopes?\nWhich is the default?")
        with page.expect_response(is_commit) as commit:
            answerer.release()
        assert commit.value.ok
        expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
        done = page.locator("article.exchange").last
        expect(done.locator(".prose")).to_have_text("First words of the answer, then the rest.")
        expect(done.locator(".sources .source-chip")).to_have_count(1)
        # The end of the answer enabled Send and kept what was typed.
        expect(page.locator("#ask-send")).to_be_enabled()
        expect(box).to_have_value("And scopes?\nWhich is the default?")
        # The commit follows the stream; a reload shows the exchange from the history cookie.
        expect(page.locator("#history-note")).to_be_hidden()
        page.reload()
        expect(page.locator("article.exchange")).to_have_count(1)
        expect(page.locator("article.exchange .prose")).to_contain_text("then the rest.")
        page.close()


def test_after_long_answers_the_new_exchange_starts_in_view(browser, streaming_app):
    text = long_answer()
    assert len(text) > 2500
    use_answerer(streaming_app, ScriptedAnswerer([TextEvent(text), DoneEvent(Answer(markdown=text))]))
    with serve(streaming_app) as base:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(base)
        for number in range(1, 6):
            page.get_by_label("Your question").fill(f"Question {number}?")
            with page.expect_response(is_commit):
                page.get_by_role("button", name="Send", exact=True).click()
            expect(page.locator("article.exchange")).to_have_count(number)
            expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
        top = page.locator("article.exchange").last.evaluate("e => e.getBoundingClientRect().top")
        assert 0 <= top < 768, f"the new exchange starts at {top}px, outside the window"
        assert page.evaluate("window.scrollY") > 0
        # Five long answers with the default MAX_HISTORY: earlier turns went, and the note says so.
        expect(page.locator("#history-note")).to_be_visible()
        page.close()


def test_one_long_answer_in_a_new_chat_is_not_called_trimmed(browser, streaming_app):
    text = long_answer(900)
    use_answerer(
        streaming_app, ScriptedAnswerer([DoneEvent(Answer(markdown=text, sources=[FIXTURES_SOURCE]))])
    )
    with serve(streaming_app) as base:
        page = browser.new_page()
        page.goto(base)
        page.get_by_label("Your question").fill("One long one?")
        with page.expect_response(is_commit):
            page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("#history-note")).to_be_hidden()
        page.reload()
        expect(page.locator("article.exchange")).to_have_count(1)
        expect(page.locator("#history-note")).to_be_hidden()
        page.close()
