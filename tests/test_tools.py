"""The assistant's tools on the real index: text for the model, sources, and errors the model can read."""

from __future__ import annotations

import pytest

from app.assistant.base import Source
from app.assistant.tools import OUTLINE_TOOL, SEARCH_TOOL, TOOL_SCHEMAS, SourceCollector, ToolBox
from app.search.searcher import SearchRequest

RAG = "Retrieval-Augmented Generation in Practice"
VECTOR = "Vector Databases from Scratch"
PYTEST = "Python Testing with Pytest"


@pytest.fixture
def toolbox(services) -> ToolBox:
    """A ToolBox over the indexed test library."""
    return ToolBox(services.index, max_results=5)


def test_schemas_name_both_tools_with_their_arguments():
    schemas = {schema["name"]: schema for schema in TOOL_SCHEMAS}

    search = schemas[SEARCH_TOOL]["input_schema"]
    assert search["required"] == ["query"]
    assert search["properties"]["lesson_number"]["type"] == "integer"
    assert set(search["properties"]) == {"query", "course_name", "lesson_number"}
    outline = schemas[OUTLINE_TOOL]["input_schema"]
    assert outline["required"] == ["course_name"]
    assert all(len(schema["description"]) > 80 for schema in TOOL_SCHEMAS)


def test_search_heads_passages_with_course_and_lesson(toolbox):
    result = toolbox.run(SEARCH_TOOL, {"query": "sentence-aware chunking"})

    assert not result.is_error
    assert result.text.startswith(f"[{RAG} – Lesson 2: Chunking Documents]\n")
    assert "sentence-aware chunking" in result.text
    first = result.sources[0]
    assert first.label == f"{RAG} – Lesson 2: Chunking Documents"
    assert first.lesson_link == "https://example.com/courses/rag/lesson-2"
    assert first.course_link == "https://example.com/courses/rag"
    assert 0 < len(first.snippet) <= 201


def test_search_is_plain_hybrid_retrieval_of_the_query_as_written(toolbox):
    # Claude splits a comparison into one search per part itself (the tool's description asks it to).
    query = "chunking documents versus fixture scope"
    snapshot = toolbox.index.catalog.snapshot()

    result = toolbox.run(SEARCH_TOOL, {"query": query})

    ranked = toolbox.index.searcher.search(SearchRequest(query, snapshot, snapshot.entries, None, None, 5))
    assert not result.is_error
    assert result.passages == ranked


def test_search_filters_by_course_name_and_lesson_number(toolbox):
    result = toolbox.run(SEARCH_TOOL, {"query": "similarity", "course_name": "RAG", "lesson_number": 3})

    assert not result.is_error
    assert {(p.course_title, p.lesson_number) for p in result.passages} == {(RAG, 3)}
    assert "cosine similarity" in result.text
    assert {source.label for source in result.sources} == {f"{RAG} – Lesson 3: Embeddings and Vector Search"}


def test_search_accepts_a_lesson_number_sent_as_a_string(toolbox):
    result = toolbox.run(SEARCH_TOOL, {"query": "scope", "course_name": "pytest", "lesson_number": "2"})

    assert {p.lesson_number for p in result.passages} == {2}
    assert "fixture scope" in result.text


def test_unknown_course_is_an_error_result_listing_the_courses(toolbox):
    result = toolbox.run(SEARCH_TOOL, {"query": "pods", "course_name": "Kubernetes for beginners"})

    assert result.is_error
    assert "Kubernetes for beginners" in result.text
    for title in (RAG, VECTOR, PYTEST):
        assert title in result.text
    assert result.sources == []


def test_unknown_lesson_is_an_error_result_naming_the_lessons(toolbox):
    result = toolbox.run(
        SEARCH_TOOL, {"query": "graphs", "course_name": "vector databases", "lesson_number": 7}
    )

    assert result.is_error
    assert "no lesson 7" in result.text
    assert "0" in result.text and "3" in result.text


def test_outline_lists_title_link_instructor_and_every_lesson(toolbox):
    result = toolbox.run(OUTLINE_TOOL, {"course_name": "vector databases"})

    assert not result.is_error
    lines = result.text.splitlines()
    assert lines[0] == f"Course: {VECTOR}"
    assert "Link: https://example.com/courses/vectordb" in lines
    assert "Instructor: Grace Hopper" in lines
    assert "  Lesson 0: Introduction — https://example.com/courses/vectordb/lesson-0" in lines
    assert "  Lesson 2: HNSW Graphs — https://example.com/courses/vectordb/lesson-2" in lines
    assert result.sources == [
        Source(
            label=VECTOR,
            course_title=VECTOR,
            course_link="https://example.com/courses/vectordb",
            snippet="Course outline: 4 lessons.",
        )
    ]


def test_outline_of_an_unknown_course_is_an_error_result(toolbox):
    result = toolbox.run(OUTLINE_TOOL, {"course_name": "Kubernetes for beginners"})

    assert result.is_error
    assert "Courses are:" in result.text


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("delete_everything", {}, "Unknown tool 'delete_everything'"),
        (SEARCH_TOOL, {}, "Missing required argument 'query'"),
        (SEARCH_TOOL, {"query": "   "}, "Missing required argument 'query'"),
        (SEARCH_TOOL, {"query": 42}, "'query' must be a string"),
        (SEARCH_TOOL, {"query": "x", "lesson_number": "two"}, "'lesson_number' must be an integer"),
        (SEARCH_TOOL, {"query": "x", "lesson_number": True}, "'lesson_number' must be an integer"),
        (OUTLINE_TOOL, {}, "Missing required argument 'course_name'"),
        (OUTLINE_TOOL, ["RAG"], "Tool input must be an object"),
    ],
)
def test_bad_calls_come_back_as_error_results(toolbox, name, arguments, expected):
    result = toolbox.run(name, arguments)

    assert result.is_error
    assert expected in result.text


def test_search_of_an_empty_library_says_nothing_was_found(make_app, tmp_path):
    empty = make_app(CHROMA_PATH=str(tmp_path / "empty-chroma")).extensions["services"]

    result = ToolBox(empty.index).run(SEARCH_TOOL, {"query": "cosine similarity"})

    assert not result.is_error
    assert result.text == "No course content found for 'cosine similarity'."
    assert result.sources == []


def test_collector_keeps_each_lesson_once_in_order_of_first_use(toolbox):
    collector = SourceCollector()

    collector.add(
        toolbox.run(SEARCH_TOOL, {"query": "cosine", "course_name": "RAG", "lesson_number": 3}).sources
    )
    collector.add(
        toolbox.run(SEARCH_TOOL, {"query": "chunks", "course_name": "RAG", "lesson_number": 2}).sources
    )
    collector.add(
        toolbox.run(SEARCH_TOOL, {"query": "vectors", "course_name": "RAG", "lesson_number": 3}).sources
    )
    collector.add(toolbox.run(OUTLINE_TOOL, {"course_name": "RAG"}).sources)

    assert [(s.course_title, s.lesson_number) for s in collector.sources] == [(RAG, 3), (RAG, 2), (RAG, None)]
