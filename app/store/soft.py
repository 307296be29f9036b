"""Soft failure on the answer path: a database that is down costs a record, never a student's answer."""

from __future__ import annotations

import enum
import functools
import logging
from collections.abc import Callable
from typing import Final, Literal, ParamSpec, TypeVar, get_args

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from app.errors import ServiceUnavailable
from app.metrics import STORE_ERRORS

log = logging.getLogger(__name__)

# The label values of STORE_ERRORS: a fixed set, so the metric's series are bounded.
Operation = Literal["ask", "finish", "hold", "log", "journal"]
OPERATIONS: tuple[str, ...] = get_args(Operation)
for _operation in OPERATIONS:
    STORE_ERRORS.labels(_operation)  # every series exists from the start, at zero

P = ParamSpec("P")
R = TypeVar("R")


class _Down(enum.Enum):
    """The type of DOWN."""

    DOWN = "down"


DOWN: Final = _Down.DOWN
"""Returned instead of a result when the database could not be written; the caller carries on."""

Down = Literal[_Down.DOWN]


class StoreUnavailable(ServiceUnavailable):
    """The database cannot answer a read or a write off the answer path; the page says so."""

    title = "Saved conversations are unavailable"


def soft(operation: Operation) -> Callable[[Callable[P, R]], Callable[P, R | Down]]:
    """Make a write return DOWN, with one warning and a metric, when the database fails."""

    def wrap(write: Callable[P, R]) -> Callable[P, R | Down]:
        @functools.wraps(write)
        def attempt(*args: P.args, **kwargs: P.kwargs) -> R | Down:
            try:
                return _once_more_if_dropped(write, *args, **kwargs)
            except SQLAlchemyError as exc:
                STORE_ERRORS.labels(operation).inc()
                log.warning("database %s failed, record lost: %s", operation, describe(exc))
                return DOWN

        return attempt

    return wrap


def hard(read: Callable[P, R]) -> Callable[P, R]:
    """Turn a database failure into StoreUnavailable, which the error handler shows as a 503."""

    @functools.wraps(read)
    def attempt(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return _once_more_if_dropped(read, *args, **kwargs)
        except SQLAlchemyError as exc:
            log.warning("database read failed: %s", describe(exc))
            raise StoreUnavailable(
                "Saved conversations cannot be reached right now; questions are still answered."
            ) from None

    return attempt


def _once_more_if_dropped(call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Call, and call again once if the server had dropped the connection (a restart renews the pool)."""
    try:
        return call(*args, **kwargs)
    except DBAPIError as exc:
        if not exc.connection_invalidated:
            raise
        return call(*args, **kwargs)


def describe(exc: BaseException) -> str:
    """The driver's message on one line, without SQL or parameters (they may hold a student's question)."""
    original = getattr(exc, "orig", None) or exc
    lines = str(original).strip().splitlines()
    return f"{type(original).__name__}: {lines[0][:300] if lines else ''}"
