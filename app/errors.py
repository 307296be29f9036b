"""Typed exceptions that carry the HTTP status and a message safe to show a user."""

from __future__ import annotations


class AppError(Exception):
    """An error with a status and a user-facing message; the one error handler renders it."""

    status = 500
    title = "Something went wrong"

    def __init__(self, message: str, *, detail: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        self.detail = detail or message
        if status is not None:
            self.status = status


class BadRequest(AppError):
    """The request itself is malformed or invalid."""

    status = 400
    title = "Bad request"


class NotFound(AppError):
    """The thing asked for does not exist."""

    status = 404
    title = "Not found"


class CourseNotFound(NotFound):
    """A course name resolved to no course; the message lists the courses there are."""

    title = "No such course"


class LessonNotFound(NotFound):
    """A lesson number that the course does not have."""

    title = "No such lesson"


class ServiceUnavailable(AppError):
    """A backing service (ChromaDB, the model) cannot answer right now."""

    status = 503
    title = "Service unavailable"


class ModelUnavailable(ServiceUnavailable):
    """Claude could not be reached or refused, after the SDK's retries."""

    title = "The assistant is unavailable"


class Conflict(AppError):
    """The request clashes with the current state (a name already taken, a token already used)."""

    status = 409
    title = "That clashes with what is already there"


class SyncBusy(Conflict):
    """Another process holds the index's writer lock."""

    title = "A sync is already running"


class Unprocessable(AppError):
    """The request is well-formed, but what it carries cannot be used (e.g. a file that does not parse)."""

    status = 422
    title = "That could not be used"


class InsufficientStorage(AppError):
    """The server has no room to store what was sent (the disk is full)."""

    status = 507
    title = "Out of storage space"


class Unauthorized(AppError):
    """The request needs a signed-in admin session."""

    status = 401
    title = "Sign-in required"


class Forbidden(AppError):
    """The signed-in user has no right to this page: another space's, or a student on a staff page."""

    status = 403
    title = "Not allowed"


class PayloadTooLarge(AppError):
    """The request body is over the upload limit."""

    status = 413
    title = "Upload too large"
