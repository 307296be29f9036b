"""Answers streaming in this process, so Stop can end one and keep what it said so far."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class InFlightAnswer:
    """One streaming answer: whose it is, where it is stored, its text so far, and how it ended."""

    pending_id: str
    owner: str
    question: str
    number: int
    conversation_id: str | None
    exchange_id: int | None
    text: str = ""
    ended: str | None = None  # answered | failed | stopped | interrupted, once it ended
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def end(self, how: str) -> bool:
        """Mark the answer ended `how`; True only for the first ending (the others lost the race)."""
        with self._lock:
            if self.ended is not None:
                return False
            self.ended = how
            return True

    @property
    def stopped(self) -> bool:
        """True once Stop ended the answer."""
        return self.ended == "stopped"


class InFlightAnswers:
    """The answers streaming in this process, by pending id."""

    def __init__(self) -> None:
        self._answers: dict[str, InFlightAnswer] = {}
        self._lock = threading.Lock()

    def add(self, answer: InFlightAnswer) -> None:
        """Register a stream that started."""
        with self._lock:
            self._answers[answer.pending_id] = answer

    def remove(self, answer: InFlightAnswer) -> None:
        """Forget a stream that ended."""
        with self._lock:
            if self._answers.get(answer.pending_id) is answer:
                del self._answers[answer.pending_id]

    def stop(self, pending_id: str, owner: str | None) -> InFlightAnswer | None:
        """Stop `owner`'s streaming answer; None when it is not streaming here (or not theirs, or ended)."""
        with self._lock:
            answer = self._answers.get(pending_id)
        if answer is None or answer.owner != owner or not answer.end("stopped"):
            return None
        return answer


IN_FLIGHT = InFlightAnswers()
