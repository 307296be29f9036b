"""What the MCP server reads, each call in the Flask app's context on the services every face shares.

Like every face that is not HTML, its text loses bidi controls (app.bidi).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from flask import Flask

from app.assistant.tools import lesson_label
from app.bidi import neutralize, strip_all, strip_controls
from app.errors import LessonNotFound, NotFound
from app.rules import checked_question
from app.search.serialize import courses_json, outline_json, results_json
from app.services import Services
from app.store.soft import StoreUnavailable
from app.store.tokens import TokenRecord

log = logging.getLogger(__name__)

LESSON_URI = "course://{course}/lessons/{lesson}"


def lesson_uri(course_id: str, number: int) -> str:
    """The resource URI of one lesson's text."""
    return LESSON_URI.format(course=course_id, lesson=number)


@dataclass(frozen=True)
class LessonEntry:
    """One lesson as the resource list names it."""

    uri: str
    title: str
    course_title: str


class CourseLibrary:
    """The course library behind the MCP tools and resources: the same service calls as the JSON API."""

    def __init__(self, app: Flask):
        self.app = app

    @property
    def services(self) -> Services:
        """The app's services (built once per process, like a worker's)."""
        services: Services = self.app.extensions["services"]
        return services

    def search(self, query: str, course: str | None = None, lesson: int | None = None) -> dict[str, Any]:
        """The passages `/api/search?q=…&course=…&lesson=…` returns, in its JSON shape."""
        with self.app.app_context():
            text = checked_question(query, self.services.settings.max_question_chars)
            passages = self.services.index.search(text, course=(course or "").strip() or None, lesson=lesson)
            return neutralize(results_json(passages))

    def outline(self, course: str) -> dict[str, Any]:
        """A course's title, link, instructor and lessons, in the `/api/courses` shape of one course."""
        with self.app.app_context():
            return neutralize(outline_json(self.services.index.outline(course)))

    def courses(self) -> dict[str, Any]:
        """Every course with its lessons: the `/api/courses` body."""
        with self.app.app_context():
            return neutralize(courses_json(self.services.index.courses()))

    def lessons(self) -> list[LessonEntry]:
        """Every lesson of the library, course by course."""
        with self.app.app_context():
            return [
                LessonEntry(
                    lesson_uri(record.id, lesson.number),
                    strip_all(lesson_label(record.title, lesson.number, lesson.title)),
                    strip_all(record.title),
                )
                for record in self.services.index.courses()
                for lesson in record.lessons
            ]

    def lesson_text(self, course_id: str, number: int) -> str:
        """One lesson's text as indexed; NotFound for a course or lesson the library does not hold."""
        with self.app.app_context():
            record = self.services.index.get_course(course_id)
            if record is None:
                raise NotFound(f"There is no course '{course_id}'; list_courses names the courses there are.")
            course = self.services.indexer.indexed_course(record)
            for lesson in course.lessons:
                if lesson.number == number:
                    return strip_controls(lesson.text)
            raise LessonNotFound(f"'{record.title}' has no lesson {number}.")

    def check_token(self, token: str) -> TokenRecord | None:
        """The active bearer token this is; None for any other string, and while the database is down."""
        with self.app.app_context():
            try:
                return self.services.store.tokens.check(token)
            except StoreUnavailable:
                log.warning("MCP token refused: the database cannot be reached")
                return None

    def warm_up(self) -> None:
        """Load the model and open the index before serving: the first search pays no start-up cost, and no
        search runs beside the index's first load (which would rank by meaning alone while it loads)."""
        log.info("Loading the embedding model and the course index")
        with self.app.app_context():
            self.services.warm_up()
