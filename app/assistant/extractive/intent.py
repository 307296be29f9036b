"""Understand a question, the pipeline's first step: what it asks for, as an immutable Plan.

The tool (an outline, or a search), the course and lesson it names, its topic, the one outline fact it
asks for, a comparison's two halves, and the course a follow-up carries on from the previous exchange.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.assistant.base import Exchange
from app.assistant.extractive.comparison import CUE_RE, split_comparison
from app.assistant.extractive.lesson_titles import lesson_by_title_word
from app.assistant.extractive.naming import LESSON_RE, find_course, lesson_number
from app.errors import CourseNotFound
from app.language.lexicon import NO_TOPIC_WORDS, STOPWORDS
from app.language.tokens import CHAIN_RE, content_words, stem, tokens
from app.search.models import CourseRecord

if TYPE_CHECKING:
    from app.search.index import CourseIndex

INSTRUCTOR_RE = re.compile(
    r"\bwho\s+(?:teaches|taught|is\s+teaching|runs|gives|is\s+the\s+(?:instructor|teacher))\b"
    r"|\btaught\s+by\b|\b(?:instructor|teacher|lecturer|professor)s?\s+(?:of|for)\b"
    r"|\bwhich\s+(?:instructor|teacher)\b|\bwho\s+(?:is|are)\s+the\s+(?:instructor|teacher|lecturer|professor)s?\b"
    r"|\bwhat(?:'s|\s+is|\s+are)\s+the\s+(?:names?\s+of\s+the\s+)?(?:instructor|teacher|lecturer|professor)s?\b",
    re.IGNORECASE,
)
OUTLINE_RE = re.compile(
    r"\b(outline|syllabus|curriculum|table of contents|lesson list|list (?:of |the )?lessons"
    # a course's structure, not how to structure an app or the structure of a good test
    r"|(?:course|class)\s+structure|(?:the|its)\s+structure(?!\s+of\s+(?:an?|your|my)\b)"
    r"|(?:which|what|how many) lessons|lessons (?:are )?(?:in|of)|what is covered"
    r"|what (?:does|do|will) .+ cover)\b",
    re.IGNORECASE,
)
# Outline questions with one answer, led by that answer before the outline itself.
COUNT_RE = re.compile(r"\bhow\s+many\s+lessons\b", re.IGNORECASE)
LINK_RE = re.compile(r"\b(?:link|url|web\s*site|web\s*page|(?:course|home)\s*page)\b", re.IGNORECASE)
LAST_RE = re.compile(
    r"\b(?:last|final)\s+(?:lesson|lecture)\b|\b(?:lesson|lecture)\s+(?:comes\s+|is\s+)?last\b", re.IGNORECASE
)
FIRST_RE = re.compile(r"\bfirst\s+(?:lesson|lecture)\b", re.IGNORECASE)
TITLE_RE = re.compile(r"\b(?:called|named|titled|title|name)\b", re.IGNORECASE)
# A question that refers back to the conversation rather than naming its own course.
FOLLOW_UP_RE = re.compile(
    r"^\s*(?:and|but|also|so|then|what about|how about)\b"
    r"|\b(?:the next one|the previous one|the same course|that course|this course|next lesson)\b"
    r"|\b(?:simpler|more simply|in simpler terms|more detail|elaborate)\b"
    r"|^\s*lesson\s+\w+\s*\??\s*$",
    re.IGNORECASE,
)
# A short question that points at what was just said ("why is that?", "explain it").
POINTING_RE = re.compile(r"\b(?:that|this|it|those|these)\b", re.IGNORECASE)
SHORT_QUESTION_WORDS = 6
# Pronouns that stand for what the previous exchange was about ("who thought of it?", "is it cheap there?").
# "there" only closing the question: "is there a lesson on X" points nowhere.
PRONOUN_RE = re.compile(
    r"\b(?:it|its|they|them|their|those|these|he|she|him|his|her)\b|\bthere\s*[?.!]*\s*$", re.IGNORECASE
)
# A question asked after another with at most this many words of its own carries on from it.
FEW_WORDS = 2
# Words that ask for more of what was just said rather than name a topic: "can you give an example?".
REQUEST_WORDS = frozenset(
    {"give", "show", "example", "examples", "instance", "another", "more", "detail", "details", "reason"}
)
# "What is X" questions: the term X, which a defining sentence ("X is …") then answers best.
DEFINITION_QUESTION_RE = re.compile(
    r"^\s*(?:what\s+(?:is|are)|what's|whats|define|definition\s+of|meaning\s+of)\s+(?:an?\s+|the\s+)?(.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# A term of more words than this is a question about something, not a name to define.
MAX_TERM_WORDS = 4


@dataclass(frozen=True)
class Plan:
    """What the question asks for: the tool, the course and lesson it names, and its topic."""

    outline: bool
    course: CourseRecord | None
    lesson: int | None
    topic: str
    course_error: str | None = None
    note: str | None = None
    instructor: bool = False
    ask: str | None = None  # the one outline fact asked for (see outline_ask)
    halves: tuple[Plan, Plan] | None = None  # a comparison's two questions, each with a topic of its own
    context: str = ""  # a follow-up's words of the previous question (what "it" or "there" stands for)
    # The lessons the previous answer quoted, in its order: where a follow-up looks first.
    near: tuple[int, ...] = ()

    @property
    def query(self) -> str:
        """What to search for: the topic, and the previous question's words a follow-up stands on."""
        return f"{self.topic} {self.context}".strip()

    @property
    def quoted_for(self) -> str:
        """What the quoted sentences must answer: the topic, unless it has no word of its own. The words a
        follow-up stands on would pull the sentences back to the previous question ("what are its walls
        built from?" would quote what a yurt is)."""
        return self.topic if content_words(self.topic, NO_TOPIC_WORDS) else self.query

    @property
    def overview(self) -> bool:
        """True when the question says nothing beyond asking, and carries no topic on from the previous one
        ("why?" does): it wants a lesson's or course's gist."""
        return not content_words(self.query, NO_TOPIC_WORDS)

    @property
    def names_only(self) -> bool:
        """True for a plan that names a course or lesson and asks nothing of its own."""
        named = self.course is not None or self.lesson is not None
        return self.overview and not self.course_error and named

    @property
    def term(self) -> list[str] | None:
        """The stemmed words of the term a "what is X" topic asks to define, or None."""
        return defined_term(self.topic)


def understand(question: str, index: CourseIndex, previous: Exchange | None = None) -> Plan:
    """The Plan for a question; one that names no course carries on from the previous exchange."""
    plan = plan_of(question, index)
    if previous is not None:
        plan = follow_up(plan, question, previous, index)
    if plan.outline:
        return plan
    halves = _halves(split_comparison(question), index)
    return replace(plan, halves=(halves[0], halves[1])) if halves is not None else plan


def _halves(parts: tuple[str, str] | None, index: CourseIndex) -> tuple[Plan, ...] | None:
    """A comparison's two halves, each planned on its own; None for no comparison. A half that names no
    course that exists, or has no topic, is no comparison: the question is answered as one."""
    if not parts:
        return None
    planned = [plan_of(CUE_RE.sub(" ", part), index) for part in parts]
    # A half that only names where to look ("… vs what the other course says") asks the other's topic there.
    halves = tuple(
        replace(half, topic=other.topic) if half.names_only and not other.overview else half
        for half, other in zip(planned, planned[::-1], strict=True)
    )
    return None if any(half.course_error or half.overview for half in halves) else halves


def plan_of(question: str, index: CourseIndex) -> Plan:
    """Decide the tool, course, lesson and topic from the question alone."""
    ref = find_course(question, index)
    topic = _without(question, ref.named_by, ref.at)
    course, lesson = ref.course, lesson_number(question)
    if lesson is None and not ref.error:
        # "explain X from the Pasteur lecture": searched within that lesson, for X alone.
        courses = [course] if course is not None else index.courses()
        titled = lesson_by_title_word(topic, courses)
        if titled is not None:
            course, lesson, topic = titled.course, titled.lesson, titled.rest
    # Typos are searched as the library spells them, and the answer says so.
    corrected = index.corrected(topic)
    notes = [ref.note] if ref.note else []
    if corrected != topic:
        notes.append(f'_Searched for "{corrected.strip()}"._')
    return Plan(
        ask=outline_ask(question),
        outline=wants_outline(question),
        course=course,
        lesson=lesson,
        topic=corrected,
        course_error=ref.error,
        note="\n\n".join(notes) or None,
        instructor=asks_instructor(question),
    )


def follow_up(plan: Plan, question: str, previous: Exchange, index: CourseIndex) -> Plan:
    """The plan carried on from the previous exchange, for a question that refers back to it.

    "And lesson 4?" keeps the course; "and the pottery course?" asks the previous question of that course.
    A question that points back by a pronoun ("who thought of it?"), has no word of its own, or only asks
    for more ("can you give an example?") is also
    searched with the previous question's words (conversational query expansion); every follow-up,
    including one with few words of its own ("and projection?"), keeps the previous course unless it names
    another, and looks first in the lessons the previous answer quoted (`near`), as a person would.
    """
    if plan.course_error:
        return plan
    if plan.course is not None:
        # "and the testing course?" asks the previous question of another course: its outline question
        # ("who teaches the RAG course?") as one, its topic as the words searched.
        if not (plan.lesson is None and plan.overview and not plan.outline and refers_back(question)):
            return plan
        earlier = plan_of(previous.question, index)
        if earlier.outline:
            return replace(plan, outline=True, ask=earlier.ask, instructor=earlier.instructor)
        return replace(plan, context=carried_words([], earlier.topic))
    own = content_words(plan.topic, NO_TOPIC_WORDS)
    if not refers_back(question):
        return plan
    asks_more = not content_words(plan.topic, NO_TOPIC_WORDS | REQUEST_WORDS)
    if PRONOUN_RE.search(question) or asks_more:
        plan = replace(plan, context=carried_words(own, plan_of(previous.question, index).topic))
    cited = next((source for source in previous.sources if source.course_title), None)
    if cited is None or (_courses_cited(previous) > 1 and split_comparison(previous.question)):
        return plan  # a comparison answered from two courses: its follow-up spans both
    try:
        course = index.resolve_course(cited.course_title)
    except CourseNotFound:  # the course went since the previous answer
        return plan
    lesson = plan.lesson
    if lesson is not None and lesson not in {each.number for each in course.lessons}:
        lesson = None  # past the last lesson: the whole course rather than an error
    near = _cited_lessons(previous, course.title) if lesson is None else ()
    return replace(plan, course=course, note=None, lesson=lesson, near=near)


def _courses_cited(previous: Exchange) -> int:
    """How many courses the previous answer quoted."""
    return len({source.course_title for source in previous.sources if source.course_title})


def _cited_lessons(previous: Exchange, course_title: str) -> tuple[int, ...]:
    """The lessons of a course that the previous answer quoted, in the order it quoted them."""
    cited = (source.lesson_number for source in previous.sources if source.course_title == course_title)
    return tuple(dict.fromkeys(number for number in cited if number is not None))


def refers_back(question: str) -> bool:
    """True when a question asked after another carries on from it rather than starting afresh."""
    pointing = POINTING_RE.search(question) and len(question.split()) <= SHORT_QUESTION_WORDS
    own = content_words(LESSON_RE.sub(" ", question), NO_TOPIC_WORDS)
    return (
        bool(FOLLOW_UP_RE.search(question) or pointing or PRONOUN_RE.search(question))
        or len(own) <= FEW_WORDS
    )


def carried_words(own: list[str], earlier: str) -> str:
    """The earlier topic's words that the follow-up lacks: what a pronoun or an ellipsis stands for."""
    added = [
        word
        for word in CHAIN_RE.findall(earlier)  # "hx-target" whole: its short half alone says little
        if word.lower() not in NO_TOPIC_WORDS and len(word) > 2 and stem(word) not in own
    ]
    return " ".join(dict.fromkeys(added))


def asks_instructor(question: str) -> bool:
    """True when the question asks who teaches a course."""
    return bool(INSTRUCTOR_RE.search(question))


def outline_ask(question: str) -> str | None:
    """Which one fact of an outline the question asks for: count, lesson title, last, first, link."""
    if COUNT_RE.search(question):
        return "count"
    if lesson_number(question) is not None and TITLE_RE.search(question):
        return "lesson title"
    if LAST_RE.search(question):
        return "last"
    if FIRST_RE.search(question) and TITLE_RE.search(question):
        return "first"
    if LINK_RE.search(question):
        return "link"
    return None


def wants_outline(question: str) -> bool:
    """True when the question is about a course's structure or instructor rather than its content."""
    if outline_ask(question):
        return True
    asks = OUTLINE_RE.search(question) or asks_instructor(question)
    return bool(asks) and lesson_number(question) is None


def defined_term(question: str) -> list[str] | None:
    """The stemmed words of the term a "what is X" question asks to define, or None."""
    match = DEFINITION_QUESTION_RE.match(question)
    if not match:
        return None
    words = [stem(word) for word in tokens(match.group(1)) if word.lower() not in STOPWORDS]
    return words if 0 < len(words) <= MAX_TERM_WORDS else None


def _without(text: str, named_by: str, at: tuple[int, int] | None = None) -> str:
    """The question without the words that named the course and the lesson: what it is about. Given where
    the naming phrase stands (`at`), only its words there go ("how does the broker know a message came from
    redis, in the redis course?" is still about Redis)."""
    start, end = at or (0, len(text))
    if named_by:
        gone = {stem(token) for token in tokens(named_by)} | {token.lower() for token in tokens(named_by)}
        kept = re.sub(
            r"[A-Za-z0-9]+",
            lambda match: (
                "" if stem(match.group(0)) in gone or match.group(0).lower() in gone else match.group(0)
            ),
            text[start:end],
        )
        text = f"{text[:start]} {kept} {text[end:]}"
    return " ".join(LESSON_RE.sub(" ", text).split())
