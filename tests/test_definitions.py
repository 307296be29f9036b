""" "What is X" questions lead with the sentence that defines X."""

from __future__ import annotations

import pytest

from app.assistant.extractive.definitions import defines
from app.assistant.extractive.intent import defined_term
from app.search.names import stem


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
        # The term as what the sentence does something with.
        ("Part of the problem with using a fixture here is that it runs once.", False),
    ],
)
def test_a_defining_sentence_opens_with_the_term_and_says_what_it_is(sentence, expected):
    term = ["rag"] if "RAG" in sentence else ["hnsw"] if "HNSW" in sentence else ["fixture"]
    assert defines(sentence, term) is expected


@pytest.mark.parametrize(
    ("sentence", "term", "expected"),
    [
        ("The smallest unit of a bloom filter is the bit.", ["bit"], True),
        ("So this gap between the cells is known as a synapse.", ["synapse"], True),
        # Spoken run-ons go on after the name.
        ("What stores the data appears to be the page and the page holds rows.", ["page"], True),
        # A word of the term may be left out ("the bit" names a "filter bit")...
        ("The smallest unit of a bloom filter is the bit.", ["filter", "bit"], True),
        # ...but no other word may stand before it, and the name must end the phrase.
        ("The second method is scalar quantization.", ["product", "quantization"], False),
        ("The problem is the baby's brain.", ["baby"], False),
        ("The trick is the bit array.", ["bit"], False),
        # Saying that one exists, or asking what it is, names nothing.
        ("There is a synapse between them.", ["synapse"], False),
        ("Now we know what the synapse is.", ["synapse"], False),
        ("Remember which one is the synapse.", ["synapse"], False),
        # A question about several things is not named by its last one.
        ("The reason is the bit.", ["filter", "hash", "bit"], False),
    ],
)
def test_a_defining_sentence_may_name_the_term_after_saying_what_it_is(sentence, term, expected):
    assert defines(sentence, [stem(word) for word in term]) is expected


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
