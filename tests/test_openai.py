"""An OpenAI-compatible model end to end: the real openai SDK over HTTP to a fake chat completions server,
the real index; tool calling, passages in the prompt and the model's markers (failures: another file)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app.assistant.base import DoneEvent, Exchange, StatusEvent, TextEvent
from app.assistant.model_messages import (
    EMPTY_ANSWER,
    REFUSED_ANSWER,
    TRUNCATED_NOTE,
)
from app.assistant.tools import OUTLINE_TOOL, SEARCH_TOOL
from app.config import ConfigError, load_settings
from tests.conftest import openai_config
from tests.fake_openai import Reply

RAG = "Retrieval-Augmented Generation in Practice"
CHUNKING = f"{RAG} – Lesson 2: Chunking Documents"
CHUNKING_CLAIM = "Sentence-aware chunking packs whole sentences into each chunk"


def assistant_of(app):
    """The app's Assistant."""
    return app.extensions["services"].assistant


@pytest.fixture
def assistant(openai_app):
    """The Assistant of an app answering with the fake OpenAI-compatible model, tool calling on."""
    return assistant_of(openai_app)


def passages_app(make_app, fake_openai, **settings):
    """An app whose model has no tool calling (OPENAI_TOOLS=off unless said otherwise)."""
    return make_app(**openai_config(fake_openai.url, "small-local", **{"OPENAI_TOOLS": "off", **settings}))


def tool_messages(request: dict) -> list[dict]:
    """The tool-role messages of a recorded request."""
    return [message for message in request["messages"] if message["role"] == "tool"]


def search_chunking(fake_openai) -> None:
    """Make the model search the RAG course for sentence-aware chunking."""
    fake_openai.enqueue_tool_calls((SEARCH_TOOL, {"query": "sentence-aware chunking", "course_name": "RAG"}))


# -- with tool calling ---------------------------------------------------------------------------------------


def test_a_direct_answer_sends_system_question_and_function_tools(assistant, fake_openai):
    fake_openai.enqueue_text("Hello! Ask me about the courses.")

    answer = assistant.answer("Hi there", [])

    assert answer.markdown == "Hello! Ask me about the courses."
    assert (answer.mode, answer.tool_rounds, answer.sources) == ("openai", 0, [])
    [request] = fake_openai.requests
    assert request["model"] == "llama-test" == assistant.model
    assert request["stream"] is True
    system, user = request["messages"]
    assert system["role"] == "system" and "[2]" in system["content"]
    assert user == {"role": "user", "content": "Hi there"}
    assert [tool["function"]["name"] for tool in request["tools"]] == [SEARCH_TOOL, OUTLINE_TOOL]
    assert all(tool["type"] == "function" for tool in request["tools"])
    assert "tool_choice" not in request


def test_a_tool_round_sends_numbered_passages_and_a_supported_marker_becomes_a_citation(
    assistant, fake_openai
):
    search_chunking(fake_openai)
    fake_openai.enqueue_text(f"{CHUNKING_CLAIM} [1]. That is all.")

    answer = assistant.answer("What is sentence-aware chunking?", [])

    assert answer.markdown == f"{CHUNKING_CLAIM}[^1]. That is all."
    assert [source.label for source in answer.sources] == [CHUNKING]
    assert "packs whole sentences" in answer.sources[0].snippet
    assert answer.tool_rounds == 1
    second = fake_openai.requests[1]
    [call] = second["messages"][-2]["tool_calls"]
    assert call["function"]["name"] == SEARCH_TOOL
    assert json.loads(call["function"]["arguments"]) == {
        "query": "sentence-aware chunking",
        "course_name": "RAG",
    }
    [result] = tool_messages(second)
    assert result["tool_call_id"] == call["id"]
    assert result["content"].startswith(f"[1] {CHUNKING}\n")
    assert "[2] " in result["content"], "every passage of the search is numbered"


def test_the_stream_has_a_status_per_tool_call_then_text_without_markers(assistant, fake_openai):
    search_chunking(fake_openai)
    fake_openai.enqueue_text(f"{CHUNKING_CLAIM} [1]. Overlap helps [2, 3].")  # split over 3-character chunks

    events = list(assistant.stream("What is sentence-aware chunking?", []))

    statuses = [event.text for event in events if isinstance(event, StatusEvent)]
    assert statuses == [f"Searching {RAG}…"]
    streamed = "".join(event.text for event in events if isinstance(event, TextEvent))
    assert streamed == f"{CHUNKING_CLAIM}. Overlap helps."
    assert isinstance(events[-1], DoneEvent)


def test_markers_to_passages_not_given_or_not_supporting_the_sentence_are_dropped(assistant, fake_openai):
    search_chunking(fake_openai)
    fake_openai.enqueue_text(
        f"{CHUNKING_CLAIM} [1]. Penguins waddle across frozen beaches [1]. Chunks overlap a little [12]."
    )

    answer = assistant.answer("What is sentence-aware chunking?", [])

    assert answer.markdown == (
        f"{CHUNKING_CLAIM}[^1]. Penguins waddle across frozen beaches. Chunks overlap a little."
    )
    assert [source.label for source in answer.sources] == [CHUNKING]
    assert len(answer.unverified_citations) == 2


def test_no_marker_means_no_sources_even_after_a_search(assistant, fake_openai):
    search_chunking(fake_openai)
    fake_openai.enqueue_text("Chunking cuts documents into pieces.")

    answer = assistant.answer("What is chunking?", [])

    assert answer.sources == [] and "[" not in answer.markdown


def test_passages_are_numbered_on_across_rounds_and_markers_cite_either_round(make_app, fake_openai):
    app = make_app(**openai_config(fake_openai.url, "m", MAX_TOOL_ROUNDS=3))
    search_chunking(fake_openai)
    fake_openai.enqueue_tool_calls((SEARCH_TOOL, {"query": "fixture scope", "course_name": "pytest"}))
    fake_openai.enqueue_text("PLACEHOLDER")

    assistant_of(app).answer("Chunking and fixture scope?", [])
    first, second = (tool_messages(fake_openai.requests[2])[i]["content"] for i in (0, 1))
    given = first.count("\n\n[") + 1
    assert second.startswith(f"[{given + 1}] Python Testing with Pytest")

    # The same script again, now citing the second search's first passage.
    fake_openai.requests.clear()
    search_chunking(fake_openai)
    fake_openai.enqueue_tool_calls((SEARCH_TOOL, {"query": "fixture scope", "course_name": "pytest"}))
    sentence = second.split("\n")[1].split(". ")[0]
    fake_openai.enqueue_text(f"{CHUNKING_CLAIM} [1]. {sentence} [{given + 1}].")
    answer = assistant_of(app).answer("Chunking and fixture scope?", [])

    assert answer.markdown.endswith("[^2].") and "[^1]" in answer.markdown
    assert [source.course_title for source in answer.sources] == [RAG, "Python Testing with Pytest"]


@pytest.mark.parametrize(
    ("text", "finish", "expected"),
    [
        ("Chunks keep whole", "length", "Chunks keep whole" + TRUNCATED_NOTE),
        ("", "content_filter", REFUSED_ANSWER),
        ("", "stop", EMPTY_ANSWER),
    ],
)
def test_a_cut_refused_or_empty_reply_ends_as_claude_mode_ends_it(
    assistant, fake_openai, text, finish, expected
):
    fake_openai.enqueue_text(text, finish_reason=finish)

    events = list(assistant.stream("What is chunking?", []))

    assert events[-1].answer.markdown == expected
    streamed = "".join(event.text for event in events if isinstance(event, TextEvent))
    assert streamed == (expected if text else "")


def test_earlier_answers_go_back_without_their_markers(assistant, fake_openai):
    history = [Exchange(question="What is chunking?", answer="Cutting text into pieces.[^1]")]

    assistant.answer("And overlap?", history)

    messages = fake_openai.requests[0]["messages"]
    assert messages[1:] == [
        {"role": "user", "content": "What is chunking?"},
        {"role": "assistant", "content": "Cutting text into pieces."},
        {"role": "user", "content": "And overlap?"},
    ]


def test_closing_the_stream_early_closes_the_connection_to_the_model(assistant, fake_openai):
    fake_openai.enqueue(Reply(text="A long answer, word by word. " * 40, finish_reason="stop", pace=0.02))

    events = assistant.stream("Tell me everything", [])
    next(event for event in events if isinstance(event, TextEvent))  # the answer has begun
    events.close()

    assert fake_openai.disconnected.wait(5)


# -- without tool calling ----------------------------------------------------------------------------------


def test_without_tools_one_search_puts_numbered_passages_in_the_prompt(make_app, fake_openai):
    app = passages_app(make_app, fake_openai)
    fake_openai.enqueue_text(f"{CHUNKING_CLAIM} [1]. Something unrelated about gardening [4].")

    events = list(assistant_of(app).stream("What is sentence-aware chunking?", []))

    [request] = fake_openai.requests
    assert "tools" not in request
    prompt = request["messages"][-1]["content"]
    assert prompt.startswith(f"Course passages:\n\n[1] {CHUNKING}\n")
    assert prompt.endswith("Question: What is sentence-aware chunking?")
    assert [e.text for e in events if isinstance(e, StatusEvent)] == [
        "Searching the courses for “What is sentence-aware chunking?”…"
    ]
    answer = events[-1].answer
    assert answer.markdown == f"{CHUNKING_CLAIM}[^1]. Something unrelated about gardening."
    assert [source.label for source in answer.sources] == [CHUNKING]
    assert (answer.mode, answer.tool_rounds) == ("openai", 0)


def test_without_tools_a_follow_up_is_searched_in_the_conversation_s_context(make_app, fake_openai):
    app = passages_app(make_app, fake_openai)
    history = [
        Exchange(question="How does sentence-aware chunking work?", answer="It packs whole sentences.")
    ]

    assistant_of(app).answer("And what else does it do?", history)

    prompt = fake_openai.requests[0]["messages"][-1]["content"]
    assert prompt.startswith(f"Course passages:\n\n[1] {CHUNKING}\n")


def test_auto_detects_a_model_without_tool_calling_from_its_error_and_remembers(make_app, fake_openai):
    app = passages_app(make_app, fake_openai, OPENAI_TOOLS="auto")
    fake_openai.enqueue_error(400, "registry/small-local does not support tools")
    fake_openai.enqueue_text(f"{CHUNKING_CLAIM} [1].")

    answer = assistant_of(app).answer("What is sentence-aware chunking?", [])
    assistant_of(app).answer("And overlap?", [])

    assert answer.markdown == f"{CHUNKING_CLAIM}[^1]." and answer.mode == "openai"
    with_tools, without, later = fake_openai.requests
    assert "tools" in with_tools and "tools" not in without and "tools" not in later
    assert without["messages"][-1]["content"].startswith("Course passages:")


# -- settings and imports ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "variable"),
    [
        ({"MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, "OPENAI_MODEL"),
        ({"MODEL_PROVIDER": "openai", "OPENAI_MODEL": "m"}, "OPENAI_BASE_URL"),
        ({"MODEL_PROVIDER": "gemini"}, "MODEL_PROVIDER"),
        ({"OPENAI_TOOLS": "sometimes"}, "OPENAI_TOOLS"),
    ],
)
def test_an_incomplete_openai_setup_is_refused_in_one_line(settings, variable):
    with pytest.raises(ConfigError) as error:
        load_settings(settings)
    assert variable in str(error.value) and "\n" not in str(error.value)


def test_the_openai_sdk_is_imported_only_in_its_mode(tmp_path):
    code = (
        "import sys\n"
        "from app.config import load_settings\n"
        "from app.assistant.service import Assistant\n"
        "class Index:\n    chunks_at = None\n"
        f"settings = load_settings({{'instance_path': {str(tmp_path)!r}}})\n"
        "Assistant(settings, Index())\n"
        "print('openai' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
