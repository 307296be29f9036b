"""Render an extractive answer, the pipeline's last step: quotes by lesson, an outline, the courses."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from app.assistant.base import Answer, Source
from app.assistant.citations import escape_markers
from app.assistant.extractive.scoring import Quote
from app.assistant.markdown_text import escape_markdown
from app.assistant.tools import SourceCollector, lesson_label, passage_source
from app.courses.timecodes import format_clock, video_link_at
from app.search.models import CourseRecord, Outline

if TYPE_CHECKING:
    from app.assistant.extractive.intent import Plan

SEARCH_NOTE = "_No language model is configured; here are the most relevant passages from the courses._"
OUTLINE_NOTE = "_No language model is configured; here is the outline from the course materials._"
NO_MATCH = "The course materials don't cover this. Try other words, or name a course."
NEVER_SAID = (
    "The course materials never mention {names}, so they don't cover this. Try other words, or name a course."
)
COURSE_NEVER_SAYS = (
    "{course} never mentions {names}, so it doesn't cover this. Try other words, or another course."
)


def reply(note: str, body: str, sources: list[Source], tool_used: bool) -> Answer:
    """An Answer under the mode note."""
    # Quoted course text is never a citation marker, whatever it contains.
    return Answer(
        markdown=f"{note}\n\n{escape_markers(body)}",
        sources=sources,
        mode="extractive",
        tool_rounds=int(tool_used),
    )


def no_match(note: str | None, unmentioned: tuple[str, ...] = (), course: str | None = None) -> Answer:
    """The answer when nothing relevant was found: one plain line, after the plan's note if any. It names
    what the courses (or the one `course` searched) never say when that is why ("AWS Lambda"), so the
    student knows what to leave out."""
    # The banner "here are the most relevant passages" would contradict it.
    line = NO_MATCH
    if unmentioned and course:
        line = COURSE_NEVER_SAYS.format(course=f"“{escape_markers(course)}”", names=_listed(unmentioned))
    elif unmentioned:
        line = NEVER_SAID.format(names=_listed(unmentioned))
    body = f"{note}\n\n{line}" if note else line
    return Answer(markdown=body, sources=[], mode="extractive", tool_rounds=1)


def _listed(names: tuple[str, ...]) -> str:
    """Names in quotes, joined as a sentence lists them: “A”, “B” or “C”."""
    quoted = [f"“{escape_markers(name)}”" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def render_quotes(quotes: list[Quote]) -> tuple[str, list[Source]]:
    """Render quotes as a block per lesson, headed by its label, in order of first use; return the sources."""
    collector = SourceCollector()
    groups: dict[tuple[str, int | None], list[Quote]] = {}
    seen: set[str] = set()
    for quote in quotes:
        if quote.sentence in seen:  # two halves of a comparison may share a sentence of context
            continue
        seen.add(quote.sentence)
        source = passage_source(quote.passage, quote.sentence)
        collector.add([source])
        groups.setdefault((source.course_title, source.lesson_number), []).append(quote)
    # A timed lesson's heading has no time: each sentence carries its own.
    blocks = [f"**{_heading(group[0])}**\n\n{_join(group)}" for group in groups.values()]
    return "\n\n".join(blocks), collector.sources


def _heading(quote: Quote) -> str:
    """The label of the lesson a quote is from, without a time."""
    passage = quote.passage
    return escape_markdown(lesson_label(passage.course_title, passage.lesson_number, passage.lesson_title))


def _join(quotes: list[Quote]) -> str:
    """Sentences in reading order, each as the course wrote it (never read as Markdown), after the time it
    is said at when that changes; a gap between non-adjacent sentences shows as an ellipsis."""
    text = ""
    previous: Quote | None = None
    said_at: float | None = None
    for quote in sorted(quotes, key=lambda quote: quote.order):
        if previous is not None:
            adjacent = quote.passage is previous.passage and quote.position == previous.position + 1
            text += " " if adjacent else " … "
        seconds = quote.passage.start_seconds(quote.sentence)
        if seconds is not None and seconds != said_at:
            text += _time_link(quote, seconds) + " "
            said_at = seconds
        text += escape_markdown(quote.sentence)
        previous = quote
    return text


# The time before a quoted sentence, linked or not, as _time_link writes it.
TIME_LINK = re.compile(r"(?:\[\d+(?::\d\d){1,2}\]\(<[^<>\s]*>\)|\(\d+(?::\d\d){1,2}\)) ")


def _time_link(quote: Quote, seconds: float) -> str:
    """The time a quoted sentence is said at, linked to the video at that second when the lesson has one."""
    clock = format_clock(seconds)
    link = quote.passage.lesson_link
    return f"[{clock}](<{video_link_at(link, seconds)}>)" if link else f"({clock})"


def outline_fact(outline: Outline, plan: Plan) -> str | None:
    """The one-line answer an outline question asks for (lesson count, a lesson's title, the link), if any."""
    lessons = sorted(outline.lessons, key=lambda lesson: lesson.number)
    if plan.ask == "count":
        counted = [lesson for lesson in lessons if lesson.number > 0] or lessons
        return f"{outline.title} has {len(counted)} lesson{'' if len(counted) == 1 else 's'}."
    if plan.ask in ("lesson title", "last", "first") and lessons:
        if plan.ask == "lesson title":
            chosen = next((lesson for lesson in lessons if lesson.number == plan.lesson), None)
            if chosen is None:
                numbers = ", ".join(str(lesson.number) for lesson in lessons)
                return f"{outline.title} has no lesson {plan.lesson}; its lessons are {numbers}."
        elif plan.ask == "last":
            chosen = lessons[-1]
        else:
            chosen = next((lesson for lesson in lessons if lesson.number >= 1), lessons[0])
        title = f"[{chosen.title}]({chosen.link})" if chosen.link else chosen.title
        return f"Lesson {chosen.number} of {outline.title} is “{title}”."
    if plan.ask == "link":
        return (
            f"{outline.title}: {outline.link}" if outline.link else f"No link is listed for {outline.title}."
        )
    if plan.instructor:
        return (
            f"{outline.title} is taught by {outline.instructor}."
            if outline.instructor
            else "No instructor is listed."
        )
    return None


def render_outline(outline: Outline) -> str:
    """An outline as markdown: linked title, instructor, then a bullet per lesson (lesson 0 included)."""
    title = f"[{outline.title}]({outline.link})" if outline.link else outline.title
    lines = [f"**{title}**", ""]
    if outline.instructor:
        lines += [f"Instructor: {outline.instructor}", ""]
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
        teacher = f", taught by {course.instructor}" if course.instructor else ""
        lines.append(f"- {title} ({len(course.lessons)} lessons{teacher})")
    return "\n".join(lines)
