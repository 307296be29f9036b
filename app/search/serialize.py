"""The JSON shapes of search results and courses: the API's, `flask search --json`'s, the MCP server's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.courses.timecodes import video_link_at
from app.links import safe_url
from app.search.models import Outline, Passage


def passage_json(passage: Passage) -> dict[str, Any]:
    """Return one passage in the `/api/search` result shape; a timed one has `start_seconds` too."""
    result = {
        "course_title": passage.course_title,
        "lesson_number": passage.lesson_number,
        "lesson_title": passage.lesson_title,
        "lesson_link": safe_url(passage.lesson_link),
        "chunk_index": passage.chunk_index,
        "score": round(passage.score, 4),
        "text": passage.text,
    }
    start = passage.start_seconds()
    if start is not None:
        # A captioned lesson's passage: the second it starts at, and the link opens the video there.
        result["start_seconds"] = start
        result["lesson_link"] = safe_url(
            video_link_at(passage.lesson_link, start) if passage.lesson_link else None
        )
    return result


def results_json(passages: list[Passage]) -> dict[str, Any]:
    """Return a list of passages as the `/api/search` response body."""
    return {"results": [passage_json(passage) for passage in passages]}


def outline_json(outline: Outline) -> dict[str, Any]:
    """Return a course's title, link, instructor and lessons in the `/api/courses` shape."""
    return {
        "title": outline.title,
        "link": safe_url(outline.link),
        "instructor": outline.instructor,
        "lessons": [
            {**lesson.model_dump(exclude_none=True), "link": safe_url(lesson.link)}
            for lesson in outline.lessons
        ],
    }


def courses_json(outlines: Sequence[Outline]) -> dict[str, Any]:
    """Return every course with its lessons as the `/api/courses` response body."""
    return {
        "total_courses": len(outlines),
        "course_titles": [outline.title for outline in outlines],
        "courses": [outline_json(outline) for outline in outlines],
    }
