"""The Claude tool loop end to end: the real SDK over HTTP to the fake Messages API, the real index."""

from __future__ import annotations

import socket

import pytest

from app.assistant.base import Exchange, StatusEvent, TextEvent
from app.assistant.citations import search_result_block, strip_markers
from app.assistant.claude.answerer import EMPTY_ANSWER
from app.assistant.tools import OUTLINE_TOOL, SEARCH_TOOL
from app.errors import ModelUnavailable
from app.rules import snippet

RAG = "Retrieval-Augmented Generation in Practice"
VECTOR = "Vector Databases from Scratch"
PYTEST = "Python Testing with Pytest"
NO_TOOLS = {"type": "none"}


def assistant_of(app):
    """The app's Assistant."""
    return app.extensions["services"].assistant


@pytest.fixture
def assistant(claude_app):
    """The Assistant of an app in Claude mode, talking to fake_claude."""
    return assistant_of(claude_app)


def tool_results(request: dict) -> list[dict]:
    """The tool_result blocks of a request's last (user) message."""
    last = request["messages"][-1]
    assert last["role"] == "user"
    return [block for block in last["content"] if block["type"] == "tool_result"]


def result_text(result: dict) -> str:
    """A tool_result's text as the model reads it: plain text, or search results as title + sentences."""
    if isinstance(result["content"], str):
        return result["content"]
    return "\n\n".join(
        block["title"] + "\n" + " ".join(text["text"] for text in block["content"])
        for block in result["content"]
    )


def test_direct_answer_sends_question_system_and_tools_once(assistant, fake_claude):
    fake_claude.enqueue_text("Hello! Ask me about the courses.")

    answer = assistant.answer("Hi there", [])

    assert answer.markdown == "Hello! Ask me about the courses."
    assert (answer.mode, answer.tool_rounds, answer.sources) == ("claude", 0, [])
    assert answer.usage == fake_claude.usage
    [request] = fake_claude.requests
    assert request["model"] == "claude-sonnet-5-5" == assistant.model
    assert request["messages"] == [{"role": "user", "content": "Hi there"}]
    assert [tool["name"] for tool in request["tools"]] == [SEARCH_TOOL, OUTLINE_TOOL]
    assert "tool_choice" not in request
    assert not {"temperature", "top_p", "top_k"} & set(request)
    headers = fake_claude.request_headers[0]
    assert "test-key" in (headers.get("x-api-key") or headers.get("authorization", ""))


def test_system_prompt_and_last_tool_are_marked_for_prompt_caching(assistant, fake_claude):
    assistant.answer("Hi", [])

    request = fake_claude.requests[0]
    [system] = request["system"]
    assert system["cache_control"] == {"type": "ephemeral"}
    assert "course" in system["text"].lower() and "search" in system["text"].lower()
    assert request["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in tool for tool in request["tools"][:-1])


def test_one_round_sends_the_passages_back_and_cites_them(assistant, fake_claude):
    fake_claude.enqueue_tool_use(
        SEARCH_TOOL, {"query": "sentence-aware chunking", "course_name": "RAG"}, id="tu_1"
    )
    fake_claude.enqueue_text("Sentence-aware chunking packs whole sentences (Lesson 2).")

    answer = assistant.answer("What is sentence-aware chunking?", [])

    assert answer.markdown == "Sentence-aware chunking packs whole sentences (Lesson 2)."
    assert answer.tool_rounds == 1
    assert answer.sources[0].label == f"{RAG} – Lesson 2: Chunking Documents"
    assert answer.sources[0].lesson_link == "https://example.com/courses/rag/lesson-2"
    assert answer.usage["input_tokens"] == 2 * fake_claude.usage["input_tokens"]
    first, second = fake_claude.requests
    assert second["messages"][:2] == [
        {"role": "user", "content": "What is sentence-aware chunking?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "tu_1",
                    "name": SEARCH_TOOL,
                    "input": {"query": "sentence-aware chunking", "course_name": "RAG"},
                }
            ],
        },
    ]
    [result] = tool_results(second)
    assert result["tool_use_id"] == "tu_1" and result["is_error"] is False
    first_result = result["content"][0]
    assert first_result["type"] == "search_result" and first_result["citations"] == {"enabled": True}
    assert first_result["title"] == f"{RAG} – Lesson 2: Chunking Documents"
    assert first_result["source"] == "https://example.com/courses/rag/lesson-2"
    assert all(block["type"] == "text" for block in first_result["content"])
    assert "sentence-aware chunking" in result_text(result)
    assert "tool_choice" not in second and second["tools"] == first["tools"]


def test_two_sequential_rounds(make_app, fake_claude):
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, MAX_TOOL_ROUNDS=3)
    fake_claude.enqueue_tool_use(OUTLINE_TOOL, {"course_name": "vector databases"})
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "HNSW", "course_name": "vector", "lesson_number": 2})
    fake_claude.enqueue_text("Lesson 2 covers HNSW graphs.")

    answer = assistant_of(app).answer("What does the HNSW lesson of the vector course teach?", [])

    assert answer.markdown == "Lesson 2 covers HNSW graphs."
    assert answer.tool_rounds == 2
    assert [(s.course_title, s.lesson_number) for s in answer.sources] == [(VECTOR, None), (VECTOR, 2)]
    assert len(fake_claude.requests) == 3
    assert all("tool_choice" not in request for request in fake_claude.requests)
    assert "Lesson 2: HNSW Graphs" in result_text(tool_results(fake_claude.requests[1])[0])
    assert "hierarchical navigable small world" in result_text(tool_results(fake_claude.requests[2])[0])
    assert [m["role"] for m in fake_claude.requests[2]["messages"]] == ["user", "assistant"] * 2 + ["user"]


def test_parallel_tool_calls_in_one_turn_get_one_result_message(assistant, fake_claude):
    fake_claude.enqueue_tool_uses(
        [
            (SEARCH_TOOL, {"query": "cosine similarity", "course_name": "RAG"}, "tu_a"),
            (SEARCH_TOOL, {"query": "fixture scope", "course_name": "pytest", "lesson_number": 2}, "tu_b"),
            (OUTLINE_TOOL, {"course_name": "vector databases"}, "tu_c"),
        ],
        text="Let me look those up.",
    )
    fake_claude.enqueue_text("Here is what the three courses say.")

    answer = assistant.answer("Compare cosine similarity, fixture scope and the vector DB outline", [])

    assert answer.tool_rounds == 1
    second = fake_claude.requests[1]
    assistant_turn = second["messages"][1]["content"]
    assert assistant_turn[0] == {"type": "text", "text": "Let me look those up."}
    results = tool_results(second)
    assert [r["tool_use_id"] for r in results] == ["tu_a", "tu_b", "tu_c"]
    assert len(second["messages"][-1]["content"]) == 3
    assert "cosine similarity" in result_text(results[0])
    assert "fixture scope" in result_text(results[1])
    assert results[2]["content"].startswith(f"Course: {VECTOR}")
    courses = [source.course_title for source in answer.sources]
    assert courses.index(RAG) < courses.index(PYTEST) < courses.index(VECTOR)


def test_round_limit_forces_a_final_answer_with_tools_still_defined(assistant, fake_claude):
    for lesson in (1, 2):
        fake_claude.enqueue_tool_use(
            SEARCH_TOOL, {"query": "tests", "course_name": "pytest", "lesson_number": lesson}
        )
    fake_claude.enqueue_text("Final answer from two lessons.")

    answer = assistant.answer("Tell me everything about pytest", [])

    assert answer.markdown == "Final answer from two lessons."
    assert answer.tool_rounds == 2
    first, second, final = fake_claude.requests
    assert "tool_choice" not in first and "tool_choice" not in second
    assert final["tool_choice"] == NO_TOOLS
    assert final["tools"] == first["tools"]
    assert len(tool_results(final)) == 1
    assert [s.lesson_number for s in answer.sources] == [1, 2]


def test_a_model_that_ignores_the_limit_gets_no_more_rounds(make_app, fake_claude):
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, MAX_TOOL_ROUNDS=1)
    for _ in range(3):
        fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "chunking"})

    answer = assistant_of(app).answer("What is chunking?", [])

    assert len(fake_claude.requests) == 2
    assert fake_claude.requests[1]["tool_choice"] == NO_TOOLS
    assert answer.tool_rounds == 1
    assert answer.markdown == EMPTY_ANSWER


def test_history_is_sent_as_real_turns_trimmed_to_max_history(assistant, fake_claude):
    history = [
        Exchange(question="First question?", answer="First answer."),
        Exchange(question="What is RAG?", answer="**RAG** retrieves passages."),
        Exchange(question="And chunking?", answer="Chunks are sentence-aware."),
    ]

    assistant.answer("How big should a chunk be?", history)

    assert fake_claude.requests[0]["messages"] == [
        {"role": "user", "content": "What is RAG?"},
        {"role": "assistant", "content": "**RAG** retrieves passages."},
        {"role": "user", "content": "And chunking?"},
        {"role": "assistant", "content": "Chunks are sentence-aware."},
        {"role": "user", "content": "How big should a chunk be?"},
    ]


def test_unknown_course_in_a_tool_call_is_an_error_result_the_model_can_read(assistant, fake_claude):
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "pods", "course_name": "Kubernetes for beginners"})
    fake_claude.enqueue_text(
        "There is no Kubernetes course; the courses are RAG, vector databases and pytest."
    )

    answer = assistant.answer("What does the Kubernetes course say about pods?", [])

    [result] = tool_results(fake_claude.requests[1])
    assert result["is_error"] is True
    assert "No course matches 'Kubernetes for beginners'" in result["content"]
    for title in (RAG, VECTOR, PYTEST):
        assert title in result["content"]
    assert answer.sources == []
    assert answer.markdown.startswith("There is no Kubernetes course")


def test_sources_are_deduplicated_and_ordered_by_first_use(make_app, fake_claude):
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, MAX_TOOL_ROUNDS=3)
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "cosine", "course_name": "RAG", "lesson_number": 3})
    fake_claude.enqueue_tool_uses(
        [
            (SEARCH_TOOL, {"query": "chunking", "course_name": "RAG", "lesson_number": 2}),
            (SEARCH_TOOL, {"query": "dot product", "course_name": "RAG", "lesson_number": 3}),
        ]
    )
    fake_claude.enqueue_tool_use(OUTLINE_TOOL, {"course_name": "RAG"})
    fake_claude.enqueue_text("Done.")

    answer = assistant_of(app).answer("Explain chunking and cosine similarity in RAG", [])

    assert [s.label for s in answer.sources] == [
        f"{RAG} – Lesson 3: Embeddings and Vector Search",
        f"{RAG} – Lesson 2: Chunking Documents",
        RAG,
    ]


def test_each_answer_has_its_own_sources(assistant, fake_claude):
    fake_claude.enqueue_tool_use(
        SEARCH_TOOL, {"query": "fixtures", "course_name": "pytest", "lesson_number": 2}
    )
    fake_claude.enqueue_text("Fixtures.")
    fake_claude.enqueue_text("Hello.")

    first = assistant.answer("What are fixtures?", [])
    second = assistant.answer("Hello", [])

    assert [s.lesson_number for s in first.sources] == [2]
    assert second.sources == []


def test_an_empty_final_reply_becomes_a_sensible_message(assistant, fake_claude):
    fake_claude.enqueue_message([], stop_reason="end_turn")

    assert assistant.answer("Hmm?", []).markdown == EMPTY_ANSWER


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (429, "The assistant is busy right now (rate limited). Please try again in a moment."),
        (500, "The assistant's service had an internal error. Please try again in a moment."),
        (529, "The assistant is overloaded right now. Please try again in a moment."),
    ],
)
def test_retryable_errors_become_model_unavailable_after_the_sdk_retries(
    assistant, fake_claude, status, message
):
    fake_claude.enqueue_error(status, "Scripted failure.", times=3)

    with pytest.raises(ModelUnavailable) as caught:
        assistant.answer("What is RAG?", [])

    assert caught.value.message == message
    assert caught.value.status == 503
    assert f"HTTP {status}" in caught.value.detail
    # The default ANTHROPIC_MAX_RETRIES=2: the first try plus two retries.
    assert len(fake_claude.requests) == 3


def test_a_transient_overload_is_retried_by_the_sdk(assistant, fake_claude):
    fake_claude.enqueue_error(529, "Overloaded.")
    fake_claude.enqueue_text("Recovered.")

    assert assistant.answer("What is RAG?", []).markdown == "Recovered."
    assert len(fake_claude.requests) == 2


@pytest.mark.parametrize(
    ("status", "fragment"),
    [(401, "API key was refused"), (400, "could not process this question"), (404, "model is not available")],
)
def test_request_errors_are_not_retried_and_explain_themselves(assistant, fake_claude, status, fragment):
    fake_claude.enqueue_error(status, "Scripted failure.")

    with pytest.raises(ModelUnavailable) as caught:
        assistant.answer("What is RAG?", [])

    assert fragment in caught.value.message
    assert len(fake_claude.requests) == 1


@pytest.mark.parametrize(
    "script",
    [
        lambda fake: fake.enqueue_hang(60),
        # The answer starts streaming, then stalls: the SDK raises its HTTP client's timeout unwrapped.
        lambda fake: fake.enqueue_cited("Slow answer " * 10, stall_after=4),
    ],
    ids=["before-the-reply", "mid-stream"],
)
def test_a_reply_slower_than_the_timeout_becomes_model_unavailable(make_app, fake_claude, script):
    app = make_app(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_claude.url,
        ANTHROPIC_TIMEOUT=0.5,
        ANTHROPIC_MAX_RETRIES=0,
    )
    script(fake_claude)

    with pytest.raises(ModelUnavailable) as caught:
        assistant_of(app).answer("What is RAG?", [])

    assert caught.value.message == "The assistant took too long to answer. Please try again in a moment."
    assert len(fake_claude.requests) == 1


def test_an_unreachable_api_becomes_model_unavailable(make_app):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    app = make_app(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{closed_port}",
        ANTHROPIC_MAX_RETRIES=0,
    )

    with pytest.raises(ModelUnavailable) as caught:
        assistant_of(app).answer("What is RAG?", [])

    assert caught.value.message == "The assistant could not be reached. Please try again later."


# -- claim-level citations and streaming ---------------------------------------------------------------------


def search_results(assistant, query: str, course: str, lesson: int | None = None) -> list[dict]:
    """The search_result blocks the loop will send for this search (the index is deterministic)."""
    return [search_result_block(p) for p in assistant.toolbox.search(query, course, lesson).passages]


def test_cited_claims_get_numbered_markers_and_their_cited_text_as_snippet(assistant, fake_claude):
    fake_claude.enqueue_tool_uses(
        [
            (SEARCH_TOOL, {"query": "sentence-aware chunking", "course_name": "RAG", "lesson_number": 2}),
            (SEARCH_TOOL, {"query": "fixture scope", "course_name": "pytest", "lesson_number": 2}),
        ]
    )
    rag = search_results(assistant, "sentence-aware chunking", "RAG", 2)
    pytest_ = search_results(assistant, "fixture scope", "pytest", 2)
    fixture_index = len(rag)
    fake_claude.enqueue_cited(
        "In short: ",
        ("chunks keep whole sentences.", [fake_claude.citation(rag[0], 0)]),
        " And ",
        ("fixtures have a scope.", [fake_claude.citation(pytest_[0], fixture_index)]),
        "\n\nThat is all.",
    )

    answer = assistant.answer("Chunking and fixture scope?", [])

    sent = [block for result in tool_results(fake_claude.requests[1]) for block in result["content"]]
    assert sent == rag + pytest_
    assert answer.markdown == (
        "In short: chunks keep whole sentences.[^1] And fixtures have a scope.[^2]\n\nThat is all."
    )
    first, second = answer.sources[:2]
    assert (first.course_title, first.lesson_number) == (RAG, 2)
    assert (second.course_title, second.lesson_number) == (PYTEST, 2)
    assert first.snippet == snippet(rag[0]["content"][0]["text"])
    assert second.snippet == snippet(pytest_[0]["content"][0]["text"])


def test_citations_of_one_lesson_share_one_number(assistant, fake_claude):
    # Two searches of one lesson send two search results of the same lesson.
    search = (SEARCH_TOOL, {"query": "chunk", "course_name": "RAG", "lesson_number": 2})
    fake_claude.enqueue_tool_uses([search, search])
    [result] = search_results(assistant, "chunk", "RAG", 2)
    results = [result, result]
    fake_claude.enqueue_cited(
        ("First claim.", [fake_claude.citation(results[0], 0), fake_claude.citation(results[1], 1)]),
        " ",
        ("Second claim.", [fake_claude.citation(results[1], 1)]),
    )

    answer = assistant.answer("Tell me about chunks", [])

    assert answer.markdown == "First claim.[^1] Second claim.[^1]"
    assert [(s.course_title, s.lesson_number) for s in answer.sources] == [(RAG, 2)]
    assert answer.sources[0].snippet == snippet(results[0]["content"][0]["text"])


def test_an_answer_without_citations_has_no_markers_and_lists_its_sources(assistant, fake_claude):
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "HNSW", "course_name": "vector", "lesson_number": 2})
    fake_claude.enqueue_cited("HNSW builds layered graphs.")

    answer = assistant.answer("What is HNSW?", [])

    assert answer.markdown == "HNSW builds layered graphs."
    assert [(s.course_title, s.lesson_number) for s in answer.sources] == [(VECTOR, 2)]
    assert answer.sources[0].snippet


def test_markers_of_earlier_answers_are_not_sent_back_to_the_model(assistant, fake_claude):
    history = [Exchange(question="What is RAG?", answer="RAG retrieves passages.[^1] It cites them.[^2]")]

    assistant.answer("And chunking?", history)

    assert fake_claude.requests[0]["messages"][1] == {
        "role": "assistant",
        "content": "RAG retrieves passages. It cites them.",
    }


def test_stream_yields_a_status_per_tool_call_then_the_text_then_the_answer(assistant, fake_claude):
    fake_claude.enqueue_tool_uses(
        [
            (SEARCH_TOOL, {"query": "chunking", "course_name": "rag", "lesson_number": 2}),
            (OUTLINE_TOOL, {"course_name": "vector databases"}),
        ]
    )
    results = search_results(assistant, "chunking", "rag", 2)
    fake_claude.enqueue_cited(
        ("Chunks keep whole sentences.", [fake_claude.citation(results[0], 0)]),
        " The vector course has lessons.",
    )

    events = list(assistant.stream("Chunking, and the vector outline?", []))

    statuses = [event.text for event in events if isinstance(event, StatusEvent)]
    assert statuses == [f"Searching Lesson 2 of {RAG}…", f"Reading the outline of {VECTOR}…"]
    kinds = [type(event).__name__ for event in events]
    assert kinds[:2] == ["StatusEvent", "StatusEvent"] and kinds[-1] == "DoneEvent"
    texts = [event.text for event in events if isinstance(event, TextEvent)]
    assert len(texts) > 2, "the text arrives in pieces"
    answer = events[-1].answer
    assert answer.markdown == "Chunks keep whole sentences.[^1] The vector course has lessons."
    assert "".join(texts) == strip_markers(answer.markdown)


def test_text_before_a_tool_call_streams_and_stays_in_the_answer(assistant, fake_claude):
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "fixtures"}, text="Let me check the courses.")
    fake_claude.enqueue_text("Fixtures provide test data.")

    events = list(assistant.stream("What are fixtures?", []))

    texts = "".join(event.text for event in events if isinstance(event, TextEvent))
    assert texts == "Let me check the courses.\n\nFixtures provide test data." == events[-1].answer.markdown
    assert [e.text for e in events if isinstance(e, StatusEvent)] == ["Searching the courses for “fixtures”…"]


def test_closing_the_stream_early_closes_the_connection_to_the_model(assistant, fake_claude):
    fake_claude.enqueue_cited("A long answer " * 50, stall_after=4)

    events = assistant.stream("Tell me everything", [])
    first = next(event for event in events if isinstance(event, TextEvent))
    events.close()

    assert first.text == "A "
    assert fake_claude.disconnected.wait(10), "the fake saw the client leave"
    assert len(fake_claude.requests) == 1


def test_an_error_event_in_the_middle_of_the_stream_is_a_friendly_error(assistant, fake_claude):
    fake_claude.enqueue_broken_stream("Half an answer that never ends", after=4)

    with pytest.raises(ModelUnavailable) as caught:
        assistant.answer("What is RAG?", [])

    assert caught.value.message == "The assistant is overloaded right now. Please try again in a moment."


def test_a_stream_cut_off_mid_answer_is_an_error_not_a_complete_answer(assistant, fake_claude):
    fake_claude.enqueue_cut_stream("Half an answer that never ends", after=5)

    events = assistant.stream("What is RAG?", [])
    with pytest.raises(ModelUnavailable) as caught:
        list(events)

    assert "cut short" in caught.value.message
