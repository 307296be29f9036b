"""What the question log keeps of an answer's searches: the course they point at, and its closest lesson."""

from __future__ import annotations

from app.assistant.retrieval import Retrieval
from app.search.models import Passage


def passage(course: str, lesson: int, chunk: int, score: float) -> Passage:
    """A made-up search hit."""
    return Passage(
        course_title=course,
        lesson_number=lesson,
        lesson_title=f"L{lesson}",
        chunk_index=chunk,
        score=score,
        text="x",
    )


def test_several_good_passages_of_one_course_outvote_one_stray_passage_of_another():
    seen = Retrieval()
    seen.saw([passage("Image Recognition", 4, 0, 0.61), passage("Social Psychology", 7, 2, 0.58)])
    seen.saw([passage("Social Psychology", 7, 3, 0.55), passage("Social Psychology", 6, 1, 0.52)])
    assert seen.closest == ("Image Recognition", 4)  # the single best passage
    assert seen.about == "Social Psychology"
    assert seen.closest_in(seen.about) == ("Social Psychology", 7)
    assert seen.closest_in("Pottery") is None


def test_a_passage_seen_by_two_searches_votes_once():
    seen = Retrieval()
    for _ in range(3):
        seen.saw([passage("Image Recognition", 4, 0, 0.7)])
    seen.saw([passage("Social Psychology", 1, 0, 0.4), passage("Social Psychology", 2, 0, 0.4)])
    assert seen.about == "Social Psychology"
    assert Retrieval().about is None and Retrieval().closest_in(None) is None


def test_the_logged_closest_lesson_is_in_the_course_the_question_was_about(make_app):
    from app.assistant.base import Answer, Source
    from app.web.question_log import record

    app = make_app()
    store = app.extensions["services"].store
    cited = Source(
        label="Social Psychology – Lesson 6: L6", course_title="Social Psychology", lesson_number=6
    )
    with app.app_context():
        seen = Retrieval()
        seen.saw([passage("Image Recognition", 4, 0, 0.9), passage("Social Psychology", 7, 1, 0.5)])
        record("Why do we justify our choices?", Answer(markdown="Quoted.", sources=[cited]), seen, None)
        declined = Retrieval()
        declined.saw([passage("Image Recognition", 4, 0, 0.6)])
        declined.saw([passage("Social Psychology", 2, 0, 0.5), passage("Social Psychology", 3, 0, 0.45)])
        record("When is the midterm?", Answer(markdown="Not covered.", sources=[]), declined, None)
    gaps = {gap.question: gap for gap in store.questions.gaps(low_confidence=0.95)}
    assert gaps["Why do we justify our choices?"].closest == ("Social Psychology", 7)
    assert gaps["When is the midterm?"].closest == ("Social Psychology", 2)
