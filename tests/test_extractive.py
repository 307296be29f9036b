"""Extractive mode (no API key): the tool chosen from the question, the best sentences, the same sources."""

from __future__ import annotations

import pytest

from app.assistant.base import Exchange
from app.assistant.extractive import ExtractiveAnswerer
from app.assistant.extractive.intent import wants_outline
from app.assistant.extractive.naming import lesson_number
from app.assistant.extractive.render import NEVER_SAID, NO_MATCH
from app.errors import BadRequest

RAG = "Retrieval-Augmented Generation in Practice"
VECTOR = "Vector Databases from Scratch"
PYTEST = "Python Testing with Pytest"
MODE_LINE = "_No language model is configured; "


@pytest.fixture
def assistant(services):
    """The Assistant of an app without an API key."""
    return services.assistant


def test_the_assistant_reports_extractive_mode_without_a_model(assistant):
    assert assistant.mode == "extractive"
    assert assistant.model is None


def test_search_answer_quotes_the_best_sentences_under_the_mode_line(assistant):
    answer = assistant.answer("What is sentence-aware chunking?", [])

    first_line, _, body = answer.markdown.partition("\n\n")
    assert first_line.startswith(MODE_LINE) and first_line.endswith("_")
    assert body.startswith(f"**{RAG} – Lesson 2: Chunking Documents**\n\n")
    assert "sentence-aware chunking, packs whole sentences into each chunk" in body
    assert answer.mode == "extractive" and answer.tool_rounds == 1
    assert answer.sources[0].label == f"{RAG} – Lesson 2: Chunking Documents"
    assert answer.sources[0].lesson_link == "https://example.com/courses/rag/lesson-2"
    # Every quoted group is one of the sources, in the same order.
    headings = [line.strip("*") for line in body.splitlines() if line.startswith("**")]
    assert headings == [source.label for source in answer.sources]


def test_course_and_lesson_named_in_the_question_become_filters(assistant):
    answer = assistant.answer("What does lesson 3 of the RAG course say about similarity?", [])

    assert [(s.course_title, s.lesson_number) for s in answer.sources] == [(RAG, 3)]
    assert "cosine similarity" in answer.markdown


def test_a_course_echoed_by_its_title_words_becomes_a_filter(assistant):
    plan = assistant._answerer.plan("How do Vector Databases from Scratch store metadata?")

    assert plan.course is not None and plan.course.title == VECTOR
    assert plan.lesson is None and not plan.outline


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("What is covered in the RAG course?", RAG),
        ("Show me the outline of the vector database class", VECTOR),
        ("What does lesson 2 of the Python Testing with Pytest course say about scope?", PYTEST),
        ('Summarise "Retrieval-Augmented Generation in Practice"', RAG),
        ("How do I mock the base class in a test?", None),
        ("What is cosine similarity?", None),
    ],
)
def test_the_course_named_in_a_question_is_found_without_guessing(assistant, question, title):
    plan = assistant._answerer.plan(question)

    assert (plan.course.title if plan.course else None) == title
    assert plan.course_error is None


def test_a_question_echoing_two_courses_searches_all_of_them(assistant):
    plan = assistant._answerer.plan("How does RAG use vector databases?")

    assert plan.course is None


def test_a_quoted_term_is_not_mistaken_for_a_missing_course(assistant):
    answer = assistant.answer('What does "fixture scope" mean?', [])

    assert answer.sources[0].label == f"{PYTEST} – Lesson 2: Fixtures"
    assert "The fixture scope decides how often the fixture is created" in answer.markdown


def test_a_course_phrase_that_matches_no_course_searches_every_course_with_a_note(assistant):
    answer = assistant.answer("What does the Kubernetes course say about fixture scope?", [])

    assert answer.markdown.startswith(MODE_LINE)
    assert "No course matches 'Kubernetes', so every course was searched" in answer.markdown
    for title in (RAG, VECTOR, PYTEST):
        assert title in answer.markdown
    assert answer.sources[0].label == f"{PYTEST} – Lesson 2: Fixtures"


@pytest.mark.parametrize(
    "question",
    [
        "What is the best course to learn about cosine similarity?",
        "What did the instructor say in the course about cosine similarity?",
    ],
)
def test_ordinary_words_before_course_are_not_a_course_name(assistant, question):
    answer = assistant.answer(question, [])

    assert "No course matches" not in answer.markdown
    assert "cosine similarity" in answer.markdown
    assert answer.sources


def test_a_course_called_by_a_name_that_does_not_exist_lists_the_courses(assistant):
    answer = assistant.answer("What is in the course called Kubernetes Basics?", [])

    assert "No course matches 'Kubernetes Basics'" in answer.markdown
    for title in (RAG, VECTOR, PYTEST):
        assert title in answer.markdown
    assert answer.sources == []


def test_a_missing_lesson_says_which_lessons_exist(assistant):
    answer = assistant.answer("What is in lesson 9 of the RAG course?", [])

    assert f"{RAG} has no lesson 9" in answer.markdown
    assert answer.sources == []


def test_outline_question_renders_the_outline_as_a_markdown_list(assistant):
    answer = assistant.answer("What is the outline of the vector databases course?", [])

    assert answer.markdown.startswith(MODE_LINE)
    assert f"**[{VECTOR}](https://example.com/courses/vectordb)**" in answer.markdown
    assert "Instructor: Grace Hopper" in answer.markdown
    lessons = [line for line in answer.markdown.splitlines() if line.startswith("- Lesson")]
    assert lessons == [
        "- Lesson 0: [Introduction](https://example.com/courses/vectordb/lesson-0)",
        "- Lesson 1: [Approximate Nearest Neighbours](https://example.com/courses/vectordb/lesson-1)",
        "- Lesson 2: [HNSW Graphs](https://example.com/courses/vectordb/lesson-2)",
        "- Lesson 3: [Filtering and Metadata](https://example.com/courses/vectordb/lesson-3)",
    ]
    [source] = answer.sources
    assert (source.label, source.lesson_number, source.link) == (
        VECTOR,
        None,
        "https://example.com/courses/vectordb",
    )


def test_outline_question_without_a_course_lists_the_courses(assistant):
    answer = assistant.answer("Which lessons are there?", [])

    assert "Which course?" in answer.markdown
    assert (
        "- [Python Testing with Pytest](https://example.com/courses/pytest) (3 lessons, taught by Kent Beck)"
        in answer.markdown
    )
    assert answer.sources == []


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("What is the capital of France?", NEVER_SAID.format(names="“France”")),
        ("How do I bake sourdough bread?", NO_MATCH),
    ],
)
def test_a_question_the_courses_do_not_cover_says_nothing_matched(assistant, question, line):
    answer = assistant.answer(question, [])

    # One plain line, without the banner that promises relevant passages; it names what no course says.
    assert answer.markdown == line
    assert answer.sources == [] and answer.mode == "extractive"


def test_overlapping_chunks_never_quote_a_sentence_twice(assistant):
    answer = assistant.answer("How does HNSW search the graph layers?", [])

    sentences = [s for s in answer.markdown.replace(" … ", " ").split(". ") if len(s) > 20]
    assert len(sentences) == len(set(sentences))
    assert answer.sources[0].label == f"{VECTOR} – Lesson 2: HNSW Graphs"


@pytest.mark.parametrize(
    ("question", "outline", "lesson"),
    [
        ("What is the outline of the RAG course?", True, None),
        ("Show me the syllabus for pytest", True, None),
        ("How many lessons does the vector databases course have?", True, None),
        ("What does the pytest course cover?", True, None),
        ("What does lesson 2 of the pytest course cover?", False, 2),
        ("Summarise Lesson two of RAG", False, 2),
        ("What do the lessons say about recall at k?", False, None),
        ("Explain cosine similarity", False, None),
        ("What is in lesson #0 of the vector course?", False, 0),
        ("What is the structure of the RAG course?", True, None),
        ("Show me the course structure", True, None),
        ("How do I structure a Flask app with blueprints?", False, None),
        ("What is the structure of a good test?", False, None),
    ],
)
def test_question_words_pick_the_tool_and_the_lesson(question, outline, lesson):
    assert wants_outline(question) is outline
    assert lesson_number(question) == lesson


@pytest.mark.parametrize("question", ["", "   ", "x" * 2001])
def test_blank_or_overlong_questions_are_refused(assistant, question):
    with pytest.raises(BadRequest):
        assistant.answer(question, [])


def test_who_teaches_a_course_answers_with_its_instructor_and_outline(assistant):
    answer = assistant.answer("Who teaches the RAG course?", [])

    assert answer.markdown.startswith("_No language model is configured; here is the outline")
    assert f"{RAG} is taught by Ada Lovelace." in answer.markdown
    assert "- Lesson 2: [Chunking Documents]" in answer.markdown
    assert [source.label for source in answer.sources] == [RAG]


@pytest.mark.parametrize(
    "question", ["Who teaches the RAG course?", "Which instructor runs pytest?", "Is RAG taught by Ada?"]
)
def test_instructor_questions_ask_for_the_outline(question):
    assert wants_outline(question)


def test_instructor_as_a_word_in_a_content_question_is_not_an_outline_question():
    assert not wants_outline("What did the instructor say in the course about fixtures?")


def test_shared_title_words_alone_do_not_filter_by_course(assistant):
    plan = assistant._answerer.plan("How do I test Python code?")

    assert plan.course is None


def test_the_words_that_named_the_course_are_not_part_of_the_topic(assistant):
    plan = assistant._answerer.plan("What is chunk overlap in RAG?")

    assert plan.course is not None and plan.course.title == RAG
    assert "RAG" not in plan.topic and "overlap" in plan.topic


def test_the_answer_leads_with_consecutive_sentences_of_the_best_passage(assistant):
    answer = assistant.answer("How does HNSW search the graph layers?", [])

    first_block = answer.markdown.split("\n\n")[2]
    assert first_block.count(". ") >= 2
    assert answer.sources[0].label == f"{VECTOR} – Lesson 2: HNSW Graphs"


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        (
            "What is lesson 2 of the RAG course called?",
            "Lesson 2 of Retrieval-Augmented Generation in Practice is “[",
        ),
        (
            "what is the last lesson of the RAG course",
            "Lesson 4 of Retrieval-Augmented Generation in Practice is",
        ),
        (
            "how many lessons does the vector databases course have",
            "Vector Databases from Scratch has 3 lessons.",
        ),
        ("link to the pytest course", "Python Testing with Pytest: https://"),
        ("What is lesson 9 of the RAG course called?", "has no lesson 9; its lessons are 1, 2, 3, 4."),
    ],
)
def test_an_outline_fact_is_answered_first_then_the_outline(assistant, question, lead):
    answer = assistant.answer(question, [])
    first = answer.markdown.split("\n\n")[1]  # after the extractive-mode line
    assert first.startswith(lead) or lead in first, answer.markdown
    assert "- Lesson" in answer.markdown or "Lesson 1" in answer.markdown  # the outline follows


def _after(assistant, first: str, follow_up: str):
    """Ask `first`, then `follow_up` with the first exchange as history; return both answers."""
    answer = assistant.answer(first, [])
    previous = Exchange(question=first, answer=answer.markdown, sources=answer.sources)
    return answer, assistant.answer(follow_up, [previous])


def test_a_follow_up_without_a_course_keeps_the_previous_course(assistant):
    first, follow = _after(assistant, "What does lesson 2 of the RAG course teach?", "And lesson 4?")
    assert first.sources[0].course_title == RAG
    assert {(source.course_title, source.lesson_number) for source in follow.sources} == {(RAG, 4)}


def test_a_new_question_naming_its_own_course_is_not_a_follow_up(assistant):
    _, follow = _after(
        assistant,
        "What does lesson 2 of the RAG course teach?",
        "And what are fixtures in the pytest course?",
    )
    assert {source.course_title for source in follow.sources} == {PYTEST}


def test_sentence_vectors_are_embedded_once_not_on_every_question(services):
    from tests.helpers import CountingEmbedder

    counting = CountingEmbedder(services.index.embedder)
    answerer = ExtractiveAnswerer(services.assistant.toolbox, counting)
    first = answerer.answer("What is sentence-aware chunking?", [])
    embedded = counting.documents
    again = answerer.answer("What is sentence-aware chunking?", [])
    assert embedded > 5 and counting.documents == embedded  # the same passages: nothing embedded again
    assert again.markdown == first.markdown


def test_a_question_about_a_named_lesson_is_answered_from_it_however_loosely_worded(assistant):
    scoped = assistant.answer("Lesson 2 of the pytest course: walk me through it step by step", [])
    assert [(source.course_title, source.lesson_number) for source in scoped.sources] == [(PYTEST, 2)]
    # The same wording without a lesson finds nothing relevant enough to quote.
    unscoped = assistant.answer("walk me through it step by step", [])
    assert unscoped.markdown == NO_MATCH
