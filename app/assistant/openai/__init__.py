"""The OpenAI-compatible answerer: the loop (answerer.py), one streamed call (streaming.py), what the model is
sent (prompts.py) and its citation markers made the app's (markers.py). Imported only in that mode."""

from app.assistant.openai.answerer import OpenAIAnswerer

__all__ = ["OpenAIAnswerer"]
