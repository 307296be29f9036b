"""Sources, answers and conversation exchanges."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Source(BaseModel):
    """A cited lesson: its label, links and a short snippet of the passage used."""

    label: str
    course_title: str
    lesson_number: int | None = None
    lesson_title: str | None = None
    course_link: str | None = None
    lesson_link: str | None = None
    snippet: str = ""

    @property
    def link(self) -> str | None:
        """The lesson link, else the course link."""
        return self.lesson_link or self.course_link


class Answer(BaseModel):
    """The assistant's reply: markdown, the sources it used, and how it got there."""

    markdown: str
    sources: list[Source] = Field(default_factory=list)
    mode: Literal["claude", "extractive"] = "claude"
    tool_rounds: int = 0
    usage: dict[str, int] | None = None


class Exchange(BaseModel):
    """One question and its answer, as kept in the conversation history."""

    question: str
    answer: str
    sources: list[Source] = Field(default_factory=list)
