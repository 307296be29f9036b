"""Sentence splitting and chunking: sizes, whole-sentence overlap, no repeats, one prefix on every lesson."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.courses.chunking import chunk_course, split_sentences
from app.courses.models import Course, Lesson
from app.courses.parsing import parse_file

COURSES = Path(__file__).resolve().parent / "data" / "courses"
LIBRARY = sorted(COURSES.glob("*.txt"))


def course_with(*texts: str, title: str = "Demo Course") -> Course:
    """A course whose lessons 1..n have the given texts."""
    lessons = [
        Lesson(number=n, title=f"Part {n}", link=f"https://x.example/{n}", text=t)
        for n, t in enumerate(texts, 1)
    ]
    return Course(title=title, lessons=lessons)


def sentence_ranges(sentences: list[str], texts: list[str]) -> list[tuple[int, int]]:
    """Map each chunk text to the run of whole sentences [start, end) it is made of; fail if it is not one."""
    ranges = []
    for text in texts:
        found = [
            (start, end)
            for start in range(len(sentences))
            for end in range(start + 1, len(sentences) + 1)
            if " ".join(sentences[start:end]) == text
        ]
        assert found, f"chunk is not a run of whole sentences: {text!r}"
        ranges.append(found[0])
    return ranges


# --- split_sentences ------------------------------------------------------------------------------


def test_splits_on_terminal_punctuation():
    assert split_sentences("One is here. Two is there! Is three? No. Four... Five.") == [
        "One is here.",
        "Two is there!",
        "Is three?",
        "No.",
        "Four...",
        "Five.",
    ]


def test_keeps_abbreviations_initials_and_titles_together():
    text = "Use a store, e.g. Chroma, for this. Dr. Smith agrees, i.e. Mr. J. Doe does too. Then we stop."
    assert split_sentences(text) == [
        "Use a store, e.g. Chroma, for this.",
        "Dr. Smith agrees, i.e. Mr. J. Doe does too.",
        "Then we stop.",
    ]


def test_keeps_decimals_versions_and_dotted_names_together():
    text = "Pi is 3.14 roughly. Call os.path.join(a, b) on v2.1.0 files. Done."
    assert split_sentences(text) == [
        "Pi is 3.14 roughly.",
        "Call os.path.join(a, b) on v2.1.0 files.",
        "Done.",
    ]


def test_closing_quotes_and_brackets_stay_with_their_sentence():
    text = 'He said "stop." Then he left. (It was late.) Next day came.'
    assert split_sentences(text) == ['He said "stop."', "Then he left.", "(It was late.)", "Next day came."]


def test_lowercase_after_a_period_does_not_start_a_sentence():
    assert split_sentences("Run pytest. then check the output.") == ["Run pytest. then check the output."]


def test_paragraphs_and_list_items_are_separate_and_wrapped_lines_join():
    text = "A wrapped\nsentence that goes on\nfor lines.\n\nNext paragraph\n- one item\n- two item\n1. last"
    assert split_sentences(text) == [
        "A wrapped sentence that goes on for lines.",
        "Next paragraph",
        "- one item",
        "- two item",
        "1. last",
    ]


def test_empty_text_has_no_sentences():
    assert split_sentences("") == []
    assert split_sentences(" \n\n \t") == []


# --- chunk_course ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", LIBRARY, ids=lambda path: path.stem)
@pytest.mark.parametrize(("size", "overlap"), [(800, 100), (400, 150), (280, 120), (270, 0)])
def test_chunks_are_runs_of_whole_sentences_with_bounded_overlap(path, size, overlap):
    course = parse_file(path)
    chunks = chunk_course(course, size=size, overlap=overlap)
    for lesson in course.lessons:
        sentences = split_sentences(lesson.text)
        assert max(len(sentence) for sentence in sentences) <= size, "precondition: every sentence fits"
        texts = [chunk.text for chunk in chunks if chunk.lesson_number == lesson.number]
        assert all(len(text) <= size for text in texts)
        ranges = sentence_ranges(sentences, texts)
        # Every sentence is in some chunk: the runs start at the first and end at the last, with no gap.
        assert ranges[0][0] == 0
        assert ranges[-1][1] == len(sentences)
        for (_, previous_end), (start, end) in zip(ranges, ranges[1:], strict=False):
            assert start <= previous_end, "a sentence fell between two chunks"
            assert end > previous_end, "a chunk added nothing new"
            carried = " ".join(sentences[start:previous_end])
            assert len(carried) <= overlap


@pytest.mark.parametrize("path", LIBRARY, ids=lambda path: path.stem)
@pytest.mark.parametrize(("size", "overlap"), [(160, 60), (100, 40), (60, 0)])
def test_small_chunks_stay_within_size_and_keep_every_fitting_sentence(path, size, overlap):
    course = parse_file(path)
    chunks = chunk_course(course, size=size, overlap=overlap)
    assert all(len(chunk.text) <= size for chunk in chunks)
    for lesson in course.lessons:
        texts = [chunk.text for chunk in chunks if chunk.lesson_number == lesson.number]
        for sentence in split_sentences(lesson.text):
            if len(sentence) <= size:
                assert any(sentence in text for text in texts), sentence
        assert all(current not in previous for previous, current in zip(texts, texts[1:], strict=False))


def test_overlap_carries_the_trailing_whole_sentences():
    sentences = [f"Sentence number {n} is here." for n in range(1, 9)]  # 26 or 27 chars each
    chunks = chunk_course(course_with(" ".join(sentences)), size=90, overlap=60)
    texts = [chunk.text for chunk in chunks]
    assert texts[0] == " ".join(sentences[0:3])
    # Two sentences (54 chars) fit in the overlap; three would not.
    assert texts[1] == " ".join(sentences[1:4])
    assert texts[1].startswith(sentences[1] + " " + sentences[2])
    assert texts[-1].endswith(sentences[-1])


def test_no_overlap_when_overlap_is_zero():
    sentences = [f"Fact {n} is true." for n in range(10)]
    texts = [chunk.text for chunk in chunk_course(course_with(" ".join(sentences)), size=40, overlap=0)]
    assert " ".join(texts) == " ".join(sentences)


def test_overlap_is_dropped_when_it_would_not_leave_room_for_the_next_sentence():
    text = "Short one. " + "A much longer sentence that nearly fills a chunk on its own."
    texts = [chunk.text for chunk in chunk_course(course_with(text), size=70, overlap=30)]
    assert texts == ["Short one.", "A much longer sentence that nearly fills a chunk on its own."]


def test_long_sentence_is_split_at_word_boundaries():
    words = [f"Word{n:03d}" for n in range(80)]
    sentence = " ".join(words) + "."
    chunks = chunk_course(course_with(f"Intro sentence. {sentence} Outro sentence."), size=100, overlap=40)
    texts = [chunk.text for chunk in chunks]
    assert all(len(text) <= 100 for text in texts)
    assert texts[0] == "Intro sentence."
    assert texts[-1].endswith("Outro sentence.")
    # Pieces of the long sentence are cut between words and never carried as overlap.
    pieces = texts[1:-1] + [texts[-1].removesuffix(" Outro sentence.")]
    assert " ".join(pieces) == sentence
    assert all(piece.split()[0] in words for piece in pieces)


def test_word_longer_than_the_chunk_is_cut():
    token = "x" * 250
    texts = [chunk.text for chunk in chunk_course(course_with(f"See {token} here."), size=100, overlap=10)]
    assert all(len(text) <= 100 for text in texts)
    assert "".join(texts).replace(" ", "") == f"See{token}here."


def test_repeated_sentences_never_make_a_chunk_that_repeats_the_previous_one():
    texts = [chunk.text for chunk in chunk_course(course_with("Yes. " * 12), size=9, overlap=5)]
    assert all(len(text) <= 9 for text in texts)
    assert all(current != previous for previous, current in zip(texts, texts[1:], strict=False))
    assert sum(text.count("Yes.") for text in texts) >= 12


def test_every_chunk_of_every_lesson_has_the_context_prefix_including_the_last_lesson():
    course = parse_file(COURSES / "rag_in_practice.txt")
    chunks = chunk_course(course, size=200, overlap=50)
    last = course.lessons[-1]
    last_chunks = [chunk for chunk in chunks if chunk.lesson_number == last.number]
    assert len(last_chunks) > 1
    for chunk in chunks:
        lesson = next(lesson for lesson in course.lessons if lesson.number == chunk.lesson_number)
        expected = (
            f"Course Retrieval-Augmented Generation in Practice, Lesson {lesson.number}: {lesson.title}"
        )
        assert chunk.context == expected
        assert chunk.embedding_text == f"{expected}\n{chunk.text}"
        assert not chunk.text.startswith("Course ")
        assert chunk.lesson_title == lesson.title
        assert chunk.lesson_link == lesson.link
        assert chunk.course_id == "retrieval-augmented-generation-in-practice"
    assert (
        last_chunks[-1].context
        == "Course Retrieval-Augmented Generation in Practice, Lesson 4: Evaluating Answers"
    )


def test_chunk_index_restarts_per_lesson_and_ids_are_unique():
    course = parse_file(COURSES / "vector_databases.txt")
    chunks = chunk_course(course, size=200, overlap=50)
    for lesson in course.lessons:
        indexes = [chunk.index for chunk in chunks if chunk.lesson_number == lesson.number]
        assert indexes == list(range(len(indexes)))
        assert len(indexes) > 1
    assert len({chunk.id for chunk in chunks}) == len(chunks)
    assert chunks[0].id == "vector-databases-from-scratch:0:0"


def test_empty_lessons_produce_no_chunks():
    chunks = chunk_course(course_with("", "Some real text here.", "   \n\n  "))
    assert [(chunk.lesson_number, chunk.index, chunk.text) for chunk in chunks] == [
        (2, 0, "Some real text here.")
    ]


def test_default_settings_keep_short_lessons_whole():
    course = parse_file(COURSES / "pytest_testing.txt")
    chunks = chunk_course(course)
    assert [chunk.lesson_number for chunk in chunks] == [1, 2, 3]
    assert "fixture scope" in chunks[1].text
    assert all(len(chunk.text) <= 800 for chunk in chunks)


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-5, 0), (100, 100), (100, 150), (100, -1)])
def test_invalid_size_or_overlap_is_refused(size, overlap):
    with pytest.raises(ValueError, match="size"):
        chunk_course(course_with("Text."), size=size, overlap=overlap)


def test_untimed_courses_chunk_exactly_as_before_sentence_times():
    # Digest of the test courses' chunk ids and texts at three sizes, taken before captioned lessons
    # existed: an untimed course must chunk byte for byte the same, or the eval figures would move.
    digest = hashlib.sha256()
    for path in LIBRARY:
        for size, overlap in ((800, 100), (200, 50), (90, 30)):
            for chunk in chunk_course(parse_file(path), size, overlap):
                assert chunk.sentence_times is None
                digest.update(f"{chunk.id}\x00{chunk.text}\x00".encode())
    assert digest.hexdigest() == "46c0462719deefcfd3d14033f2e2546c987ead1b778689c584490b25f7b00fa8"
