"""The chat page's first screen and the next steps it offers: suggestions, follow-ups, focus on phones."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from app.assistant.base import Answer, DoneEvent, Exchange, Source
from app.search.models import CourseRecord, LessonInfo
from app.web.chat.page import follow_up_questions
from app.web.chat.suggestions import suggested_questions
from tests.scripted_answerer import ScriptedAnswerer, use_answerer
from tests.web.support import HX, ask_streamed

PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36"


def course(title: str, lessons: int) -> CourseRecord:
    """A catalog entry with numbered lessons."""
    return CourseRecord(
        title=title,
        lessons=[LessonInfo(number=n, title=f"{title} topic {n}") for n in range(lessons)],
        id=title.lower(),
        source_file=f"{title}.txt",
        content_hash="0" * 64,
        chunk_count=1,
        indexed_at=datetime.now(UTC),
    )


def lesson(course_title: str, number: int) -> Source:
    """A cited lesson."""
    return Source(
        label=f"{course_title} – Lesson {number}: L{number}",
        course_title=course_title,
        lesson_number=number,
        lesson_title=f"L{number}",
    )


def test_suggestions_come_from_different_courses_and_lessons_asked_different_ways():
    courses = [course("Alpha", 9), course("Beta", 5), course("Gamma", 1)]

    suggestions = suggested_questions(courses)

    assert [s.course for s in suggestions] == ["Alpha", "Beta", "Gamma", "Alpha"]
    assert len({s.question for s in suggestions}) == 4
    # Not the first lessons (often an introduction), and two different lessons of the first course.
    assert "Alpha topic 3" in suggestions[0].question and "Alpha topic 7" in suggestions[3].question
    assert len({s.question.split("“")[0] for s in suggestions}) == 4, "each asked a different way"


def test_one_course_still_gets_several_suggestions_and_none_without_courses():
    assert len(suggested_questions([course("Solo", 6)])) == 4
    assert len({s.question for s in suggested_questions([course("Solo", 6)])}) == 4
    assert suggested_questions([]) == []
    assert [s.question for s in suggested_questions([course("Empty", 0)])] == [
        "What does the Empty course cover, lesson by lesson?"
    ]


def test_only_suggestions_answered_from_the_lesson_they_name_are_offered():
    courses = [course("Alpha", 9), course("Beta", 5)]
    unchecked = suggested_questions(courses)
    # A lesson whose answer comes from elsewhere is left out; the next lessons take its place.
    wrong = (unchecked[1].course, unchecked[1].lesson)
    checked = suggested_questions(courses, cites=lambda s: (s.course, s.lesson) != wrong)
    assert len(checked) == 4 and wrong not in {(s.course, s.lesson) for s in checked}
    assert len({(s.course, s.lesson) for s in checked}) == 4
    # None answered from its lesson: the course's outline question, which names no lesson.
    assert [s.question for s in suggested_questions(courses, cites=lambda s: False)] == [
        "What does the Alpha course cover, lesson by lesson?"
    ]


def test_follow_ups_come_from_the_cited_lessons_only():
    exchange = Exchange(
        question="q",
        answer="Claim.[^2] Another.[^3]",
        sources=[lesson("A", 1), lesson("B", 4), lesson("C", 7)],
    )

    questions = follow_up_questions(exchange)

    assert 2 <= len(questions) <= 3
    assert not any("L1" in question or " A?" in question for question in questions)
    assert any("L4" in question for question in questions)
    assert any("L7" in question or "lesson 7 of C" in question for question in questions)


def test_no_follow_ups_without_lessons_to_draw_from():
    assert follow_up_questions(Exchange(question="q", answer="No sources.", sources=[])) == []


def test_the_finished_answer_offers_follow_ups_as_forms(app, client):
    answer = Answer(markdown="Scopes.[^1]", sources=[lesson("Python Testing with Pytest", 2)])
    use_answerer(app, ScriptedAnswerer([DoneEvent(answer)]))

    done = ask_streamed(client, "Fixture scopes?").done

    followups = re.search(r'<div class="followups">.*?</ul>', done, re.S).group(0)
    questions = re.findall(r'<input type="hidden" name="question" value="([^"]+)">', followups)
    assert 2 <= len(questions) <= 3 and all("L2" in q or "lesson 2" in q for q in questions)
    assert followups.count('hx-post="/ask"') == len(questions)


def test_new_chat_shows_the_suggestions_again(client):
    html = client.post("/new", headers=HX).get_data(as_text=True)
    assert html.count('class="suggestion"') == 4


def test_the_box_is_focused_after_asking_on_a_computer_but_not_on_a_phone(client):
    def pending(agent: str, mobile: str | None = None) -> str:
        headers = {**HX, "User-Agent": agent, **({"Sec-CH-UA-Mobile": mobile} if mobile else {})}
        return client.post("/ask", data={"question": "Hi?"}, headers=headers).get_data(as_text=True)

    def textarea(html: str) -> str:
        return re.search(r"<textarea [^>]*>", html).group(0)

    assert "autofocus" in textarea(pending(DESKTOP, "?0"))
    assert "autofocus" not in textarea(pending(PHONE))
    assert "autofocus" not in textarea(pending(DESKTOP, "?1"))  # Chromium says so itself
    # The page itself never focuses the box: on a phone that would raise the keyboard at once.
    assert "autofocus" not in textarea(client.get("/").get_data(as_text=True))


def test_sources_retrieved_but_not_cited_are_marked_apart_from_the_cited(client):
    from app.web.chat.page import retrieved_only

    exchange = Exchange(question="q", answer="Claim.[^2]", sources=[lesson("A", 1), lesson("B", 4)])
    assert retrieved_only(exchange) == {1}
    # An answer with no markers at all (the extractive mode quotes each source) marks none.
    assert retrieved_only(Exchange(question="q", answer="Quoted.", sources=[lesson("A", 1)])) == set()
    answerer = ScriptedAnswerer([DoneEvent(Answer(markdown="Claim.[^2]", sources=exchange.sources))])
    use_answerer(client.application, answerer)
    html = ask_streamed(client, "Which lessons?").done
    chips = re.findall(r'<li class="source-chip" id="[^"]+"( data-retrieved)?>', html)
    assert chips == [" data-retrieved", ""]
    assert html.count("Retrieved, not cited:") == 1
