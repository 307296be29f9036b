"""What a question names: a lesson number, and the phrase that names a course, matched through the index.

Only finding the phrase happens here; what course a phrase means is the index's `resolve_course`, the one
resolver (see ARCHITECTURE.md, section "Assistant").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.errors import CourseNotFound
from app.language.lexicon import STOPWORDS
from app.language.tokens import TOKEN_RE, content_words, stem, tokens
from app.search.models import CourseRecord

if TYPE_CHECKING:
    from app.search.index import CourseIndex

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
LESSON_RE = re.compile(
    r"\blesson\s*(?:#|no\.?\s*|number\s*)?(\d{1,3}|" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE
)
PREPOSITIONS = r"(?:in|of|from|about|on|for|to)"
THE = r"(?:the\s+)?"
NAME = r"(.{2,80}?)"
WORDS = r"(\w[\w\s\-']{0,80}?)"
END = r"\s*(?:[?.!,;]|$)"
LISTING = r"(?:outline|syllabus|curriculum|lessons)"
# Where a student names a course. Strict phrases clearly name one ("the course called X", "the outline of
# X"): when X looks like a name and matches no course, the answer says which courses exist. Loose phrases
# ("the X course", quoted text, "the X class", "what does X cover") often hold other words ("the best
# course", "the instructor say in the course", "the base class"): a miss there searches every course.
COURSE_PATTERNS: list[tuple[re.Pattern[str], bool]] = [
    (re.compile(rf"\bcourse\s+(?:called|named|titled)\s+{NAME}{END}", re.I), True),
    (re.compile(rf"\b{LISTING}\s+(?:of|for|in)\s+{THE}{NAME}{END}", re.I), True),
    (re.compile(rf"\b(?:{PREPOSITIONS}\s+{THE}|the\s+){WORDS}\s+course\b", re.I), False),
    (re.compile(rf"\bcourse\s+(?:on|about)\s+{NAME}{END}", re.I), False),
    (re.compile(r"[\"“]([^\"”]{2,100})[\"”]"), False),
    (re.compile(rf"\b(?:{PREPOSITIONS}\s+{THE}|the\s+){WORDS}\s+class\b", re.I), False),
    (re.compile(rf"\bwhat\s+(?:does|do|will)\s+{THE}{NAME}\s+cover\b", re.I), False),
]  # fmt: skip
# "rag course", "flask course" with no "the" before: up to three words right before "course", read from the
# last small word or punctuation on. Only a phrase that names a course that exists counts: a bare "good
# course" or "crash course" is the question's own words.
BARE_RE = re.compile(r"((?:\b\w[\w@'\-]*\s+){1,3})course\b", re.IGNORECASE)
# How many letters a course's acronym typed in lower case has ("rag", "mcp").
ACRONYM_LETTERS = (3, 5)
# A name a strict phrase gives is at most this many words; longer text is a question, not a name.
MAX_NAME_WORDS = 5


@dataclass(frozen=True)
class CourseRef:
    """The course a question names, the text that named it, and what to say when it named none that exists.

    `at` is where in the question the naming phrase stands ("htmx" of "in the htmx course"), when a phrase
    named the course: its words are the course's there, and the question's own anywhere else.
    """

    course: CourseRecord | None = None
    named_by: str = ""
    at: tuple[int, int] | None = None
    error: str | None = None
    note: str | None = None


def lesson_number(question: str) -> int | None:
    """The lesson number a question names ("lesson 2", "lesson two"), if any."""
    match = LESSON_RE.search(question)
    if not match:
        return None
    value = match.group(1).lower()
    return int(value) if value.isdigit() else NUMBER_WORDS[value]


def find_course(question: str, index: CourseIndex) -> CourseRef:
    """The course the question names, without guessing; a strict miss is an error, a loose miss of a name a
    note. A phrase ("the RAG course"), else the course the question mentions by acronym or title."""
    note, missed, missed_at = None, "", None
    for pattern, strict in COURSE_PATTERNS:
        for match in pattern.finditer(question):
            phrase = match.group(1)
            record, name, error = _resolve_phrase(phrase, index)
            if record is not None:
                return CourseRef(record, named_by=name, at=match.span(1))
            words = content_words(LESSON_RE.sub(" ", phrase))
            if error and strict and len(words) <= MAX_NAME_WORDS:
                return CourseRef(error=error)
            if error and note is None and _looks_like_name(phrase) and len(words) <= MAX_NAME_WORDS:
                titles = ", ".join(record.title for record in index.courses())
                note = f"_No course matches '{phrase.strip()}', so every course was searched ({titles})._"
            # "the best course" says nothing about the topic; "the base class" or a quote may well.
            if "course" in match.group(0).lower() and not missed:
                missed, missed_at = match.group(0), match.span(0)
    bare = _bare_name(question, index)
    if bare is not None:
        return bare
    mentioned = index.course_mentioned(question) or _lower_case_acronym(question, index)
    if mentioned is not None:
        return with_title_words(question, *mentioned)
    return CourseRef(note=note, named_by=missed, at=missed_at)


def _bare_name(question: str, index: CourseIndex) -> CourseRef | None:
    """The course a bare "<name> course" names ("proofing times - bread course"), if one such phrase does."""
    for match in BARE_RE.finditer(question):
        words = list(re.finditer(r"\S+", match.group(1)))
        after_small = [at + 1 for at, word in enumerate(words) if word.group(0).lower() in STOPWORDS]
        named = words[max(after_small, default=0) :]
        if not named:
            continue
        start, end = match.start(1) + named[0].start(), match.start(1) + named[-1].end()
        try:
            record = index.resolve_course(question[start:end])
        except CourseNotFound:
            continue
        # With no "the" before it, "course" reads as the name's last word: it goes with the name.
        return CourseRef(record, question[start : match.end()], (start, match.end()))
    return None


def _lower_case_acronym(question: str, index: CourseIndex) -> tuple[CourseRecord, str] | None:
    """The course a lower-case acronym names ("reranking in rag"), where the question asks about something
    else too: "what is rag" asks about RAG itself."""
    mentioned = index.course_mentioned(_spelled_as_acronyms(question))
    if mentioned is None or set(content_words(question)) <= set(content_words(mentioned[1])):
        return None
    return mentioned


def _spelled_as_acronyms(question: str) -> str:
    """The question with its short words in capitals: students type acronyms in lower case ("reranking in
    rag"), and a word only counts as one where it spells a course title's initials."""
    return re.sub(
        rf"\b[a-z]{{{ACRONYM_LETTERS[0]},{ACRONYM_LETTERS[1]}}}\b",
        lambda match: match.group(0) if match.group(0) in STOPWORDS else match.group(0).upper(),
        question,
    )


def _resolve_phrase(phrase: str, index: CourseIndex) -> tuple[CourseRecord | None, str, str | None]:
    """Resolve a phrase, then its tails after each small word ("lesson 2 of the RAG" -> "RAG"): the
    course, the words that named it, or the first error."""
    words = LESSON_RE.sub(" ", phrase).split()
    tails = [" ".join(words[i:]) for i in range(len(words)) if i == 0 or words[i - 1].lower() in STOPWORDS]
    first_error = None
    for tail in tails:
        if not content_words(tail):
            continue
        try:
            return index.resolve_course(tail), tail, None
        except CourseNotFound as exc:
            first_error = first_error or exc.message
    return None, "", first_error


def _looks_like_name(phrase: str) -> bool:
    """True when every meaningful word is capitalised or an acronym ("Kubernetes", "Machine Learning")."""
    words = [token for token in tokens(phrase) if token.lower() not in STOPWORDS]
    return bool(words) and all(word[0].isupper() or word[0].isdigit() for word in words)


def with_title_words(question: str, course: CourseRecord, named_by: str) -> CourseRef:
    """The course a code or instructor names, with the words of its title said next to them ("miller bread
    baking grading"): they name the course there and leave the topic, which every passage of the course
    would otherwise match by them. Kept when the question says nothing else."""
    title = set(content_words(course.title))
    named = {word.lower() for word in tokens(named_by)}
    words = list(TOKEN_RE.finditer(question))
    at = [position for position, word in enumerate(words) if word.group(0).lower() in named]
    if not at:
        return CourseRef(course, named_by)

    def naming(word: str) -> bool:
        # "s" is the tail of a possessive ("miller's bread baking").
        return word.lower() == "s" or stem(word) in title

    first, last = at[0], at[-1]
    while first > 0 and naming(words[first - 1].group(0)):
        first -= 1
    while last + 1 < len(words) and naming(words[last + 1].group(0)):
        last += 1
    span = (words[first].start(), words[last].end())
    rest = f"{question[: span[0]]} {question[span[1] :]}"
    grown = any(stem(word.group(0)) in title for word in words[first : last + 1])
    if not grown or not content_words(LESSON_RE.sub(" ", rest)):
        return CourseRef(course, named_by)
    return CourseRef(course, question[span[0] : span[1]], span)
