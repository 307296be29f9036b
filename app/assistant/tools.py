"""The assistant's tools: their schemas, and running them into text for the model plus Sources."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.assistant import retrieval
from app.assistant.base import Source
from app.courses.timecodes import format_clock
from app.errors import BadRequest, NotFound
from app.rules import snippet
from app.search.models import Outline, Passage

if TYPE_CHECKING:
    from app.search.index import CourseIndex

SEARCH_TOOL = "search_course_content"
OUTLINE_TOOL = "get_course_outline"
STATUS_QUERY_CHARS = 60

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "name": SEARCH_TOOL,
        "description": (
            "Search the course materials (lesson transcripts and notes) for passages relevant to a query. "
            "Use it for questions about what the courses teach: concepts, explanations, examples, details "
            "of a lesson. Returns the best-matching passages as search results titled with their course "
            "and lesson; cite them for the claims you take from them. Optionally restrict the search to "
            "one course (a full or partial title, e.g. 'RAG' or 'vector databases') and to one lesson "
            "number of that course. One search answers one sub-question: for a question with several "
            "parts (comparing two lessons or courses, 'X and Y'), call it once per part, in parallel. Do "
            "not use it for general knowledge questions that are not about the course materials."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to look for, phrased as the topic or question itself.",
                },
                "course_name": {
                    "type": "string",
                    "description": "Only search this course: its title or a distinctive part of it.",
                },
                "lesson_number": {
                    "type": "integer",
                    "description": "Only search this lesson number (lesson 0 is the introduction).",
                },
            },
            "required": ["query"],
        },
    },
    {
        "name": OUTLINE_TOOL,
        "description": (
            "Get a course's outline: its title, link, instructor and the numbered list of lessons with "
            "their titles and links. Use it for questions about a course's structure, syllabus, lesson "
            "list, how many lessons it has, or what lesson N is called."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "course_name": {
                    "type": "string",
                    "description": "The course: its title or a distinctive part of it.",
                },
            },
            "required": ["course_name"],
        },
    },
]


@dataclass
class ToolResult:
    """What one tool call produced: text for the model, the sources it drew on, and the raw data."""

    text: str
    sources: list[Source] = field(default_factory=list)
    is_error: bool = False
    passages: list[Passage] = field(default_factory=list)
    outline: Outline | None = None


class SourceCollector:
    """The sources of one answer: de-duplicated by (course, lesson), in order of first use."""

    def __init__(self) -> None:
        self._sources: dict[tuple[str, int | None], Source] = {}

    def add(self, sources: list[Source]) -> None:
        """Keep each (course, lesson) the first time it is seen."""
        for source in sources:
            self._sources.setdefault((source.course_title, source.lesson_number), source)

    @property
    def sources(self) -> list[Source]:
        """The collected sources, first used first."""
        return list(self._sources.values())


def lesson_label(
    course_title: str, lesson_number: int, lesson_title: str, seconds: float | None = None
) -> str:
    """`Course – Lesson n: title` (en dash), the way sources and passages are headed; a time shows as
    `Lesson n · 12:34`."""
    at = f" · {format_clock(seconds)}" if seconds is not None else ""
    return f"{course_title} – Lesson {lesson_number}{at}: {lesson_title}"


def passage_source(passage: Passage, quote: str | None = None) -> Source:
    """The Source for a search hit: its lesson, links and a snippet; timed at `quote` (else the passage's
    start) when the lesson has timings."""
    seconds = passage.start_seconds(quote)
    if seconds is None and quote is not None:
        seconds = passage.start_seconds()
    return Source(
        label=lesson_label(passage.course_title, passage.lesson_number, passage.lesson_title, seconds),
        course_title=passage.course_title,
        lesson_number=passage.lesson_number,
        lesson_title=passage.lesson_title,
        course_link=passage.course_link,
        lesson_link=passage.lesson_link,
        snippet=snippet(passage.text),
        start_seconds=seconds,
    )


def outline_source(outline: Outline) -> Source:
    """The Source for an outline: the course itself, with its link."""
    lessons = len(outline.lessons)
    return Source(
        label=outline.title,
        course_title=outline.title,
        course_link=outline.link,
        snippet=f"Course outline: {lessons} lesson{'s' if lessons != 1 else ''}.",
    )


def format_passages(passages: list[Passage]) -> str:
    """Passages as the model reads them: each headed `[Course – Lesson n: title]`."""
    blocks = [
        f"[{lesson_label(p.course_title, p.lesson_number, p.lesson_title)}]\n{p.text.strip()}"
        for p in passages
    ]
    return "\n\n".join(blocks)


def format_outline(outline: Outline) -> str:
    """An outline as plain text for the model: title, link, instructor, numbered lessons with links."""
    lines = [f"Course: {outline.title}"]
    if outline.link:
        lines.append(f"Link: {outline.link}")
    if outline.instructor:
        lines.append(f"Instructor: {outline.instructor}")
    lines.append(f"Lessons ({len(outline.lessons)}):")
    for lesson in outline.lessons:
        link = f" — {lesson.link}" if lesson.link else ""
        lines.append(f"  Lesson {lesson.number}: {lesson.title}{link}")
    return "\n".join(lines)


def _required_text(value: Any, name: str) -> str:
    """A required string argument, stripped."""
    text = _text(value, name)
    if text is None:
        raise BadRequest(f"Missing required argument '{name}'.")
    return text


def _text(value: Any, name: str) -> str | None:
    """An optional string argument, stripped; None when absent or blank."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise BadRequest(f"Argument '{name}' must be a string.")
    return value.strip()


def _lesson(value: Any) -> int | None:
    """An optional lesson number; a numeric string is accepted, a bool or fraction is not."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise BadRequest("Argument 'lesson_number' must be an integer.")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise BadRequest("Argument 'lesson_number' must be an integer.")


class ToolBox:
    """Runs the assistant's tools against a CourseIndex; holds no per-request state."""

    schemas = TOOL_SCHEMAS

    def __init__(self, index: CourseIndex, max_results: int | None = None):
        self.index = index
        self.max_results = max_results

    def run(self, name: str, arguments: Any) -> ToolResult:
        """Run a tool by name; unknown tools, bad arguments and unknown courses come back as errors."""
        if not isinstance(arguments, dict):
            return ToolResult(f"Tool input must be an object, got {type(arguments).__name__}.", is_error=True)
        try:
            if name == SEARCH_TOOL:
                return self.search(
                    _required_text(arguments.get("query"), "query"),
                    _text(arguments.get("course_name"), "course_name"),
                    _lesson(arguments.get("lesson_number")),
                )
            if name == OUTLINE_TOOL:
                return self.outline(_required_text(arguments.get("course_name"), "course_name"))
        except (BadRequest, NotFound) as exc:
            # The model reads the message (e.g. the list of courses) and can try again.
            return ToolResult(exc.message, is_error=True)
        return ToolResult(
            f"Unknown tool '{name}'. Available tools: {SEARCH_TOOL}, {OUTLINE_TOOL}.", is_error=True
        )

    def describe(self, name: str, arguments: Any) -> str:
        """What a tool call is about to do, for a person to read ("Searching Lesson 3 of …")."""
        arguments = arguments if isinstance(arguments, dict) else {}
        course = arguments.get("course_name")
        title = self._course_title(course) if isinstance(course, str) and course.strip() else None
        if name == OUTLINE_TOOL:
            return f"Reading the outline of {title or 'a course'}…"
        if name != SEARCH_TOOL:
            return "Looking something up…"
        try:
            lesson = _lesson(arguments.get("lesson_number"))
        except BadRequest:
            lesson = None
        if title and lesson is not None:
            return f"Searching Lesson {lesson} of {title}…"
        if title:
            return f"Searching {title}…"
        query = arguments.get("query")
        if isinstance(query, str) and query.strip():
            return f"Searching the courses for “{snippet(query, STATUS_QUERY_CHARS)}”…"
        return "Searching the courses…"

    def _course_title(self, name: str) -> str:
        """The title of the course a name means, else the name as given (the tool reports the error)."""
        try:
            return self.index.resolve_course(name.strip()).title
        except (BadRequest, NotFound):
            return name.strip()

    def search(
        self, query: str, course_name: str | None = None, lesson_number: int | None = None
    ) -> ToolResult:
        """Search passages; raises CourseNotFound / LessonNotFound from the index."""
        # Plain retrieval: Claude splits a comparison into searches itself, as the tool's description asks,
        # and the extractive answerer plans one search per compared part.
        passages = self.index.search(query, course=course_name, lesson=lesson_number, k=self.max_results)
        retrieval.saw(passages)  # the question log's confidence figure
        if not passages:
            where = ""
            if course_name:
                where = f" in the course '{course_name}'"
            if lesson_number is not None:
                where += f"{' ' if where else ' in '}lesson {lesson_number}"
            return ToolResult(f"No course content found for '{query}'{where}.")
        sources = [passage_source(passage) for passage in passages]
        return ToolResult(format_passages(passages), sources=sources, passages=passages)

    def outline(self, course_name: str) -> ToolResult:
        """A course's outline; raises CourseNotFound from the index."""
        outline = self.index.outline(course_name)
        return ToolResult(format_outline(outline), sources=[outline_source(outline)], outline=outline)
