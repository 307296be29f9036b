"""StatePaths: every file and lock the app keeps in its instance folder, named in one place.

See ARCHITECTURE.md, "Library state". The sync's files live beside the index (`state_dir`: the folder
holding the embedded ChromaDB folder, or the instance folder when a ChromaDB server holds the index), so
every process that writes the index also sees them; the rest live in the instance folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class Located(Protocol):
    """Where an app keeps its files (the settings; config itself names its files through this module)."""

    @property
    def instance_path(self) -> Path: ...

    @property
    def state_dir(self) -> Path: ...


@dataclass(frozen=True)
class StatePaths:
    """The instance folder's files and locks, for one app's settings."""

    instance: Path
    state: Path

    @classmethod
    def of(cls, settings: Located) -> StatePaths:
        """The paths for these settings."""
        return cls(instance=Path(settings.instance_path), state=Path(settings.state_dir))

    # -- beside the index ---------------------------------------------------------------------------

    @property
    def index_stamp(self) -> Path:
        """Replaced by every write to an embedded index, so other processes reopen it."""
        return self.state / "index.stamp"

    @property
    def sync_lock(self) -> Path:
        """The writer lock: one sync (a job, `flask index`, a trash move) writes the index at a time."""
        return self.state / "sync.lock"

    @property
    def rebuild_marker(self) -> Path:
        """Present while a rebuild is under way, holding its generation, so the next sync finishes it."""
        return self.state / "rebuild.pending"

    @property
    def job_file(self) -> Path:
        """The running (or last) background sync job and its progress, read by every worker."""
        return self.state / "sync_job.json"

    @property
    def last_job_file(self) -> Path:
        """The last finished background sync job, for the admin page."""
        return self.state / "sync_last.json"

    @property
    def last_sync_file(self) -> Path:
        """The report of the last sync that finished, whoever ran it (a job or `flask index`)."""
        return self.state / "sync_finished.json"

    @property
    def job_lock(self) -> Path:
        """Held by the process running a background sync job for the job's whole life."""
        return self.state / "sync_job.lock"

    @property
    def job_start_lock(self) -> Path:
        """Held for a moment around starting a job and reading its status, so nobody reads in between."""
        return self.state / "sync_job.start.lock"

    @property
    def rerun_marker(self) -> Path:
        """Written when files change while a job runs; the job then makes another pass."""
        return self.state / "sync_job.rerun"

    # -- in the instance folder ---------------------------------------------------------------------

    @property
    def trash(self) -> Path:
        """Removed course files, until they are restored."""
        return self.instance / "trash"

    @property
    def database(self) -> Path:
        """The SQLite database, when DATABASE_URL names none."""
        return self.instance / "assistant.sqlite3"

    @property
    def secret_key(self) -> Path:
        """The generated SECRET_KEY, when none is set."""
        return self.instance / "secret_key"

    @property
    def admin_session_generation(self) -> Path:
        """The admin sessions' generation: replacing it signs every admin out."""
        return self.instance / "admin_session_generation"
