"""The answer models under their old name, for importers outside the assistant; new code imports
app.assistant.base."""

from __future__ import annotations

from app.assistant.base import Answer, AnswerEvent, DoneEvent, Exchange, Source, StatusEvent, TextEvent

__all__ = ["Answer", "AnswerEvent", "DoneEvent", "Exchange", "Source", "StatusEvent", "TextEvent"]
