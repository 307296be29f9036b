"""A bound on the answers one client has in progress at once, so one client cannot hold every thread.

Per process (each gunicorn worker counts its own), keyed like the rate limits: by the client's address
(the real one behind TRUSTED_PROXIES).
"""

from __future__ import annotations

import threading
from collections import Counter

from flask import current_app

from app.errors import AppError
from app.extensions import client_key


class TooManyStreams(AppError):
    """The client already has MAX_STREAMS_PER_CLIENT answers in progress."""

    status = 429
    title = "Too many answers at once"


class StreamSlot:
    """One answer in progress for one client; release() frees it (more calls do nothing)."""

    def __init__(self, slots: StreamSlots, key: str):
        self._slots = slots
        self._key = key
        self._held = True

    def release(self) -> None:
        """Free the slot, once."""
        if self._held:
            self._held = False
            self._slots._release(self._key)

    def __enter__(self) -> StreamSlot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class StreamSlots:
    """The per-client counts of answers in progress in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def claim(self, key: str, bound: int, what: str = "answers in progress") -> StreamSlot:
        """A slot for `key`, or TooManyStreams when it holds `bound` already."""
        with self._lock:
            if self._counts[key] >= bound:
                raise TooManyStreams(
                    f"You have {bound} {what} already. "
                    "Wait for one to finish (or close other tabs), then try again."
                )
            self._counts[key] += 1
        return StreamSlot(self, key)

    def in_use(self, key: str) -> int:
        """How many slots `key` holds now."""
        with self._lock:
            return self._counts[key]

    def _release(self, key: str) -> None:
        """Give one of `key`'s slots back; forget a key with none left, so the table stays small."""
        with self._lock:
            self._counts[key] -= 1
            if self._counts[key] <= 0:
                del self._counts[key]


ANSWERS = "stream_slots"
# Pages following answers (chat/follow.py) hold a thread each too: a few tabs per answer, no more.
FOLLOWERS = "follower_slots"
FOLLOWERS_PER_ANSWER = 4


def claim_stream_slot(kind: str = ANSWERS) -> StreamSlot:
    """A slot of `kind` for this request's client, or TooManyStreams (429)."""
    slots: StreamSlots = current_app.extensions.setdefault(kind, StreamSlots())
    bound = current_app.extensions["services"].settings.max_streams_per_client
    if kind == FOLLOWERS:
        return slots.claim(client_key(), bound * FOLLOWERS_PER_ANSWER, "pages following answers")
    return slots.claim(client_key(), bound)
