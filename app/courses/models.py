"""Course, Lesson and Chunk: the domain objects that parsing and chunking produce."""

from __future__ import annotations

import re
import unicodedata

from pydantic import BaseModel, Field

from app.courses.timecodes import start_of

# (character offset in the text, second in the video) for each sentence of a timed text, in order.
SentenceTimes = tuple[tuple[int, float], ...]


def slugify(text: str) -> str:
    """Make a stable, URL-safe id from a title ("RAG in Practice" -> "rag-in-practice")."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug or "course"


class Lesson(BaseModel):
    """One numbered lesson: its title, optional link and body text; a captioned one has its times too."""

    number: int
    title: str
    link: str | None = None
    text: str = ""
    # Set only for a lesson read from captions: where each sentence starts in `text`, and when it is said.
    sentence_times: SentenceTimes | None = None
    duration: float | None = None


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

    @property
    def captioned(self) -> bool:
        """Whether the course was read from caption files (its lessons carry sentence times)."""
        return any(lesson.sentence_times for lesson in self.lessons)


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
    # For a captioned lesson: (offset in `text`, second in the video) of each of the chunk's sentences.
    sentence_times: SentenceTimes | None = None

    @property
    def id(self) -> str:
        """`<course id>:<lesson>:<chunk index>`, stable across re-indexing."""
        return f"{self.course_id}:{self.lesson_number}:{self.index}"

    def start_seconds(self, quote: str | None = None) -> float | None:
        """The second at which `quote` (or, without one, the chunk) starts being said; None if untimed."""
        return start_of(self.text, self.sentence_times, quote)

    @property
    def embedding_text(self) -> str:
        """What the model embeds: the context prefix, then the text."""
        return f"{self.context}\n{self.text}"
