"""What one asker may read and how they are answered: a course space's courses and its staff's settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """The courses in reach (None: every course) and the answering settings of the asker's course space."""

    courses: frozenset[str] | None = None
    hints: bool = False
    avoid: tuple[str, ...] = ()

    @property
    def guided(self) -> bool:
        """Whether the system prompt carries settings of the space's staff."""
        return self.hints or bool(self.avoid)


# The open deployment: every course, full answers, nothing to avoid.
OPEN = Scope()
