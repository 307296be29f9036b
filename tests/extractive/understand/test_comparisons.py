"""Comparison questions: split into two halves, each answered from its own lesson, both quoted."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from app.assistant.extractive.comparison import (
    CUE_RE,
    named_lesson,
    own_subject,
    says,
    split_comparison,
    without_title,
)
from app.search.models import CourseRecord, LessonInfo

PYTEST = "Python Testing with Pytest"
VECTOR = "Vector Databases from Scratch"
RAG = "Retrieval-Augmented Generation in Practice"


@pytest.mark.parametrize(
    ("question", "halves"),
    [
        (
            "Compare kilns and ovens - which setting trades heat for time in each?",
            (
                "Compare kilns - which setting trades heat for time in each?",
                "Compare ovens - which setting trades heat for time in each?",
            ),
        ),
        (
            "How do the pottery course and the baking course each define firing time?",
            (
                "How do the pottery course each define firing time?",
                "How do the baking course each define firing time?",
            ),
        ),
        (
            "How is proofing explained in the baking course compared with the pottery course?",
            (
                "How is proofing explained in the baking course",
                "How is proofing explained in the pottery course?",
            ),
        ),
        (
            "Where should glazes be kept, in the studio and in kilns?",
            (
                "Where should glazes be kept, in the studio",
                "Where should glazes be kept, in kilns?",
            ),
        ),
        (
            "How should re-glazing skip fired pots, and in what order are shelves loaded?",
            ("How should re-glazing skip fired pots?", "in what order are shelves loaded?"),
        ),
        (
            "who invented the spinning jenny and what did he earn for it",
            ("who invented the spinning jenny?", "what did he earn for it"),
        ),
        (
            "How do fixtures and markers change how a test runs?",
            ("How do fixtures change how a test runs?", "How do markers change how a test runs?"),
        ),
        (
            "How much did the error rate drop from the first release to the second one?",
            (
                "How much did the error rate drop from the first release?",
                "How much did the error rate drop the second one?",
            ),
        ),
        (
            "Re-firing in raku versus re-firing after glazing - what do both courses say?",
            (
                "Re-firing in raku - what do both courses say?",
                "re-firing after glazing - what do both courses say?",
            ),
        ),
        # "differ from", "different than", "compare to", "distinguishes … from": the two things around it.
        (
            "How does caching in the Redis course differ from batching in the Kafka course?",
            ("How does caching in the Redis course", "How does batching in the Kafka course?"),
        ),
        ("How is a bloom filter different than a hash set?", ("How is a bloom filter", "How is a hash set?")),
        (
            "cooking course: how does braising compare to roasting, and which is slower?",
            (
                "cooking course: how does braising and which is slower?",
                "cooking course: how does roasting, and which is slower?",
            ),
        ),
        (
            "What distinguishes a mutex from a semaphore?",
            ("What distinguishes a mutex", "What distinguishes a semaphore?"),
        ),
        # "or" in a question that asks to choose.
        (
            "Which is faster, quicksort or mergesort?",
            ("Which is faster, quicksort", "Which is faster, mergesort?"),
        ),
        # A one-word first thing shares what the second says after its own first word.
        (
            "What is the difference between dense and sparse vectors?",
            (
                "What is the difference between dense vectors?",
                "What is the difference between sparse vectors?",
            ),
        ),
        ("tools vs resources in MCP", ("tools in MCP", "resources in MCP")),
        # "How are A and B different?": a likeness after two subjects ends the second, and each half is about
        # its own subject alone.
        (
            "How are mutexes and semaphores different?",
            ("How are mutexes?", "How are semaphores?"),
        ),
        # A name against a name: the second is the name alone, and what follows is both halves'.
        ("Compare HNSW and IVF indexes", ("Compare HNSW indexes", "Compare IVF indexes")),
        (
            "How does each of Redis and Kafka handle retries?",
            ("How does each of Redis handle retries?", "How does each of Kafka handle retries?"),
        ),
        ("Compare Freud and Carl Jung on dreams", ("Compare Freud on dreams", "Compare Carl Jung on dreams")),
        (
            "tomato yields in the soil lesson and where the seed bank came from in the guest talk",
            ("tomato yields in the soil lesson?", "where the seed bank came from in the guest talk"),
        ),
    ],
)
def test_a_comparison_splits_into_one_question_per_compared_thing(question, halves):
    assert split_comparison(question) == halves


@pytest.mark.parametrize(
    "question",
    [
        "Lesson 2 of Bread and Pastry, which fold keeps butter in a croissant?",
        "How do I merge the price lists from the bakery and the cafe?",
        "I sift after the mixing and get less flour than I weighed. Why?",
        "how many lessons does the Bread and Pastry course have",
        "What is a fixture?",
        "Compare",
        "How do I merge bakery and cafe receipts?",
        "How do Flask and HTMX render a page?",  # no verb of the question's own after the two subjects
        "How do the two lists differ?",
        "How does it differ from a marker?",  # a follow-up about one thing
        "Which lesson covers fixtures or markers?",  # "or" without a choice
        "So should the fox cross the river or not?",
        "How are mutexes and semaphores used?",
        "show me the encoder and how it works",  # the second question points back at the first
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
        ("How do HNSW graphs differ from metadata filtering?", [(VECTOR, 2), (VECTOR, 3)]),
        ("Which should I pick, fixtures or parametrize?", [(PYTEST, 2), (PYTEST, 3)]),
        # Each half names its own course.
        (
            "How does chunk overlap in the RAG course differ from graph layers in the vector databases "
            "course?",
            [(RAG, 2), (VECTOR, 2)],
        ),
    ],
)
def test_a_comparison_quotes_a_passage_for_each_half(answerer, question, lessons):
    answer = answerer.answer(question, [])
    assert [(source.course_title, source.lesson_number) for source in answer.sources] == lessons
    headings = [line.strip("*") for line in answer.markdown.splitlines() if line.startswith("**")]
    assert headings == [source.label for source in answer.sources]


def test_a_half_naming_no_course_is_answered_from_the_course_the_other_half_names(answerer):
    # Lovelace teaches the RAG course, which says "filtered by course or lesson metadata" too.
    answer = answerer.answer(
        "what does Lovelace say about chunk overlap vs what is filtered by metadata?", []
    )
    assert [(source.course_title, source.lesson_number) for source in answer.sources] == [(RAG, 2), (RAG, 3)]
    # The RAG course never says "Jinja": that half is not about it.
    answer = answerer.answer("what does Lovelace cut documents into vs what is the Jinja filter for?", [])
    assert [source.course_title for source in answer.sources] == [RAG, VECTOR]


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


def course(title: str, *lessons: str) -> CourseRecord:
    """A catalog record of made-up lessons, numbered from 1."""
    return CourseRecord(
        title=title,
        lessons=[LessonInfo(number=number, title=name) for number, name in enumerate(lessons, 1)],
        id=title.lower().replace(" ", "-"),
        source_file=f"{title}.txt",
        content_hash="0",
        chunk_count=1,
        indexed_at=datetime.now(UTC),
    )


PSYCHOLOGY = course("Introduction to Psychology", "This Is Your Brain", "Freud", "Skinner", "Being a Baby")
LEARNING = course("Deep Learning", "Neural Networks", "Computer Vision", "Deep Reinforcement Learning")


@pytest.mark.parametrize(
    ("half", "other", "lesson"),
    [
        (
            "Where does habituation appear in the Skinner lecture",
            "in the baby lecture",
            ("Introduction to Psychology", 3),
        ),
        (
            "where does reward matter in deep reinforcement learning?",
            "in operant conditioning",
            ("Deep Learning", 3),
        ),
        # "neural networks" is a title's words, but the half is about something else: no lesson named.
        ("When did a neural network first beat a chess champion?", "with what architecture?", None),
        # "psychology" and "deep" are course words, and the other half says "Freud" too.
        ("What does the psychology course say about Freud?", "and Freud's critics", None),
    ],
)
def test_a_half_names_a_lesson_by_a_word_of_its_title(half, other, lesson):
    named = named_lesson(half, other, [PSYCHOLOGY, LEARNING])
    assert (named[0].title, named[1]) == lesson if lesson else named is None


@pytest.mark.parametrize(
    ("half", "title", "query"),
    [
        # Inside the lesson its title's words and "lecture" tell no passage apart.
        ("What does the Skinner lecture say about reward?", "Skinner", "What does the say about reward?"),
        ("how do babies see faces in the baby lecture", "Being a Baby", "how do see faces in the"),
        # A half made of the title's words alone keeps them: there is nothing else to search for.
        ("the Skinner lecture", "Skinner", "the Skinner lecture"),
    ],
)
def test_a_half_that_names_its_lesson_is_searched_without_the_naming_words(half, title, query):
    assert without_title(half, title) == query


def test_a_comparison_of_two_lessons_named_by_title_quotes_both(answerer):
    # Both halves ask the same of two lessons: searched apart, each is answered from the lesson it names.
    question = "What do the fixtures lesson and the parametrize lesson say about test functions?"
    answer = answerer.answer(question, [])
    assert [(source.course_title, source.lesson_number) for source in answer.sources] == [
        (PYTEST, 2),
        (PYTEST, 3),
    ]
    blocks = answer.markdown.split("\n\n")[1:]
    assert len([block for block in blocks if block.startswith("**")]) == 2


SKINNER = [
    "Habituation is the simplest form of learning there is.",
    "An animal hears a loud noise and startles, hears it again and startles less, and then not at all.",
    "Habituation is learning that something is not worth attending to.",
    "Every animal with a nervous system shows habituation, even a sea slug.",
    "Skinner built on simple learning like this to explain behaviour through reinforcement.",
    "A rat presses a lever, gets food, and presses the lever more often.",
]
BABIES = [
    "Babies cannot tell us what they know, so researchers watch where they look.",
    "A baby is shown the same picture again and again until she gets bored and looks away.",
    "Researchers then change the picture: if she looks longer, she noticed the difference.",
    "Boredom tells us what a baby can tell apart.",
    "Piaget thought babies lacked object permanence, but looking-time studies suggest otherwise.",
]
LECTURES = "\n".join(
    [
        "Course Title: Learning and Development Lectures",
        "Course Instructor: Test Person",
        "Lesson 1: Skinner and Conditioning",
        "Lesson Link: https://example.com/lectures/1",
        " ".join(SKINNER),
        "Lesson 2: How Babies Think",
        "Lesson Link: https://example.com/lectures/2",
        " ".join(BABIES),
    ]
)


def answerer_over(tmp_path_factory, name: str, text: str):
    """An extractive answerer over one course file of made-up text, on the real embedding model."""
    from tests.helpers import Library

    library = Library(tmp_path_factory.mktemp(name))
    (library.docs / f"{name}.txt").write_text(text)
    return library.synced().answerer()


@pytest.fixture(scope="module")
def lectures(tmp_path_factory):
    """An extractive answerer over a two-lecture course of its own."""
    return answerer_over(tmp_path_factory, "lectures", LECTURES)


def test_a_comparison_of_two_lectures_named_by_title_quotes_both(lectures):
    answer = lectures.answer("How is boredom used in the Skinner lecture and in the babies lecture?", [])
    assert [source.lesson_number for source in answer.sources] == [1, 2]
    babies = answer.markdown.split("Lesson 2: How Babies Think**", 1)[1]
    assert "gets bored" in babies or "Boredom tells us" in babies


def test_the_questions_lesson_number_stays_with_its_course(lectures):
    from app.assistant.extractive.intent import Plan

    (course,) = lectures.index.courses()
    other = course.model_copy(update={"title": "Another Course"})
    whole = Plan(outline=False, course=course, lesson=2, topic="boredom")
    elsewhere = Plan(outline=False, course=None, lesson=None, topic="how boredom works")
    named = Plan(outline=False, course=course, lesson=2, topic="boredom in babies")
    # The half that names the question's course searches its lesson; one searching every course does not.
    assert lectures._place(named, elsewhere, None, whole)[:2] == (course, 2)
    assert lectures._place(elsewhere, named, None, whole)[:2] == (None, None)
    assert lectures._place(elsewhere, named, other, whole)[:2] == (other, None)
    # Without a course of the question's own, its lesson number is every half's.
    assert lectures._place(elsewhere, named, None, replace(whole, course=None))[:2] == (None, 2)


def test_a_half_naming_no_lesson_leaves_the_lesson_the_other_half_names(lectures):
    # "how else is learning studied" would find the Skinner lesson again: that lesson is the other half's.
    answer = lectures.answer(
        "How does the Skinner lecture explain learning, and how else is learning studied?", []
    )
    assert [source.lesson_number for source in answer.sources] == [1, 2]


TUNING = "\n".join(
    [
        "Course Title: Index Tuning Notes",
        "Course Instructor: Test Person",
        "Lesson 1: Trade-offs",
        "Lesson Link: https://example.com/tuning/1",
        "Every index has a setting that trades recall for speed. The best setting is the fastest one that "
        "still meets your recall target. Measure recall and speed together on your own queries.",
        "Lesson 2: Graph Indexes",
        "Lesson Link: https://example.com/tuning/2",
        "A skipgraph links every vector to a few of its neighbours. A query walks the links from an entry "
        "point. The beam width is the skipgraph's knob: a wider beam finds more true neighbours but answers "
        "more slowly.",
        "Lesson 3: Clustered Indexes",
        "Lesson Link: https://example.com/tuning/3",
        "Bucketing sorts the vectors into buckets around trained centroids. A query only opens the buckets "
        "nearest to it. The probe count is bucketing's knob: more probes raise recall and cost time.",
    ]
)


@pytest.fixture(scope="module")
def tuning(tmp_path_factory):
    """An extractive answerer over a three-lesson course of its own."""
    return answerer_over(tmp_path_factory, "tuning", TUNING)


def test_each_half_is_answered_by_what_speaks_of_its_own_subject(tuning):
    # Both halves share "which setting trades recall for speed": the general lesson says that best, but
    # each half is answered from what says its own subject.
    answer = tuning.answer(
        "Compare skipgraph and bucketing - which setting trades recall for speed in each?", []
    )
    assert [source.lesson_number for source in answer.sources] == [2, 3]
    assert "beam width" in answer.markdown and "probe count" in answer.markdown


@pytest.mark.parametrize(
    ("half", "other", "own"),
    [
        (
            "bucketing - which setting trades recall for speed?",
            "skipgraph - which setting trades recall for speed?",
            {"bucket"},
        ),
        # "the CNN lecture" says where to look, not what the passage must say.
        (
            "What does the CNN lecture say about vision?",
            "What does the brain lecture say about vision?",
            set(),
        ),
        ("What does the CNN lecture say about pooling?", "What does it say about vision?", {"pool"}),
    ],
)
def test_a_halfs_own_subject_is_what_tells_it_apart_without_naming_a_lecture(half, other, own):
    assert own_subject(half, other) == own


def test_the_comparison_cue_leaves_a_half_with_its_own_words():
    # "difference between" asks to compare: neither word is what a half is about.
    assert CUE_RE.sub(" ", "What is the difference between a mutex?").split() == [
        "What",
        "is",
        "the",
        "a",
        "mutex?",
    ]


@pytest.mark.parametrize(
    ("own", "words", "expected"),
    [
        ({"cach"}, {"prompt", "cache"}, True),  # "caching" and "cache" stem apart
        ({"reranker"}, {"rerank"}, True),
        ({"ivf"}, {"hnsw", "graph"}, False),
        ({"art"}, {"artificial"}, False),  # too short to be read as the start of another word
    ],
)
def test_a_passage_says_a_halfs_subject_in_any_form_of_its_word(own, words, expected):
    assert says(own, words) is expected
