"""The service layer shared by every face: index, indexer and assistant, built lazily."""

from __future__ import annotations

import logging
from collections.abc import Callable
from threading import Lock, RLock, Thread
from typing import TYPE_CHECKING, Any, TypeVar, cast

from flask import current_app

from app.config import Settings

if TYPE_CHECKING:  # the services themselves are imported on first use, so starting the app stays light
    from app.assistant.service import Assistant
    from app.library.jobs import SyncJobs
    from app.library.sync import Indexer
    from app.library.trash import Trash
    from app.search.index import CourseIndex
    from app.store.store import Store

T = TypeVar("T")

log = logging.getLogger(__name__)
WARM_UP_QUERY = "warm up"


class Services:
    """Build each service on first use, exactly once per process (never in a gunicorn master)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        # Re-entrant: building the indexer or the assistant builds the index under the same lock.
        self._lock = RLock()
        self._built: dict[str, Any] = {}
        self._warming_lock = Lock()
        self.warming: Thread | None = None

    def _once(self, name: str, build: Callable[[], T]) -> T:
        """The service called `name`, built by `build` on first use; concurrent first uses build it once."""
        service = self._built.get(name)
        if service is None:
            with self._lock:
                service = self._built.get(name)
                if service is None:
                    service = self._built[name] = build()
        return cast(T, service)

    @property
    def index(self) -> CourseIndex:
        """The CourseIndex over ChromaDB."""
        from app.search.index import CourseIndex

        return self._once("index", lambda: CourseIndex(self.settings))

    @property
    def indexer(self) -> Indexer:
        """The Indexer that syncs DOCS_DIR into the index."""
        from app.library.sync import Indexer

        return self._once("indexer", lambda: Indexer(self.settings, self.index))

    @property
    def jobs(self) -> SyncJobs:
        """The background sync jobs, whose progress any worker can read."""
        from app.library.jobs import SyncJobs

        # The indexer is looked up when a job starts, so building the jobs never opens the index.
        return self._once("jobs", lambda: SyncJobs(self.settings, lambda: self.indexer))

    @property
    def trash(self) -> Trash:
        """Removed course files, and putting them back."""
        from app.library.trash import Trash

        return self._once("trash", lambda: Trash(self.settings, self.indexer))

    @property
    def assistant(self) -> Assistant:
        """The Assistant that answers questions (Claude or extractive)."""
        from app.assistant.service import Assistant

        return self._once("assistant", lambda: Assistant(self.settings, self.index))

    @property
    def store(self) -> Store:
        """The database: conversations, pending questions, feedback, question log, eval cases, MCP tokens; on
        first use the embedded database is migrated, a server's schema checked (app.store.schema)."""
        from app.store.store import Store

        return self._once("store", lambda: Store.from_settings(self.settings).prepared())

    @property
    def warm(self) -> bool:
        """True once this process has loaded the embedding model, so a question pays no start-up cost."""
        return self.index.embedder.loaded

    def warm_up(self) -> None:
        """Load the model, then open the index with one search, so the first question pays neither."""
        try:
            # A few questions of a few lengths: the model's runtime settles its memory over its first runs.
            for words in range(1, 25, 2):
                self.index.embedder.embed_query(" ".join([WARM_UP_QUERY] * words))
            self.index.search(WARM_UP_QUERY, k=1)
            self.store  # noqa: B018 - its schema is seen to at start, not by the first question
            stale = self.index.stale_encoders()
            if stale:  # the next sync re-embeds them; until then searches compare vectors of two encoders
                log.warning("the index holds vectors of another encoder (%s): run `flask index`", stale)
        except Exception as exc:  # a model that won't load or an index that won't answer: readiness says so
            log.warning("warm-up failed: %s", exc)

    def start_warm_up(self) -> None:
        """Warm up in a background thread, unless that is already under way."""
        with self._warming_lock:
            if self.warming is None or not self.warming.is_alive():
                self.warming = Thread(target=self.warm_up, name="warm-up", daemon=True)
                self.warming.start()


def services() -> Services:
    """The current app's services."""
    return cast(Services, current_app.extensions["services"])


def settings() -> Settings:
    """The current app's settings."""
    return services().settings
