"""Answers that finish on the server, in headless Chromium: a reload, a second tab and a lost connection all
see the answer continue and end answered; nothing reads "interrupted". The model is the fake Messages API,
streaming its answer word by word, slowly."""

from __future__ import annotations

import re
import threading
import time

import pytest
from playwright.sync_api import expect

from tests.cutting_proxy import CuttingProxy
from tests.e2e.conftest import serve
from tests.web.support import SEARCH_TOOL

pytestmark = pytest.mark.e2e

WORDS = [f"word{number}" for number in range(1, 41)]
ANSWER = "Fixtures give tests their setup: " + " ".join(WORDS) + " and that is all."
PACE = 0.15  # seconds per streamed event: the answer takes about 7 s


def slow_answer(fake_claude) -> None:
    """The fake model searches once, then streams ANSWER a word every PACE seconds."""
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "fixtures"})
    fake_claude.enqueue_message([{"type": "text", "text": ANSWER}], pace=PACE)


class StreamRequests:
    """WSGI middleware noting the Last-Event-ID of every request that opens an answer's stream."""

    def __init__(self, app):
        self.app, self.wsgi_app = app, app.wsgi_app
        self.resumed: list[str | None] = []
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        if environ["PATH_INFO"].startswith("/ask/stream/"):
            with self.lock:
                self.resumed.append(environ.get("HTTP_LAST_EVENT_ID"))
        return self.wsgi_app(environ, start_response)


@pytest.fixture
def live_app(make_app, fake_claude):
    """The app in Claude mode (fake Messages API), CSRF on, its stream requests noted, served on loopback."""
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url)
    requests = StreamRequests(app)
    app.wsgi_app = requests
    with serve(app) as base:
        yield base, requests


def ask(page, base: str, question: str) -> None:
    """Open the chat and send `question`; return once the answer's first words show."""
    page.goto(base)
    page.get_by_label("Your question").fill(question)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("article.exchange[aria-busy] .prose")).to_contain_text("word1", timeout=30_000)


def expect_answered(page) -> None:
    """The page ends with the whole answer, answered, and nothing on it reads "interrupted"."""
    expect(page.locator("article.exchange[aria-busy]")).to_have_count(0, timeout=30_000)
    done = page.locator("article.exchange").last
    expect(done).to_have_class(re.compile(r"\bexchange-answered\b"))
    expect(done.locator(".prose")).to_contain_text("word40 and that is all.")
    expect(page.get_by_text("interrupted")).to_have_count(0)
    expect(page.get_by_text("not saved")).to_have_count(0)


def expect_stored_answered(page) -> None:
    """A fresh load of the conversation shows the exchange stored as answered."""
    page.reload()
    expect(page.locator("article.exchange")).to_have_count(1)
    expect(page.locator("article.exchange-answered .prose")).to_contain_text("word40 and that is all.")
    expect(page.get_by_text("interrupted")).to_have_count(0)


def words_shown(page) -> list[str]:
    """The words of the answer the pending exchange shows so far."""
    return page.locator("article.exchange[aria-busy] .prose").inner_text().split()


def test_reloading_mid_answer_shows_it_continue_then_complete(browser, live_app, fake_claude):
    base, _requests = live_app
    slow_answer(fake_claude)
    page = browser.new_page()
    ask(page, base, "What do fixtures give tests, when reloaded?")
    page.reload()
    pending = page.locator("article.exchange[aria-busy]")
    expect(pending).to_have_count(1)  # still in progress after the reload
    expect(pending.locator(".prose")).to_contain_text("word1")  # what was said so far, at once
    expect(page.locator("#ask-send")).to_be_disabled()
    expect_answered(page)
    expect(page.locator("#ask-send")).to_be_enabled()
    expect_stored_answered(page)
    page.close()


def test_a_second_tab_shows_the_answer_in_progress(browser, live_app, fake_claude):
    base, _requests = live_app
    slow_answer(fake_claude)
    context = browser.new_context()
    first = context.new_page()
    ask(first, base, "What do fixtures give tests, in two tabs?")
    second = context.new_page()
    second.goto(first.url)
    expect(second.locator("article.exchange[aria-busy] .prose")).to_contain_text("word1")
    assert 0 < len(words_shown(second)) < len(ANSWER.split())  # in progress, not done
    for page in (first, second):
        expect_answered(page)
    expect_stored_answered(second)
    context.close()


def test_a_browser_cut_off_for_five_seconds_comes_back_to_the_answer_complete(browser, live_app, fake_claude):
    base, requests = live_app
    proxy = CuttingProxy(int(base.rsplit(":", 1)[1]))
    slow_answer(fake_claude)
    page = browser.new_page()
    try:
        ask(page, f"http://127.0.0.1:{proxy.port}", "What do fixtures give tests, cut off for a while?")
        proxy.cut()  # the network goes: the stream breaks, and the browser's retries fail
        time.sleep(5)
        proxy.restore()
        # The browser reconnects by itself, saying which event it saw last; the page goes on from there,
        # repeating nothing it shows.
        expect(page.locator("article.exchange[aria-busy] .prose")).to_contain_text("word", timeout=30_000)
        wait_until(lambda: any(resumed is not None for resumed in requests.resumed))
        shown = words_shown(page) if page.locator("article.exchange[aria-busy]").count() else []
        assert shown == ANSWER.split()[: len(shown)], f"the page shows {shown}"
        expect_answered(page)
        expect_stored_answered(page)
    finally:
        page.close()
        proxy.close()


def wait_until(condition, seconds: float = 30) -> None:
    """Poll `condition` until it holds; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.1)
