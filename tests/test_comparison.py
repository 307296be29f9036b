"""Comparison questions: split into two halves, each answered from its own lesson, both quoted."""

from __future__ import annotations

import pytest

from app.assistant.extractive.comparison import split_comparison

PYTEST = "Python Testing with Pytest"
VECTOR = "Vector Databases from Scratch"


@pytest.mark.parametrize(
    ("question", "halves"),
    [
        (
            "Compare HNSW and IVF - which setting trades recall for speed in each?",
            (
                "Compare HNSW - which setting trades recall for speed in each?",
                "Compare IVF - which setting trades recall for speed in each?",
            ),
        ),
        (
            "How do the RAG course and the vector databases course each define recall at k?",
            (
                "How do the RAG course each define recall at k?",
                "How do the vector databases course each define recall at k?",
            ),
        ),
        (
            "How is cosine similarity explained in the RAG course compared with the vector databases course?",
            (
                "How is cosine similarity explained in the RAG course",
                "How is cosine similarity explained in the vector databases course?",
            ),
        ),
        (
            "Where should secrets be handled, in deployment and in tests?",
            (
                "Where should secrets be handled, in deployment",
                "Where should secrets be handled, in in tests?",
            ),
        ),
        (
            "How should re-ingestion skip unchanged files, and in what order are chunks replaced?",
            ("How should re-ingestion skip unchanged files?", "in what order are chunks replaced?"),
        ),
        (
            "Re-ranking in RAG versus re-ranking after quantization - what do both courses say?",
            (
                "Re-ranking in RAG - what do both courses say?",
                "Re-ranking in re-ranking after quantization - what do both courses say?",
            ),
        ),
    ],
)
def test_a_comparison_splits_into_one_question_per_compared_thing(question, halves):
    assert split_comparison(question) == halves


@pytest.mark.parametrize(
    "question",
    [
        "Lesson 3 of Flask and HTMX, which swap style appends to a chat transcript?",
        "How do I combine the ranked lists from keyword search and vector search?",
        "I filter after the vector search and get fewer results than I asked for. Why?",
        "how many lessons does the Flask and HTMX course have",
        "What is a fixture?",
        "Compare",
    ],
)
def test_a_plain_and_is_no_comparison(question):
    assert split_comparison(question) is None


@pytest.fixture
def answerer(services):
    """The extractive answerer of an app without an API key."""
    return services.assistant._answerer


@pytest.mark.parametrize(
    ("question", "lessons"),
    [
        ("Compare fixtures and parametrize in pytest", [(PYTEST, 2), (PYTEST, 3)]),
        ("What is the difference between HNSW graphs and metadata filtering?", [(VECTOR, 2), (VECTOR, 3)]),
    ],
)
def test_a_comparison_quotes_a_passage_for_each_half(answerer, question, lessons):
    answer = answerer.answer(question, [])
    assert [(source.course_title, source.lesson_number) for source in answer.sources] == lessons
    headings = [line.strip("*") for line in answer.markdown.splitlines() if line.startswith("**")]
    assert headings == [source.label for source in answer.sources]


def test_halves_that_find_the_same_sentences_answer_once(answerer):
    question = "Compare fixtures and fixture setup"
    assert split_comparison(question) == ("Compare fixtures", "Compare fixture setup")
    plan = answerer.plan(question)
    assert plan.halves is not None  # both halves have a topic of their own: the question is split
    assert answerer._compare(plan) is None
    # Both halves land on the same sentences of the fixtures lesson: the ordinary answer, quoted once.
    answer = answerer.answer(question, [])
    assert [(source.course_title, source.lesson_number) for source in answer.sources][:1] == [(PYTEST, 2)]
    body = answer.markdown.split("\n\n", 1)[1]
    assert len(answer.sources) == len({line for line in body.splitlines() if line.startswith("**")})
