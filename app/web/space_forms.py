"""A course space's settings as a form: read the same way on the admin page and on its staff's page."""

from __future__ import annotations

from werkzeug.datastructures import MultiDict

from app.store.spaces import SpaceSettings


def lines(text: str) -> tuple[str, ...]:
    """The non-blank lines of a textarea."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def settings_from(form: MultiDict[str, str]) -> SpaceSettings:
    """The settings a posted form gives (checked by the store when saved)."""
    return SpaceSettings(
        answer_mode=form.get("answer_mode", "full"),
        avoid_topics=lines(form.get("avoid_topics", "")),
        welcome=form.get("welcome", ""),
        suggestions=lines(form.get("suggestions", "")),
    )
