""" "What is X" questions lead with the sentence that defines X."""

from __future__ import annotations

import pytest

from app.assistant.extractive.definitions import defines, definitions, describes
from app.assistant.extractive.intent import defined_term
from app.language.tokens import stem


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


@pytest.mark.parametrize("written", ["a mixer-board", "a mixer board", "a mixerboard", "Mixer-boards"])
@pytest.mark.parametrize("asked", ["mixer board", "mixer-board", "mixerboard"])
def test_a_term_is_one_term_however_it_is_hyphenated_or_spaced(written, asked):
    term = defined_term(f"what is a {asked}?")
    assert term is not None
    verb = "are" if written.endswith("s") else "is"
    assert defines(f"{written.capitalize()} {verb} a desk that blends sound.", term)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # Saying what the term does, the term opening the sentence, defines it too.
        ("A mixer-board blends the signals of several microphones into one.", True),
        ("The mixer board can blend several microphones.", True),
        # An explanation right after the term and a colon.
        ("Most studios use a mixer-board: the signals are blended into one track.", True),
        # The term elsewhere, or a list after a colon, or a plural noun after it, says nothing of what it is.
        ("Every studio has a mixer board in the back.", False),
        ("Three knobs control the mixer board: gain, pan and level.", False),
        ("A mixer board buss carries the signal.", False),
    ],
)
def test_a_sentence_opening_on_the_term_may_say_what_it_does(sentence, expected):
    assert describes(sentence, ["mixer", "board"]) is expected


def test_what_the_term_does_defines_it_only_where_nothing_says_what_it_is():
    doing = "A mixer board blends several microphones into one track."
    being = "A mixer board is a desk that blends sound."
    assert definitions([doing, "The desk is heavy."], ["mixer", "board"]) == [True, False]
    assert definitions([doing, being], ["mixer", "board"]) == [False, True]
    assert definitions([doing], None) == [False]


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
