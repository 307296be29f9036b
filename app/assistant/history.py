"""Earlier exchanges as the chat turns every model API takes: {"role": ..., "content": text}."""

from __future__ import annotations

from typing import Any

from app.assistant.base import Exchange
from app.assistant.citations import strip_markers


def history_turns(history: list[Exchange]) -> list[dict[str, Any]]:
    """Earlier exchanges as alternating user/assistant turns (an empty side would be refused, so skip it)."""
    turns: list[dict[str, Any]] = []
    for exchange in history:
        if exchange.question.strip() and exchange.answer.strip():
            turns.append({"role": "user", "content": exchange.question})
            # Markers number the sources of that answer, not the model's: it would copy them wrongly.
            turns.append({"role": "assistant", "content": strip_markers(exchange.answer)})
    return turns
