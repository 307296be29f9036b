"""Extractive answers beyond the sample phrasings: courses named by code or instructor, follow-ups that carry
their topic, and a confidence that declines what no course covers."""

from __future__ import annotations

import pytest

from app.assistant.base import Exchange
from app.assistant.extractive.answerer import ExtractiveAnswerer
from app.assistant.extractive.comparison import split_comparison
from app.assistant.extractive.confidence import MeaningWeights
from app.assistant.extractive.render import NO_MATCH
from app.search.resolver import code_words, instructor_words

PYTEST = "Python Testing with Pytest"
VECTOR = "Vector Databases from Scratch"
RAG = "Retrieval-Augmented Generation in Practice"


@pytest.fixture
def assistant(services):
    """The Assistant of an app without an API key."""
    return services.assistant


def _after(assistant, first: str, follow_up: str):
    """Ask `first`, then `follow_up` with the first exchange as history; return the follow-up's answer."""
    answer = assistant.answer(first, [])
    previous = Exchange(question=first, answer=answer.markdown, sources=answer.sources)
    return assistant.answer(follow_up, [previous])


def test_course_codes_are_the_titles_numbers_and_capitalised_words_but_not_its_year():
    title = "Stanford CSE 231N: Convolutional Networks (2017)"
    assert code_words("what does cse 231n teach about pooling", title) == ["cse", "231n"]
    assert code_words("what happened in 2017", title) == []
    assert code_words("lesson 2 of the networks course", title) == []


def test_an_instructors_surname_names_the_course_with_or_without_the_possessive():
    assert instructor_words("what's in beck's course", "Kent Beck") == ["beck"]
    assert instructor_words("Hopper and Lovelace", "Dr. Ada Lovelace and Grace Hopper") == [
        "Hopper",
        "Lovelace",
    ]
    assert instructor_words("how do I test it", "Kent Beck") == []


def test_the_last_lesson_of_a_course_named_by_its_instructor(assistant):
    answer = assistant.answer("which lesson comes last in hopper's class?", [])

    assert answer.sources and {source.course_title for source in answer.sources} == {VECTOR}
    assert "Lesson 3" in answer.markdown.split("\n\n")[1]


def test_plural_lecturers_is_an_instructor_question(assistant):
    answer = assistant.answer("who are the lecturers of beck's pytest course?", [])

    assert "taught by Kent Beck" in answer.markdown


def test_a_pronoun_follow_up_is_searched_with_the_previous_topic(assistant):
    follow = _after(assistant, "What is a pytest fixture?", "how often does it get created?")

    assert follow.sources[0].course_title == PYTEST and follow.sources[0].lesson_number == 2
    assert "how often the fixture is created" in follow.markdown


def test_a_follow_up_naming_another_course_drops_the_previous_topic(assistant):
    follow = _after(
        assistant, "What is a pytest fixture?", "and how are HNSW graphs layered in the vector course?"
    )

    assert {source.course_title for source in follow.sources} == {VECTOR}


def test_a_question_no_course_covers_is_declined_with_a_low_confidence(assistant):
    # No name in it: declined by the calibrated confidence, not because a name goes unmentioned.
    declined = assistant.answer("how do container orchestrators reconcile a cluster's desired state?", [])
    answered = assistant.answer("Why does pytest rewrite assert statements?", [])

    assert NO_MATCH in declined.markdown and not declined.sources
    assert answered.sources and answered.confidence is not None
    assert declined.confidence is not None and declined.confidence < answered.confidence


@pytest.mark.parametrize(
    ("question", "halves"),
    [
        (
            "Contrast fixtures from the pytest course with HNSW graphs from the vector course",
            ("fixtures from the pytest course", "HNSW graphs from the vector course"),
        ),
        (
            "What do the fixtures lesson and the markers lesson say about setup and teardown?",
            (
                "What do the fixtures lesson say about setup and teardown?",
                "What do the markers lesson say about setup and teardown?",
            ),
        ),
    ],
)
def test_compare_with_and_two_named_lessons_split_where_they_join(question, halves):
    assert split_comparison(question) == halves


def test_how_do_a_and_b_help_splits_at_the_subjects_not_at_the_object():
    # Each subject is asked about on its own; "setup and teardown" is one object and stays whole.
    assert split_comparison("how do fixtures and markers help with setup and teardown?") == (
        "how do fixtures help with setup and teardown?",
        "how do markers help with setup and teardown?",
    )


def test_compare_a_with_b_quotes_both_courses(assistant):
    answer = assistant.answer(
        "Compare fixtures from the pytest course with HNSW graphs from the vector course", []
    )

    assert [(source.course_title, source.lesson_number) for source in answer.sources] == [
        (PYTEST, 2),
        (VECTOR, 2),
    ]
    assert answer.confidence is not None


def test_a_term_the_library_never_uses_is_declined_though_its_generic_words_match(assistant):
    # "vector" and "course" occur all over the library; "Voronoi" nowhere.
    declined = assistant.answer("What does the vector course say about Voronoi cells?", [])
    answered = assistant.answer("how can I run a single test function on a table of different inputs?", [])

    assert f"“{VECTOR}” never mentions “Voronoi”" in declined.markdown and not declined.sources
    assert answered.sources[0].course_title == PYTEST and answered.sources[0].lesson_number == 3


def test_a_question_naming_a_tool_no_course_mentions_is_declined_though_its_subject_is_covered(assistant):
    # HNSW graph layers are the vector course's subject; "Pinecone" and "Windows" occur in no course.
    for question, name in (
        ("How does Pinecone build its HNSW graph layers?", "Pinecone"),
        ("How do pytest fixtures create a temporary directory on Windows?", "Windows"),
    ):
        declined = assistant.answer(question, [])
        # The decline says what the courses never mention, so the student knows what to leave out.
        assert f"never mention “{name}”, so they don't cover this" in declined.markdown, question
        assert not declined.sources
        assert declined.confidence == 0.0
    answered = assistant.answer("How do pytest fixtures create a temporary directory?", [])
    assert answered.sources[0].course_title == PYTEST


def test_a_name_only_another_course_mentions_is_not_covered_by_the_course_asked_about(assistant):
    # MiniLM is the RAG course's embedding model: the vector course never says it.
    declined = assistant.answer("How does the vector course build an HNSW graph of MiniLM embeddings?", [])
    answered = assistant.answer("In the RAG course, how are MiniLM vectors compared by cosine?", [])

    # Named for the course asked about: another course does say it.
    assert f"“{VECTOR}” never mentions “MiniLM”" in declined.markdown and not declined.sources
    assert answered.sources[0].course_title == RAG


def test_a_words_meaning_weight_is_how_far_the_question_moves_without_it(services):
    weigh = MeaningWeights(services.index.embedder)
    weights = weigh("does the course explain Bloom filters", ["explain", "bloom", "filter"])

    assert weights["bloom"] > weights["explain"] and weights["filter"] > weights["explain"]


def test_a_follow_up_looks_first_in_the_lesson_the_previous_answer_quoted(assistant):
    # Both courses speak of filtering by metadata; the conversation was about the RAG course's vector store.
    follow = _after(
        assistant, "What does a vector store return for a question?", "can it narrow them by lesson?"
    )

    assert (follow.sources[0].course_title, follow.sources[0].lesson_number) == (RAG, 3)
    assert "filtered by course or lesson metadata" in follow.markdown


SAWS = (
    "A table saw cuts boards with a spinning blade that rises through the table. A riving knife is a curved "
    "plate mounted just behind the blade. It keeps the cut open so the wood cannot pinch the blade, the "
    "usual cause of kickback. Always stand to the side of the blade rather than behind it, out of the "
    "board's path."
)
ROUTERS = (
    "A router spins a cutting bit at very high speed. Kickback on a router table throws the workpiece "
    "back at you, so always feed against the rotation of the bit. Kickback is the most common router "
    "accident: a featherboard and a push block prevent kickback on the router table, and sharp bits lower "
    "the kickback risk further. Stand square to the router table and keep both hands on the push block to "
    "avoid kickback."
)


@pytest.fixture(scope="module")
def workshop(tmp_path_factory):
    """An extractive answerer over one two-lesson course whose second lesson says "kickback" most."""
    from tests.helpers import Library

    return Library.answerer_over(tmp_path_factory.mktemp("workshop"), "Workshop Safety", SAWS, ROUTERS)


def test_a_follow_up_stays_in_the_lesson_just_quoted_when_its_words_are_there(workshop):
    first = workshop.answer("what does a riving knife do on a table saw?", [])
    previous = Exchange(question="what does a riving knife do?", answer=first.markdown, sources=first.sources)
    follow = workshop.answer("and where should I stand to avoid kickback there?", [previous])

    assert first.sources[0].lesson_number == 1
    assert {source.lesson_number for source in follow.sources} == {1}
    assert "stand to the side of the blade" in follow.markdown


def test_a_two_letter_term_no_course_writes_does_not_count_against_the_passages(services):
    # The courses say "vector database", never "db"; "id" they do say (parametrize's test ids).
    answerer = ExtractiveAnswerer(services.assistant.toolbox, services.index.embedder)
    plans = {
        form: answerer.plan(f"how does a vector {form} store vectors", [])
        for form in ("db", "id", "database")
    }
    passages = services.index.search("how does a vector database store vectors", k=3)
    share = {form: answerer.signals(plan, passages).coverage for form, plan in plans.items()}

    assert share["db"] == share["database"] == 1.0
    assert share["id"] < 1.0
