"""The JSON shape of search results, shared by `/api/search` and `flask search --json`."""

from __future__ import annotations

from typing import Any

from app.courses.timecodes import video_link_at
from app.links import safe_url
from app.search.models import Passage


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
