"""The service layer shared by every face: index, indexer and assistant, built lazily."""

from __future__ import annotations

from functools import cached_property
from threading import Lock

from flask import current_app

from app.config import Settings


class Services:
    """Build each service on first use, once per process (never in a gunicorn master)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._lock = Lock()

    @cached_property
    def index(self):
        """The CourseIndex over ChromaDB."""
        from app.search.index import CourseIndex

        with self._lock:
            return CourseIndex(self.settings)

    @cached_property
    def indexer(self):
        """The Indexer that syncs DOCS_DIR into the index."""
        from app.search.sync import Indexer

        return Indexer(self.settings, self.index)

    @cached_property
    def assistant(self):
        """The Assistant that answers questions (Claude or extractive)."""
        from app.assistant.service import Assistant

        return Assistant(self.settings, self.index)


def services() -> Services:
    """The current app's services."""
    return current_app.extensions["services"]


def settings() -> Settings:
    """The current app's settings."""
    return services().settings
