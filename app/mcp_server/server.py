"""The MCP server: three tools and one resource per lesson over the course library (official `mcp` SDK)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import Resource
from pydantic import Field

from app.assistant.tools import OUTLINE_TOOL, SEARCH_TOOL
from app.errors import AppError, NotFound
from app.mcp_server.library import LESSON_URI, CourseLibrary

SERVER_NAME = "course-assistant"
LIST_TOOL = "list_courses"
INSTRUCTIONS = (
    "Search and cite a library of course materials (lesson transcripts and notes). Each passage names its "
    "course, lesson and link; a lecture's passage has the second of the video it starts at. Cite the "
    "lesson (and the time) for what you take from a passage."
)
SEARCH_DESCRIPTION = (
    "Search the course materials for passages relevant to a query, ranked best first. Optionally only "
    "within one course (a full or partial title, or an acronym) and one lesson number. Each passage has "
    "its course and lesson, a link (opening the video at the passage for a lecture) and start_seconds "
    "for a lecture's passage."
)
OUTLINE_DESCRIPTION = "A course's title, link, instructor and numbered lessons with their titles and links."
LIST_DESCRIPTION = "Every course in the library, with its lessons."


class LibraryServer(MCPServer):
    """An MCPServer whose resource list is the library's lessons as they are at each request."""

    def __init__(self, library: CourseLibrary, **options: Any):
        super().__init__(**options)
        self.library = library

    async def list_resources(self) -> list[Resource]:
        """The static resources (none) and one text resource per lesson of every course."""
        lessons = await anyio.to_thread.run_sync(self.library.lessons)
        return await super().list_resources() + [
            Resource(
                uri=lesson.uri,
                name=lesson.uri,
                title=lesson.title,
                description=f"The text of this lesson of {lesson.course_title}.",
                mime_type="text/plain",
            )
            for lesson in lessons
        ]


def build_server(
    library: CourseLibrary, token_verifier: TokenVerifier | None = None, auth: AuthSettings | None = None
) -> LibraryServer:
    """The server: its tools and the lesson resource; with a verifier, every HTTP request needs a token."""
    server = LibraryServer(
        library,
        name=SERVER_NAME,
        title="Course Assistant",
        instructions=INSTRUCTIONS,
        token_verifier=token_verifier,
        auth=auth,
    )

    @server.tool(name=SEARCH_TOOL, description=SEARCH_DESCRIPTION)
    def search_course_content(
        query: Annotated[str, Field(description="What to look for: the topic or the question itself.")],
        course: Annotated[str | None, Field(description="Only this course: its title or part of it.")] = None,
        lesson: Annotated[int | None, Field(ge=0, description="Only this lesson number.")] = None,
    ) -> dict[str, Any]:
        return _tool_call(lambda: library.search(query, course, lesson))

    @server.tool(name=OUTLINE_TOOL, description=OUTLINE_DESCRIPTION)
    def get_course_outline(
        course: Annotated[str, Field(description="The course: its title or a distinctive part of it.")],
    ) -> dict[str, Any]:
        return _tool_call(lambda: library.outline(course))

    @server.tool(name=LIST_TOOL, description=LIST_DESCRIPTION)
    def list_courses() -> dict[str, Any]:
        return _tool_call(library.courses)

    @server.resource(
        LESSON_URI,
        name="lesson",
        title="A lesson's text",
        description="The text of one lesson of a course, as indexed: course://<course id>/lessons/<number>.",
        mime_type="text/plain",
    )
    def lesson_text(course: str, lesson: str) -> str:
        if not lesson.isdigit():
            raise ResourceNotFoundError(f"'{lesson}' is not a lesson number.")
        try:
            return library.lesson_text(course, int(lesson))
        except NotFound as error:
            raise ResourceNotFoundError(error.message) from None
        except AppError as error:
            raise ResourceError(error.message) from None

    return server


def _tool_call(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run a library call; a refusal (an unknown course, a blank query) is the tool's error, in its words."""
    try:
        return call()
    except AppError as error:
        raise ToolError(error.message) from None
