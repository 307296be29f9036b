"""The JSON shape of search results, shared by `/api/search` and `flask search --json`."""

from __future__ import annotations

from typing import Any

from app.links import safe_url
from app.search.models import Passage


def passage_json(passage: Passage) -> dict[str, Any]:
    """Return one passage in the `/api/search` result shape."""
    return {
        "course_title": passage.course_title,
        "lesson_number": passage.lesson_number,
        "lesson_title": passage.lesson_title,
        "lesson_link": safe_url(passage.lesson_link),
        "chunk_index": passage.chunk_index,
        "score": round(passage.score, 4),
        "text": passage.text,
    }


def results_json(passages: list[Passage]) -> dict[str, Any]:
    """Return a list of passages as the `/api/search` response body."""
    return {"results": [passage_json(passage) for passage in passages]}
