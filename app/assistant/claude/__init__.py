"""The Claude answerer: the tool loop (answerer.py), the request's parts (messages.py), one streamed call
(streaming.py) and the system prompt (prompts.py)."""

from app.assistant.claude.answerer import ClaudeAnswerer

__all__ = ["ClaudeAnswerer"]
