"""The chat in headless Chromium with an OpenAI-compatible model: its name, a checked citation, a failure."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import openai_config
from tests.e2e.conftest import serve
from tests.e2e.test_chat_e2e import ask, check_answer_and_sources, csp_violations, shot
from tests.fake_openai import Reply

pytestmark = pytest.mark.e2e

SEARCH_TOOL = "search_course_content"
NAME = "Campus Llama"


@pytest.fixture
def model_server(make_app, fake_openai):
    """The app answering with the fake OpenAI-compatible model, CSRF on, served on 127.0.0.1."""
    app = make_app(**openai_config(fake_openai.url, MODEL_DISPLAY_NAME=NAME))
    with serve(app) as base:
        yield base


def test_chat_with_an_openai_compatible_model(browser, model_server, fake_openai, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    violations = csp_violations(page)
    page.goto(model_server)
    expect(page.locator(".mode")).to_contain_text(f"Answers are written by {NAME}")

    # One supported marker becomes a numbered citation; the one to a passage never given is gone.
    fake_openai.enqueue_tool_calls((SEARCH_TOOL, {"query": "sentence-aware chunking", "course_name": "RAG"}))
    fake_openai.enqueue_text("Sentence-aware chunking packs whole sentences into each chunk [1]. Also [9].")
    ask(page, "What is sentence-aware chunking?", exchanges=1)
    check_answer_and_sources(page, "packs whole sentences into each chunk")
    answer = page.locator("article.exchange").last
    expect(answer.locator("sup.citation")).to_have_count(1)
    expect(answer.locator(".prose")).not_to_contain_text("[9]")
    expect(answer.locator(".source-chip")).to_have_count(1)
    shot(page, tmp_path / "1-cited.png")

    # The model fails: its message, then the extractive answer with its sources.
    fake_openai.enqueue(Reply(status=500, error="out of memory"))
    ask(page, "How do chunks overlap?", exchanges=2)
    failed = page.locator("article.exchange").last
    expect(failed.locator(".prose")).to_contain_text(f"{NAME} could not answer.")
    expect(failed.locator(".prose")).to_contain_text("internal error")
    check_answer_and_sources(page, "course materials say instead")
    shot(page, tmp_path / "2-fallback.png")
    assert violations == []
    page.close()
