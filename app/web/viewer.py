"""Who is asking: read once per request from the signed session, and the course index as they may see it.

With course spaces off (the default) everyone is the open deployment's anonymous viewer and reads every
course. With them on, a signed-in member reads their space's courses under its settings, and a visitor who
is not signed in reads only the courses that belong to no space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import g, session

from app.assistant.scope import OPEN, Scope
from app.errors import AppError
from app.services import services, settings
from app.store.spaces import SpaceRecord
from app.web.session import USER_KEY

if TYPE_CHECKING:  # the index is imported on first use, so starting the app stays light
    from app.search.index import CourseIndex
    from app.search.models import CourseRecord


@dataclass(frozen=True)
class Viewer:
    """The asker: anonymous, or a user with a role in a space; and the scope they read and are answered in."""

    scope: Scope = OPEN
    user_id: int | None = None
    space: SpaceRecord | None = None
    role: str | None = None

    @property
    def signed_in(self) -> bool:
        """Whether a user is signed in to a space."""
        return self.space is not None

    def is_staff_of(self, space_id: int) -> bool:
        """Whether this viewer is staff of that space."""
        return self.space is not None and self.space.id == space_id and self.role == "staff"


ANONYMOUS = Viewer()


def viewer() -> Viewer:
    """The current request's viewer, read once per request."""
    if "viewer" not in g:
        g.viewer = _read_viewer()
    return g.viewer


def _read_viewer() -> Viewer:
    """The viewer the session names, its membership checked against the store on each request."""
    if not settings().spaces_enabled:
        return ANONYMOUS
    store = services().store
    signed = session.get(USER_KEY)
    if isinstance(signed, dict):
        user_id, space_id = signed.get("user"), signed.get("space")
        if isinstance(user_id, int) and isinstance(space_id, int):
            role = store.spaces.role(user_id, space_id)
            space = store.spaces.get(space_id) if role else None
            if space is not None:
                scope = Scope(space.courses, space.settings.hints, space.settings.avoid_topics)
                return Viewer(scope, user_id, space, role)
        session.pop(USER_KEY, None)  # no longer a member, or the space is gone
    open_courses = frozenset(record.id for record in services().index.courses())
    return Viewer(Scope(open_courses - store.spaces.assigned_courses()))


def visible_index() -> CourseIndex:
    """The course index as the viewer may read it: their space's courses, or the open ones."""
    return services().index.within(viewer().scope.courses)


def visible_courses() -> tuple[list[CourseRecord], str | None]:
    """The courses the viewer may read, or an empty list and the reason when the index cannot answer."""
    try:
        return visible_index().courses(), None
    except AppError as exc:
        return [], exc.message
