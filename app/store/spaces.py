"""Course spaces: their settings and courses, and the users who sign in to them with a role.

Identity is an issuer and its opaque subject id, whatever signed it (campus OIDC today, an LTI launch
later): `Spaces.sign_in` is the one door both come through.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from app.errors import BadRequest, NotFound
from app.store.database import Database
from app.store.models import (
    ANSWER_MODES,
    EMAIL_CHARS,
    NAME_CHARS,
    ROLES,
    Membership,
    Space,
    SpaceCourse,
    User,
    now,
)
from app.store.soft import hard

MAX_TOPICS = 30
MAX_SUGGESTIONS = 8
TOPIC_CHARS = 200
WELCOME_CHARS = 2000


@dataclass(frozen=True)
class SpaceSettings:
    """What a space's staff decide: full answers or hints, topics to avoid, welcome, suggested questions."""

    answer_mode: str = "full"
    avoid_topics: tuple[str, ...] = ()
    welcome: str = ""
    suggestions: tuple[str, ...] = ()

    @property
    def hints(self) -> bool:
        """Whether the assistant gives hints, not worked solutions."""
        return self.answer_mode == "hints"


@dataclass(frozen=True)
class SpaceRecord:
    """A space as pages and the viewer see it."""

    id: int
    name: str
    settings: SpaceSettings
    courses: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Identity:
    """Who signed in: the issuer that vouches for them and its opaque id; name and email only if sent."""

    issuer: str
    subject: str
    name: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class SignedIn:
    """A signed-in user and their role in each space they belong to, by space id."""

    user_id: int
    roles: dict[int, str]


def _lines(values: list[str] | tuple[str, ...], most: int, chars: int, what: str) -> tuple[str, ...]:
    """Non-blank, whitespace-collapsed values, at most `most` of at most `chars` characters each."""
    kept = tuple(" ".join(value.split()) for value in values if value.strip())
    if len(kept) > most:
        raise BadRequest(f"A space holds at most {most} {what}.")
    if any(len(value) > chars for value in kept):
        raise BadRequest(f"Each of the {what} holds at most {chars} characters.")
    return kept


def checked_settings(settings: SpaceSettings) -> SpaceSettings:
    """The settings cleaned up, or BadRequest naming what is wrong."""
    if settings.answer_mode not in ANSWER_MODES:
        raise BadRequest("The answer mode is full answers or hints.")
    if len(settings.welcome) > WELCOME_CHARS:
        raise BadRequest(f"The welcome text holds at most {WELCOME_CHARS} characters.")
    return SpaceSettings(
        settings.answer_mode,
        _lines(settings.avoid_topics, MAX_TOPICS, TOPIC_CHARS, "topics to avoid"),
        settings.welcome.strip(),
        _lines(settings.suggestions, MAX_SUGGESTIONS, TOPIC_CHARS, "suggested questions"),
    )


def _record(row: Space, courses: frozenset[str]) -> SpaceRecord:
    """The plain record of a row."""
    settings = SpaceSettings(row.answer_mode, tuple(row.avoid_topics), row.welcome, tuple(row.suggestions))
    return SpaceRecord(row.id, row.name, settings, courses)


class Spaces:
    """Create and configure spaces, assign their courses, and sign users in to them."""

    def __init__(self, db: Database):
        self.db = db

    @hard
    def create(self, name: str) -> SpaceRecord:
        """A new space with default settings and no courses; BadRequest for a blank or taken name."""
        name = " ".join(name.split())
        if not name or len(name) > NAME_CHARS:
            raise BadRequest(f"A space needs a name of at most {NAME_CHARS} characters.")
        try:
            with self.db.writing() as session:
                row = Space(name=name, answer_mode="full", avoid_topics=[], welcome="", suggestions=[])
                session.add(row)
                session.flush()
                return _record(row, frozenset())
        except IntegrityError:
            raise BadRequest(f"There is already a space called {name}.") from None

    @hard
    def all(self) -> list[SpaceRecord]:
        """Every space with its courses, by name."""
        with self.db.reading() as session:
            courses: dict[int, set[str]] = {}
            for link in session.scalars(select(SpaceCourse)):
                courses.setdefault(link.space_id, set()).add(link.course_id)
            rows = session.scalars(select(Space).order_by(Space.name))
            return [_record(row, frozenset(courses.get(row.id, ()))) for row in rows]

    @hard
    def get(self, space_id: int) -> SpaceRecord | None:
        """One space with its courses, or None."""
        with self.db.reading() as session:
            row = session.get(Space, space_id)
            if row is None:
                return None
            ids = session.scalars(select(SpaceCourse.course_id).where(SpaceCourse.space_id == space_id))
            return _record(row, frozenset(ids))

    @hard
    def assigned_courses(self) -> frozenset[str]:
        """Every course id that belongs to some space (closed to visitors who are not its members)."""
        with self.db.reading() as session:
            return frozenset(session.scalars(select(SpaceCourse.course_id).distinct()))

    @hard
    def set_courses(self, space_id: int, course_ids: set[str] | frozenset[str]) -> None:
        """Make these the space's courses (a course may belong to several spaces)."""
        with self.db.writing() as session:
            if session.get(Space, space_id) is None:
                raise NotFound("There is no such space.")
            session.execute(delete(SpaceCourse).where(SpaceCourse.space_id == space_id))
            session.add_all(SpaceCourse(space_id=space_id, course_id=course) for course in sorted(course_ids))

    @hard
    def configure(self, space_id: int, settings: SpaceSettings) -> SpaceSettings:
        """Store the space's settings (checked first); returns them as stored."""
        settings = checked_settings(settings)
        with self.db.writing() as session:
            row = session.get(Space, space_id)
            if row is None:
                raise NotFound("There is no such space.")
            row.answer_mode = settings.answer_mode
            row.avoid_topics = list(settings.avoid_topics)
            row.welcome = settings.welcome
            row.suggestions = list(settings.suggestions)
        return settings

    @hard
    def sign_in(self, identity: Identity, grants: dict[str, str]) -> SignedIn:
        """Record a sign-in: the user (made on first sign-in) and their roles, replaced by `grants` (role by
        space name; names of no space are ignored). A user with no space left is still recorded."""
        if any(role not in ROLES for role in grants.values()):
            raise BadRequest("A role is staff or student.")
        with self.db.writing() as session:
            user = session.scalar(
                select(User).where(User.issuer == identity.issuer, User.subject == identity.subject)
            )
            if user is None:
                user = User(issuer=identity.issuer, subject=identity.subject)
                session.add(user)
            user.name = identity.name[:NAME_CHARS] if identity.name else None
            user.email = identity.email[:EMAIL_CHARS] if identity.email else None
            user.last_seen_at = now()
            session.flush()
            spaces = session.scalars(select(Space).where(Space.name.in_(list(grants)))).all()
            roles = {space.id: grants[space.name] for space in spaces}
            session.execute(delete(Membership).where(Membership.user_id == user.id))
            session.add_all(
                Membership(space_id=space_id, user_id=user.id, role=role) for space_id, role in roles.items()
            )
            return SignedIn(user.id, roles)

    @hard
    def role(self, user_id: int, space_id: int) -> str | None:
        """The user's role in the space, or None when they are not (or no longer) a member."""
        with self.db.reading() as session:
            row = session.get(Membership, (space_id, user_id))
            return row.role if row is not None else None
