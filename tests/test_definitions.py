""" "What is X" questions lead with the sentence that defines X."""

from __future__ import annotations

import pytest

from app.assistant.extractive.definitions import defines
from app.assistant.extractive.intent import defined_term


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What is a test?", ["test"]),
        ("what is rag", ["rag"]),
        ("What are fixtures", ["fixture"]),
        ("define product quantization", ["product", "quantization"]),
        ("How do fixtures work?", None),
        ("What is the best way to cut documents into chunks for a vector database?", None),
    ],
)
def test_a_definition_question_names_its_term(question, term):
    assert defined_term(question) == term


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("A fixture is a function decorated with @pytest.fixture.", True),
        ("Fixtures are functions that prepare what a test needs.", True),
        ("HNSW stands for hierarchical navigable small world.", True),
        (
            "Retrieval-augmented generation, usually shortened to RAG, is the pattern that closes this gap.",
            True,
        ),
        ("The point is that a fixture runs once per test.", False),
        ("A test asks for a fixture simply by naming it as a parameter.", False),
        # An indirect question names the term without saying what it is.
        ("So now that we know what a fixture is, let's write one.", False),
    ],
)
def test_a_defining_sentence_opens_with_the_term_and_says_what_it_is(sentence, expected):
    term = ["rag"] if "RAG" in sentence else ["hnsw"] if "HNSW" in sentence else ["fixture"]
    assert defines(sentence, term) is expected


@pytest.fixture
def assistant(services):
    """The Assistant of an app without an API key."""
    return services.assistant


def body(answer) -> str:
    """The quoted text of an extractive answer, after its mode line and lesson heading."""
    return answer.markdown.split("\n\n", 2)[2]


def test_what_is_x_leads_with_the_definition(assistant):
    answer = assistant.answer("What is a test?", [])
    assert body(answer).startswith("A test is an ordinary function")
    assert answer.sources[0].lesson_number == 1
