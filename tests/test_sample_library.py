"""The sample library in docs/ (four courses: TXT, PDF, DOCX): course names and the answers a student sees."""

from __future__ import annotations

import shutil

import pytest

from app.assistant.base import Exchange
from app.errors import CourseNotFound
from bench.eval_questions import flat
from tests.conftest import SAMPLE_DOCS, make_config

FLASK = "Building Web Apps with Flask and HTMX"
TESTING = "Practical Python Testing"
RAG = "Retrieval-Augmented Generation in Practice"
VECTOR = "Vector Databases and Similarity Search"
MODE_LINE = "_No language model is configured; "


@pytest.fixture(scope="session")
def sample(tmp_path_factory):
    """The app's services over a copy of the real docs/, indexed once per session."""
    from app import create_app

    root = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE_DOCS, root / "docs")
    app = create_app(make_config(root, root / "docs"))
    services = app.extensions["services"]
    report = services.indexer.sync()
    assert not report.problems, report.problems
    assert [record.title for record in services.index.courses()] == [FLASK, TESTING, RAG, VECTOR]
    return services


def body(answer) -> str:
    """The answer without its mode line."""
    first_line, _, rest = answer.markdown.partition("\n\n")
    assert first_line.startswith(MODE_LINE)
    return rest


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("RAG", RAG),
        ("the rag course", RAG),
        ("vector database course", VECTOR),
        ("flask", FLASK),
        ("htmx", FLASK),
        ("web apps", FLASK),
        ("pytest", TESTING),
        ("python testing", TESTING),
        ("HNSW", VECTOR),
        ("Maya Chen", RAG),
        ("vector DBs", VECTOR),
        ("flask web development", FLASK),
    ],
)
def test_names_that_mean_a_sample_course_find_it(sample, name, title):
    assert sample.index.resolve_course(name).title == title


@pytest.mark.parametrize(
    "name",
    [
        "python programming",
        "Kubernetes for beginners",
        "cooking pasta",
        "machine learning",
        "advanced python",
        "software testing",
        "as",
        "embeddings",
    ],
)
def test_near_misses_match_no_sample_course(sample, name):
    with pytest.raises(CourseNotFound, match=f"No course matches '{name}'. Courses are: {FLASK}"):
        sample.index.resolve_course(name)


def test_how_does_hnsw_work_explains_the_layered_graph(sample):
    answer = sample.assistant.answer("How does HNSW work?", [])

    text = body(answer)
    assert text.startswith(f"**{VECTOR} – Lesson 3: Approximate Nearest Neighbors with HNSW**")
    assert "layer" in text and "graph" in text
    # A lead of several sentences, not one keyword hit.
    lead = text.split("\n\n")[1]
    assert lead.count(". ") >= 2
    # A lead never stops on the sentence that announces the parameters without naming them.
    assert not lead.rstrip().endswith("Three parameters control HNSW.")
    assert answer.sources[0].lesson_link.endswith("/lesson-3")
    assert all(source.course_title == VECTOR for source in answer.sources)


def test_reciprocal_rank_fusion_quotes_the_formula(sample):
    answer = sample.assistant.answer("What is reciprocal rank fusion?", [])

    text = body(answer)
    assert text.startswith(f"**{RAG} – Lesson 3: Embeddings and Retrieval**")
    assert "1 / (k + rank)" in flat(text) and "60" in text
    assert (answer.sources[0].course_title, answer.sources[0].lesson_number) == (RAG, 3)
    # Other lessons are quoted only when they share the question's telling words, not a similar sound.
    assert "Euclidean" not in text


def test_chunk_overlap_in_rag_is_about_overlap_not_the_course_name(sample):
    answer = sample.assistant.answer("What is chunk overlap in RAG?", [])

    text = body(answer)
    assert text.startswith(f"**{RAG} – Lesson 2: Preparing and Chunking Documents**")
    assert "overlap" in text.split("\n\n")[1]
    assert "two halves" not in text


def test_who_teaches_the_vector_database_course(sample):
    answer = sample.assistant.answer("Who teaches the vector database course?", [])

    assert answer.markdown.startswith(f"{MODE_LINE}here is the outline")
    assert "Prof. Daniel Okafor" in answer.markdown
    # The instructor line is its own paragraph, not run into the title.
    assert "\n\nInstructor: Prof. Daniel Okafor\n\n" in answer.markdown
    assert "Lesson 3: [Approximate Nearest Neighbors with HNSW]" in answer.markdown
    assert [source.label for source in answer.sources] == [VECTOR]


@pytest.mark.parametrize(
    "question",
    [
        "What is the best course to learn about embeddings?",
        "What did the instructor say in the course about fixtures?",
    ],
)
def test_ordinary_questions_mentioning_a_course_are_answered(sample, question):
    answer = sample.assistant.answer(question, [])

    assert "No course matches" not in answer.markdown
    assert answer.sources
    topic = question.rstrip("?").split()[-1]
    assert topic.rstrip("s") in body(answer).lower()


def test_what_a_lesson_covers_quotes_only_that_lesson(sample):
    answer = sample.assistant.answer("What does lesson 4 of the Flask course cover?", [])

    assert {(source.course_title, source.lesson_number) for source in answer.sources} == {(FLASK, 4)}
    assert body(answer).startswith(f"**{FLASK} – Lesson 4: Forms, Validation and CSRF Protection**")


def test_a_question_sharing_title_words_is_not_limited_to_that_course(sample):
    plan = sample.assistant._answerer.plan("How do I test a Flask app?")

    assert plan.course is None
    answer = sample.assistant.answer("How do I test a Flask app?", [])
    assert "test_client" in flat(body(answer))


def test_quotes_within_a_source_are_in_reading_order(sample):
    answer = sample.assistant.answer("How do fixtures share setup between tests?", [])

    text = body(answer)
    lesson = (SAMPLE_DOCS / "python_testing.txt").read_text(encoding="utf-8")
    block = text.split("\n\n")[1]
    sentences = [sentence for sentence in block.replace(" … ", "\n").split("\n") if sentence]
    positions = [lesson.index(sentence[:60]) for sentence in sentences]
    assert positions == sorted(positions)


@pytest.mark.parametrize("follow_up", ["and pytorch?", "what about spark?"])
def test_a_short_follow_up_about_something_no_course_says_is_declined(sample, follow_up):
    # "and X?" asks about X: the previous topic's passages would answer another question.
    first = sample.assistant.answer("how does cosine similarity work in rag?", [])
    previous = Exchange(
        question="how does cosine similarity work in rag?", answer=first.markdown, sources=first.sources
    )

    assert not sample.assistant.answer(follow_up, [previous]).sources
