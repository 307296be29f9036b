"""The answerer used without an API key: the same tools, chosen from the question, and the best sentences."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.assistant.models import Answer, Exchange, Source
from app.assistant.tools import (
    OUTLINE_TOOL,
    SEARCH_TOOL,
    SourceCollector,
    ToolBox,
    ToolResult,
    passage_source,
)
from app.courses.chunking import split_sentences
from app.errors import CourseNotFound
from app.search.models import CourseRecord, Outline, Passage

SEARCH_NOTE = "_No language model is configured; here are the most relevant passages from the courses._"
OUTLINE_NOTE = "_No language model is configured; here is the outline from the course materials._"
NO_MATCH = "Nothing in the course materials matches this question. Try other words, or name a course."
MAX_SENTENCES = 6
MIN_WORDS = 4
# Cosine similarity (all-MiniLM-L6-v2) below which a sentence is not about the question at all, and how far
# below the best sentence a sentence may fall and still be quoted.
MIN_SCORE = 0.25
MAX_GAP = 0.2

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
LESSON_RE = re.compile(
    r"\blesson\s*(?:#|no\.?\s*|number\s*)?(\d{1,3}|" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE
)
OUTLINE_RE = re.compile(
    r"\b(outline|syllabus|curriculum|table of contents|structure|lesson list|list (?:of |the )?lessons"
    r"|(?:which|what|how many) lessons|lessons (?:are )?(?:in|of)|what is covered"
    r"|what (?:does|do|will) .+ cover)\b",
    re.IGNORECASE,
)
PREPOSITIONS = r"(?:in|of|from|about|on|for|to)"
THE = r"(?:the\s+)?"
NAME = r"(.{2,80}?)"
WORDS = r"(\w[\w\s\-']{0,80}?)"
END = r"\s*(?:[?.!,;]|$)"
LISTING = r"(?:outline|syllabus|curriculum|lessons)"
# Where a student names a course. A phrase that says "course" (or asks for an outline) is strict: when it
# matches no course, the answer says which courses exist. Quoted text, "the X class" and "what does X
# cover" may well name a term instead ("the base class"), so a miss there is no error.
COURSE_PATTERNS: list[tuple[re.Pattern[str], bool]] = [
    (re.compile(rf"\b(?:{PREPOSITIONS}\s+{THE}|the\s+){WORDS}\s+course\b", re.I), True),
    (re.compile(rf"\bcourse\s+(?:on|about|called|named|titled)\s+{NAME}{END}", re.I), True),
    (re.compile(rf"\b{LISTING}\s+(?:of|for|in)\s+{THE}{NAME}{END}", re.I), True),
    (re.compile(r"[\"“]([^\"”]{2,100})[\"”]"), False),
    (re.compile(rf"\b(?:{PREPOSITIONS}\s+{THE}|the\s+){WORDS}\s+class\b", re.I), False),
    (re.compile(rf"\bwhat\s+(?:does|do|will)\s+{THE}{NAME}\s+cover\b", re.I), False),
]  # fmt: skip
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "about", "as", "at", "be", "by", "can", "course", "class", "cover", "covers",
        "do", "does", "for", "from", "how", "i", "in", "is", "it", "lesson", "lessons", "me", "of", "on",
        "or", "outline", "say", "says", "syllabus", "tell", "that", "the", "this", "to", "what", "when",
        "where", "which", "who", "why", "with", "you", "your",
    }
)  # fmt: skip


@dataclass
class Plan:
    """What the question asks for: the tool, and the course and lesson it names."""

    outline: bool
    course: CourseRecord | None
    lesson: int | None
    course_error: str | None = None


def _stem(word: str) -> str:
    """A crude stem so "databases"/"database" and "testing"/"test" compare equal."""
    word = word.lower().strip("'’")
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + replacement
    return word


def _words(text: str) -> list[str]:
    """The words of a text (letters, digits, inner hyphens split)."""
    return re.findall(r"[A-Za-z0-9]+", text)


def _significant(text: str) -> set[str]:
    """Stems of the words that carry meaning."""
    return {_stem(word) for word in _words(text) if word.lower() not in STOPWORDS and len(word) > 1}


def _acronym(title: str) -> str:
    """Initials of a title's significant words ("Retrieval-Augmented Generation in Practice" -> "RAGP")."""
    return "".join(word[0].upper() for word in _words(title) if word.lower() not in STOPWORDS)


def lesson_number(question: str) -> int | None:
    """The lesson number a question names ("lesson 2", "lesson two"), if any."""
    match = LESSON_RE.search(question)
    if not match:
        return None
    value = match.group(1).lower()
    return int(value) if value.isdigit() else NUMBER_WORDS[value]


def wants_outline(question: str) -> bool:
    """True when the question is about a course's structure rather than its content."""
    return bool(OUTLINE_RE.search(question)) and lesson_number(question) is None


class CourseFinder:
    """Find the course a question names, without guessing: explicit phrases first, then title words."""

    def __init__(self, index):
        self.index = index

    def find(self, question: str) -> tuple[CourseRecord | None, str | None]:
        """The course the question names; (None, the index's message) when a named course does not exist."""
        for pattern, strict in COURSE_PATTERNS:
            for match in pattern.finditer(question):
                record, error = self._resolve_phrase(match.group(1))
                if record is not None:
                    return record, None
                if error and strict:
                    return None, error
        return self._from_title_words(question), None

    def _resolve_phrase(self, phrase: str) -> tuple[CourseRecord | None, str | None]:
        """Resolve a phrase, then its tails after each small word ("lesson 2 of the RAG" -> "RAG")."""
        words = LESSON_RE.sub(" ", phrase).split()
        tails = [
            " ".join(words[i:]) for i in range(len(words)) if i == 0 or words[i - 1].lower() in STOPWORDS
        ]
        first_error = None
        for tail in tails:
            if not _significant(tail):
                continue
            try:
                return self.index.resolve_course(tail), None
            except CourseNotFound as exc:
                first_error = first_error or exc.message
        return None, first_error

    def _from_title_words(self, question: str) -> CourseRecord | None:
        """A course whose title the question clearly echoes: its acronym, or two of its title words."""
        question_stems = _significant(question)
        tokens = set(_words(question))
        found = []
        for record in self.index.courses():
            shared = question_stems & _significant(record.title)
            acronym = _acronym(record.title)
            has_acronym = any(
                len(token) >= 2 and token.isupper() and acronym.startswith(token) for token in tokens
            )
            if len(shared) >= 2 or has_acronym:
                found.append(record)
        # Two courses echoed at once is ambiguous: search everything rather than pick one.
        return found[0] if len(found) == 1 else None


class ExtractiveAnswerer:
    """Answer from the course materials alone: pick a tool from the question, quote the best sentences."""

    def __init__(self, toolbox: ToolBox, embedder, max_sentences: int = MAX_SENTENCES):
        self.toolbox = toolbox
        self.embedder = embedder
        self.max_sentences = max_sentences
        self.finder = CourseFinder(toolbox.index)

    def plan(self, question: str) -> Plan:
        """Decide the tool, course and lesson from the question."""
        course, error = self.finder.find(question)
        return Plan(
            outline=wants_outline(question), course=course, lesson=lesson_number(question), course_error=error
        )

    def answer(self, question: str, history: list[Exchange]) -> Answer:
        """Answer one question; history is not used (there is no model to carry a conversation)."""
        plan = self.plan(question)
        if plan.course_error:
            return self._reply(OUTLINE_NOTE if plan.outline else SEARCH_NOTE, plan.course_error, [], False)
        if plan.outline:
            return self._outline(plan)
        arguments = {
            "query": question,
            "course_name": plan.course.title if plan.course else None,
            "lesson_number": plan.lesson,
        }
        return self._search(question, self.toolbox.run(SEARCH_TOOL, arguments))

    def _reply(self, note: str, body: str, sources: list[Source], tool_used: bool) -> Answer:
        """An Answer under the mode note."""
        return Answer(
            markdown=f"{note}\n\n{body}", sources=sources, mode="extractive", tool_rounds=int(tool_used)
        )

    def _outline(self, plan: Plan) -> Answer:
        """The named course's outline as markdown; without a course, the list of courses."""
        course = plan.course
        if course is None:
            courses = self.toolbox.index.courses()
            if len(courses) != 1:
                return self._reply(OUTLINE_NOTE, render_course_list(courses), [], False)
            course = courses[0]
        result = self.toolbox.run(OUTLINE_TOOL, {"course_name": course.title})
        if result.is_error or result.outline is None:
            return self._reply(OUTLINE_NOTE, result.text, [], True)
        return self._reply(OUTLINE_NOTE, render_outline(result.outline), result.sources, True)

    def _search(self, question: str, result: ToolResult) -> Answer:
        """The most relevant sentences of the passages found, grouped by lesson."""
        if result.is_error:
            return self._reply(SEARCH_NOTE, result.text, [], True)
        picked = self.best_sentences(question, result.passages)
        if not picked:
            return self._reply(SEARCH_NOTE, NO_MATCH, [], True)
        collector = SourceCollector()
        groups: dict[tuple[str, int], list[tuple[int, int, str]]] = {}
        for passage_rank, position, sentence in picked:
            passage = result.passages[passage_rank]
            collector.add([passage_source(passage)])
            groups.setdefault((passage.course_title, passage.lesson_number), []).append(
                (passage_rank, position, sentence)
            )
        sources = collector.sources
        blocks = []
        for source in sources:
            quoted = sorted(groups[(source.course_title, source.lesson_number)])
            blocks.append(f"**{source.label}**\n\n{_join(quoted)}")
        return self._reply(SEARCH_NOTE, "\n\n".join(blocks), sources, True)

    def best_sentences(self, question: str, passages: list[Passage]) -> list[tuple[int, int, str]]:
        """(passage rank, position, sentence) of the sentences closest to the question, best first."""
        candidates: list[tuple[int, int, str]] = []
        seen: set[str] = set()
        for rank, passage in enumerate(passages):
            for position, sentence in enumerate(split_sentences(passage.text)):
                key = " ".join(sentence.lower().split())
                # Overlapping chunks repeat sentences; quote each once.
                if len(_words(sentence)) >= MIN_WORDS and key not in seen:
                    seen.add(key)
                    candidates.append((rank, position, sentence.strip()))
        if not candidates:
            return []
        query = self.embedder.embed_query(question)
        vectors = self.embedder.embed_documents([sentence for _, _, sentence in candidates])
        scored = [
            (sum(q * v for q, v in zip(query, vector, strict=True)), candidate)
            for vector, candidate in zip(vectors, candidates, strict=True)
        ]
        scored.sort(key=lambda item: item[0], reverse=True)
        floor = max(MIN_SCORE, scored[0][0] - MAX_GAP)
        return [candidate for score, candidate in scored[: self.max_sentences] if score >= floor]


def _join(quoted: list[tuple[int, int, str]]) -> str:
    """Sentences in reading order; a gap between non-adjacent sentences shows as an ellipsis."""
    text = ""
    previous: tuple[int, int] | None = None
    for rank, position, sentence in quoted:
        if previous is not None:
            text += " " if (rank, position) == (previous[0], previous[1] + 1) else " … "
        text += sentence
        previous = (rank, position)
    return text


def render_outline(outline: Outline) -> str:
    """An outline as markdown: linked title, instructor, then a bullet per lesson (lesson 0 included)."""
    title = f"[{outline.title}]({outline.link})" if outline.link else outline.title
    lines = [f"**{title}**"]
    if outline.instructor:
        lines.append(f"Instructor: {outline.instructor}")
    lines.append("")
    for lesson in outline.lessons:
        name = f"[{lesson.title}]({lesson.link})" if lesson.link else lesson.title
        lines.append(f"- Lesson {lesson.number}: {name}")
    return "\n".join(lines)


def render_course_list(courses: list[CourseRecord]) -> str:
    """The courses there are, for an outline question that names none."""
    if not courses:
        return "No courses are indexed yet."
    lines = ["Which course? Name one of these to see its outline:", ""]
    for course in courses:
        title = f"[{course.title}]({course.link})" if course.link else course.title
        lines.append(f"- {title} ({len(course.lessons)} lessons)")
    return "\n".join(lines)
