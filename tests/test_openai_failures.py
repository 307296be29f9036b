"""An OpenAI-compatible model that fails: Claude mode's messages, then the extractive answer in its place;
a refusal of tools that is, or is not, a model without tool calling."""

from __future__ import annotations

import pytest

from app.assistant.base import TextEvent
from app.assistant.extractive.render import SEARCH_NOTE
from app.assistant.model_messages import (
    BAD_REQUEST_MESSAGE,
    CUT_SHORT_MESSAGE,
    KEY_REFUSED_MESSAGE,
    NO_MODEL_MESSAGE,
    RATE_LIMITED_MESSAGE,
    SERVER_ERROR_MESSAGE,
    TIMEOUT_MESSAGE,
    UNREACHABLE_MESSAGE,
)
from app.assistant.openai.answerer import LOOPING_MESSAGE, MALFORMED_MESSAGE
from app.assistant.tools import SEARCH_TOOL
from tests.conftest import openai_config
from tests.fake_openai import Reply
from tests.test_cli import closed_port
from tests.test_openai import assistant_of, passages_app, search_chunking


@pytest.fixture
def assistant(openai_app):
    """The Assistant of an app answering with the fake OpenAI-compatible model, tool calling on."""
    return assistant_of(openai_app)


def assert_fallback(answer, name: str, message: str) -> None:
    """The answer says the model failed with `message`, then answers extractively, with its sources."""
    note = f"> **{name} could not answer.** {message} Here is what the course materials say instead."
    assert answer.markdown.startswith(note + "\n\n"), answer.markdown[:300]
    assert SEARCH_NOTE not in answer.markdown, "a model is configured: that note would be wrong"
    assert answer.mode == "extractive" and answer.model_error == message
    assert answer.sources, "the extractive answer quotes the courses"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(status=500, error="boom"), SERVER_ERROR_MESSAGE),
        (Reply(status=503, error="loading model"), SERVER_ERROR_MESSAGE),
        (Reply(status=401, error="bad key"), KEY_REFUSED_MESSAGE),
        (Reply(status=404, error="model 'llama-test' not found"), NO_MODEL_MESSAGE),
        (Reply(status=429, error="slow down"), RATE_LIMITED_MESSAGE),
        (Reply(status=422, error="validation"), BAD_REQUEST_MESSAGE),
        (
            Reply(text="Sentence-aware chunking packs whole", finish_reason="stop", cut_after=5),
            CUT_SHORT_MESSAGE,
        ),
        (
            Reply(tool_calls=[(SEARCH_TOOL, '{"query": "chunk')], finish_reason="tool_calls"),
            MALFORMED_MESSAGE,
        ),
        (Reply(tool_calls=[(SEARCH_TOOL, '["chunking"]')], finish_reason="tool_calls"), MALFORMED_MESSAGE),
    ],
    ids=["500", "503", "401", "404", "429", "422", "cut-short", "bad-json", "not-an-object"],
)
def test_each_model_failure_says_why_and_answers_extractively(assistant, fake_openai, reply, message):
    fake_openai.enqueue(reply)

    answer = assistant.answer("What is sentence-aware chunking?", [])

    assert_fallback(answer, "llama-test", message)


def test_a_model_slower_than_the_timeout_falls_back(make_app, fake_openai):
    app = passages_app(make_app, fake_openai, OPENAI_TIMEOUT=0.5)
    fake_openai.enqueue(Reply(text="late", finish_reason="stop", hold=2))

    assert_fallback(
        assistant_of(app).answer("What is sentence-aware chunking?", []), "small-local", TIMEOUT_MESSAGE
    )


def test_a_refused_connection_falls_back_and_names_the_model_as_the_operator_does(make_app):
    unreachable = f"http://127.0.0.1:{closed_port()}/v1"
    app = make_app(**openai_config(unreachable, MODEL_DISPLAY_NAME="Our school's Llama"))

    answer = assistant_of(app).answer("What is sentence-aware chunking?", [])

    assert_fallback(answer, "Our school's Llama", UNREACHABLE_MESSAGE)


def test_text_streamed_before_a_failure_is_not_in_the_fallback_answer(assistant, fake_openai):
    fake_openai.enqueue(Reply(text="Half an answer that never", finish_reason="stop", cut_after=6))

    events = list(assistant.stream("What is sentence-aware chunking?", []))

    streamed = "".join(event.text for event in events if isinstance(event, TextEvent))
    assert streamed.startswith("Half an ans") and CUT_SHORT_MESSAGE in streamed
    assert "Half" not in events[-1].answer.markdown


def test_the_last_round_forbids_tools_and_a_model_that_keeps_calling_them_falls_back(make_app, fake_openai):
    app = make_app(**openai_config(fake_openai.url, "m", MAX_TOOL_ROUNDS=1))
    search_chunking(fake_openai)
    search_chunking(fake_openai)

    answer = assistant_of(app).answer("What is sentence-aware chunking?", [])

    assert fake_openai.requests[1]["tool_choice"] == "none"
    assert_fallback(answer, "m", LOOPING_MESSAGE)


def test_a_refusal_after_a_tool_round_is_an_error_not_a_model_without_tools(make_app, fake_openai):
    app = passages_app(make_app, fake_openai, OPENAI_TOOLS="auto")
    search_chunking(fake_openai)
    fake_openai.enqueue_error(400, "unknown tool_call_id")

    answer = assistant_of(app).answer("What is sentence-aware chunking?", [])
    assistant_of(app).answer("And overlap?", [])

    assert_fallback(answer, "small-local", BAD_REQUEST_MESSAGE)
    assert "tools" in fake_openai.requests[-1], "tool calling stays on"


def test_a_refusal_of_tools_is_an_error_when_tool_calling_is_on(make_app, fake_openai):
    app = passages_app(make_app, fake_openai, OPENAI_TOOLS="on")
    fake_openai.enqueue_error(400, "this model does not support tools")

    answer = assistant_of(app).answer("What is sentence-aware chunking?", [])

    assert_fallback(answer, "small-local", BAD_REQUEST_MESSAGE)
    assert len(fake_openai.requests) == 1
