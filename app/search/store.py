"""ChromaStore: the ChromaDB client and collections for the index, with errors mapped and other writers seen.

An embedded ChromaDB client caches its vector index in memory and never notices writes made by another
process: after `flask index` runs beside a live server, the server's searches return ids that no longer
exist (Chroma answers "Error finding id") until it reopens the folder. So every write through a store
replaces a small stamp file beside the index, and before each call a store whose stamp is out of date
closes and reopens its client. One stamp read (a small file) per call is the whole cost. A ChromaDB server
needs no reopening (it is the one process that holds the data), but readers still want to know when the
data changed, to refresh what they cache (the catalog): there the stamp is one small record in a collection
of its own, which every write through a store replaces.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from app.config import Settings
from app.errors import AppError, ServiceUnavailable
from app.files import write_atomically
from app.library.state import StatePaths
from app.search.chroma import ChromaError, ChromaSettings, NotFoundError, chromadb

# The index's two collections: one record per course, one per chunk of each course version.
CATALOG = "course_catalog"
CONTENT = "course_content"
# Chroma 1.x takes the distance in the collection configuration; "hnsw:space" metadata is the legacy form.
COLLECTION_CONFIG = {"hnsw": {"space": "cosine"}}
WRITES = frozenset({"add", "upsert", "update", "delete"})
# A ChromaDB server's change stamp: one record in a collection of its own (its 1-d vector is a placeholder,
# non-zero because cosine distance divides by the norm).
STATE_COLLECTION = "index_state"
STAMP_ID = "stamp"
UNAVAILABLE = "The course index is unavailable"


class ChromaStore:
    """One process's connection to the index's collections, created on first use."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._seen_stamp: str | None = None

    @property
    def location(self) -> str:
        """Where the index lives, for the admin page and logs."""
        if self.settings.uses_chroma_server:
            return f"ChromaDB server {self.settings.chroma_host}:{self.settings.chroma_port}"
        return f"embedded folder {self.settings.resolved_chroma_path}"

    @property
    def embedded(self) -> bool:
        """True for the embedded folder, the mode that needs to catch up with other writers."""
        return not self.settings.uses_chroma_server

    def run(self, name: str, operation: str, /, **kwargs: Any) -> Any:
        """Call a collection method, after catching up with other processes' writes; announce our writes."""
        with self._available():
            self._catch_up()
            try:
                result = self._call(name, operation, kwargs)
            except NotFoundError:
                # Another process's reset() dropped the collection this handle points at.
                result = self._call(name, operation, kwargs, refresh=True)
            except ChromaError:
                if not self.embedded or operation in WRITES:
                    raise
                # A write we have not seen yet can make a read fail before the stamp says so: reopen, retry.
                self._reconnect()
                result = self._call(name, operation, kwargs)
            if operation in WRITES:
                self._announce_write()
            return result

    def change_stamp(self) -> str:
        """A value that changes whenever any process writes to the index (cheap: one file or one record)."""
        if self.embedded:
            return self._read_stamp()
        with self._available():
            result = self._call(STATE_COLLECTION, "get", {"ids": [STAMP_ID], "include": ["metadatas"]})
        return result["metadatas"][0].get("stamp", "") if result["ids"] else ""

    def reset(self, *names: str) -> None:
        """Drop the named collections and create them empty."""
        with self._available(), self._lock:
            client = self._connect()
            for name in names:
                self._collections.pop(name, None)
                with contextlib.suppress(NotFoundError, ValueError):
                    client.delete_collection(name)
                self._collection(name)
            self._announce_write()

    @contextlib.contextmanager
    def _available(self) -> Iterator[None]:
        """Turn ChromaDB and connection failures into ServiceUnavailable, with the cause as detail."""
        try:
            yield
        except AppError:
            raise
        except (ChromaError, httpx.HTTPError, OSError) as exc:
            raise ServiceUnavailable(UNAVAILABLE, detail=f"{self.location}: {exc}") from exc

    def _call(self, name: str, operation: str, kwargs: dict[str, Any], refresh: bool = False) -> Any:
        """Run one collection method."""
        return getattr(self._collection(name, refresh=refresh), operation)(**kwargs)

    def _connect(self) -> Any:
        """The Chroma client, created on first use so the app starts even while a Chroma server is down."""
        with self._lock:
            if self._client is None:
                chroma_settings = ChromaSettings(anonymized_telemetry=False)
                try:
                    if self.settings.chroma_host:
                        self._client = chromadb.HttpClient(
                            host=self.settings.chroma_host,
                            port=self.settings.chroma_port,
                            settings=chroma_settings,
                        )
                    else:
                        path = self.settings.resolved_chroma_path
                        path.mkdir(parents=True, exist_ok=True)
                        self._client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
                except (ValueError, ChromaError, httpx.HTTPError, OSError) as exc:
                    # HttpClient raises ValueError("Could not connect ...") when the server does not answer.
                    raise ServiceUnavailable(UNAVAILABLE, detail=f"{self.location}: {exc}") from exc
            return self._client

    def _collection(self, name: str, refresh: bool = False) -> Any:
        """A collection handle (cached); embedding_function=None so Chroma never loads its own model."""
        client = self._connect()
        with self._lock:
            if refresh or name not in self._collections:
                self._collections[name] = client.get_or_create_collection(
                    name, configuration=COLLECTION_CONFIG, embedding_function=None
                )
            return self._collections[name]

    # -- other writers ------------------------------------------------------------------------------

    @property
    def _stamp_path(self) -> Path:
        """The stamp file that every write replaces, beside the index."""
        return StatePaths.of(self.settings).index_stamp

    def _read_stamp(self) -> str:
        """The last writer's stamp ('' before the first write)."""
        try:
            return self._stamp_path.read_text()
        except FileNotFoundError:
            return ""

    def _catch_up(self) -> None:
        """Reopen the embedded client when another process has written since we last looked."""
        if not self.embedded:
            return
        stamp = self._read_stamp()
        with self._lock:
            if stamp == self._seen_stamp:
                return
            if self._seen_stamp is not None:
                self._reconnect()
            self._seen_stamp = stamp

    def _reconnect(self) -> None:
        """Close the client so the next call opens the folder afresh."""
        with self._lock:
            if self._client is not None:
                with contextlib.suppress(Exception):
                    self._client.close()
            self._client = None
            self._collections.clear()

    def _announce_write(self) -> None:
        """Replace the stamp (atomically) so other processes reopen or refresh; remember it as seen."""
        stamp = uuid.uuid4().hex
        if not self.embedded:
            self._call(
                STATE_COLLECTION,
                "upsert",
                {"ids": [STAMP_ID], "embeddings": [[1.0]], "metadatas": [{"stamp": stamp}]},
            )
            return
        write_atomically(self._stamp_path, stamp)
        with self._lock:
            self._seen_stamp = stamp
