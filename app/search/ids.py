"""ChunkId: the id of one chunk of one course version, the one place its format is spelled out."""

from __future__ import annotations

from typing import Any, NamedTuple

from app.courses.models import Chunk

# A chunk's place within its course version: (lesson number, chunk index).
ChunkKey = tuple[int, int]


class ChunkId(NamedTuple):
    """`<course id>:<lesson>:<chunk index>@<version>`: unique per version, so versions can coexist."""

    course_id: str
    lesson: int
    chunk_index: int
    version: str

    @classmethod
    def of(cls, chunk: Chunk, version: str) -> ChunkId:
        """The id of a chunk written under a course version."""
        return cls(chunk.course_id, chunk.lesson_number, chunk.index, version)

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> ChunkId:
        """The id of a stored chunk, read from its metadata."""
        return cls(
            str(metadata["course_id"]),
            int(metadata["lesson_number"]),
            int(metadata["chunk_index"]),
            str(metadata.get("version", "")),
        )

    @property
    def place(self) -> tuple[str, int, int]:
        """The chunk within the live library, whatever its version: (course id, lesson, chunk index)."""
        return self.course_id, self.lesson, self.chunk_index

    def __str__(self) -> str:
        return f"{self.course_id}:{self.lesson}:{self.chunk_index}@{self.version}"
