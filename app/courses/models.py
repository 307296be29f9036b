"""Course, Lesson and Chunk: the domain objects that parsing and chunking produce."""

from __future__ import annotations

import re
import unicodedata

from pydantic import BaseModel, Field


def slugify(text: str) -> str:
    """Make a stable, URL-safe id from a title ("RAG in Practice" -> "rag-in-practice")."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug or "course"


class Lesson(BaseModel):
    """One numbered lesson: its title, optional link and body text."""

    number: int
    title: str
    link: str | None = None
    text: str = ""


class Course(BaseModel):
    """A parsed course document."""

    title: str
    link: str | None = None
    instructor: str | None = None
    lessons: list[Lesson] = Field(default_factory=list)
    source_file: str = ""
    content_hash: str = ""

    @property
    def id(self) -> str:
        """The course id: a slug of the title."""
        return slugify(self.title)


class Chunk(BaseModel):
    """A piece of a lesson: display text plus the context prefix it is embedded with."""

    course_id: str
    course_title: str
    lesson_number: int
    lesson_title: str
    lesson_link: str | None = None
    index: int
    text: str
    context: str

    @property
    def id(self) -> str:
        """`<course id>:<lesson>:<chunk index>`, stable across re-indexing."""
        return f"{self.course_id}:{self.lesson_number}:{self.index}"

    @property
    def embedding_text(self) -> str:
        """What the model embeds: the context prefix, then the text."""
        return f"{self.context}\n{self.text}"
