"""Extractive mode: answers quoted from the course materials, without a language model (see answerer.py)."""

from app.assistant.extractive.answerer import ExtractiveAnswerer

__all__ = ["ExtractiveAnswerer"]
