"""Background sync jobs whose progress every worker process can read from a file beside the index."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from app.config import Settings
from app.errors import SyncBusy
from app.files import held_elsewhere, locked, write_atomically
from app.library.state import StatePaths
from app.memory import release_free_memory
from app.search.models import FileResult, SyncJob, SyncProgress, SyncReport

if TYPE_CHECKING:
    from app.library.sync import Indexer

# How much lower than the request threads a background sync runs (Unix niceness: 0 to 19).
SYNC_NICENESS = 10


def _now() -> str:
    """The current time as an ISO 8601 string in UTC."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_job(path: Path, job: SyncJob) -> None:
    """Write a job atomically, so a worker reading the progress never sees half of it."""
    write_atomically(path, job.model_dump_json())


def read_job(path: Path) -> SyncJob | None:
    """Read a job file, or None when it is missing or unreadable."""
    try:
        return SyncJob.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


def yield_to_requests() -> None:
    """Lower this thread's CPU priority: in a web worker, a chat search should not wait behind embedding."""
    # Linux schedules threads one by one, so this niceness is the sync thread's alone; elsewhere, no-op.
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SYNC_NICENESS)


def _pid_alive(pid: int) -> bool:
    """True when a process with this id exists on this machine."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SyncJobs:
    """Start a sync in a background thread unless one runs anywhere, and report its progress."""

    def __init__(self, settings: Settings, indexer: Callable[[], Indexer]):
        self.settings = settings
        self._indexer = indexer
        self._thread: threading.Thread | None = None

    @property
    def _paths(self) -> StatePaths:
        """The job's files and locks, beside the index."""
        return StatePaths.of(self.settings)

    def start(self, rebuild: bool = False, files_changed: bool = False) -> SyncJob:
        """Start a job and return its status; when one is running, return that one instead.

        `files_changed` says DOCS_DIR was just changed: a running job then makes one more pass.
        """
        if files_changed:
            self._paths.rerun_marker.parent.mkdir(parents=True, exist_ok=True)
            self._paths.rerun_marker.touch()
        lock = contextlib.ExitStack()
        # The start lock is held around "take the job lock and record the job" and around reading the job, so
        # nobody reads between those two steps (a loser would find no running job, a prober would steal it).
        with self._starting():
            try:
                # Held by the job thread for the job's whole life; the stack releases it when the job ends.
                lock.enter_context(locked(self._paths.job_lock, wait=False))
            except BlockingIOError:
                running = self._read_status() or self._new_job(rebuild)  # held, job file not yet readable
                return running.model_copy(update={"already_running": True})
            job = self._new_job(rebuild)
            # Written before the thread starts and before we answer, so the first poll already sees the job.
            write_job(self._paths.job_file, job)
        answer = job.model_copy(deep=True)
        thread = threading.Thread(target=self._run, args=(job, lock), name=f"sync-job-{job.id}", daemon=True)
        self._thread = thread
        thread.start()
        return answer

    @contextlib.contextmanager
    def _starting(self) -> Iterator[None]:
        """Hold the short start lock (blocking; it is only ever held for a file write or read)."""
        with locked(self._paths.job_start_lock):
            yield

    @staticmethod
    def _new_job(rebuild: bool) -> SyncJob:
        """A running job owned by this process."""
        return SyncJob(id=uuid.uuid4().hex[:12], rebuild=rebuild, started_at=_now(), pid=os.getpid())

    def _run(self, job: SyncJob, lock: contextlib.ExitStack) -> None:
        """Run sync passes until no file changed during the last one, then record the outcome."""
        yield_to_requests()
        try:
            self._run_passes(job)
            job.state = "done"
        except Exception as exc:  # noqa: BLE001 - any failure must end up in the progress file, not a dead thread
            job.state = "failed"
            job.failure = f"The sync failed: {getattr(exc, 'message', None) or exc}"
        finally:
            self._record_end(job)
            lock.close()
            release_free_memory()  # a sync's batches and documents are garbage now; serving goes on
        # Files changed after our last check but before the release: their starter may have found us busy.
        if self._paths.rerun_marker.exists():
            self.start(files_changed=True)

    def _run_passes(self, job: SyncJob) -> None:
        """Sync again while files changed during the pass; only the first pass rebuilds."""
        results: dict[str, FileResult] = {}
        rebuild = job.rebuild
        while True:
            self._paths.rerun_marker.unlink(missing_ok=True)
            report = self._pass(job, results, rebuild)
            job.seconds = round((job.seconds or 0) + report.seconds, 2)
            rebuild = False
            if not self._paths.rerun_marker.exists():
                return

    def _record_end(self, job: SyncJob) -> None:
        """Write the ended job to the job file and keep it as the last job."""
        job.current_file = job.note = job.step = None
        job.chunks_done = job.chunks_total = 0
        job.finished_at = _now()
        write_job(self._paths.job_file, job)
        write_job(self._paths.last_job_file, job)

    def _pass(self, job: SyncJob, results: dict[str, FileResult], rebuild: bool) -> SyncReport:
        """One indexer sync, reporting each progress event to the job file."""
        progress = functools.partial(self._on_progress, job, results)
        indexer = self._indexer()
        try:
            report = indexer.sync(rebuild=rebuild, progress=progress, wait=False)
        except SyncBusy:
            # The index's writer lock is held outside this job (e.g. `flask index`): wait for it, visibly.
            job.note = "Waiting for another sync of the index (for example `flask index`) to finish."
            write_job(self._paths.job_file, job)
            report = indexer.sync(rebuild=rebuild, progress=progress, wait=True)
        for result in report.results:
            self._merge(results, result)
        self._publish(job, results)
        return report

    def _on_progress(self, job: SyncJob, results: dict[str, FileResult], event: SyncProgress) -> None:
        """Copy a progress event into the job file."""
        job.done, job.total, job.current_file = event.done, event.total, event.current_file
        job.chunks_done, job.chunks_total = event.chunks_done, event.chunks_total
        job.step, job.note = event.step, None
        if event.result is not None:
            self._merge(results, event.result)
            self._publish(job, results)
        write_job(self._paths.job_file, job)

    @staticmethod
    def _publish(job: SyncJob, results: dict[str, FileResult]) -> None:
        """Copy the merged results into the job."""
        job.results = list(results.values())

    @staticmethod
    def _merge(results: dict[str, FileResult], result: FileResult) -> None:
        """Record a file's result; a later 'unchanged' pass does not hide what an earlier pass did."""
        previous = results.get(result.file)
        if previous is not None and result.status == "unchanged" and previous.status != "unchanged":
            return
        results[result.file] = result

    def status(self) -> SyncJob | None:
        """The current or last job, with a running job whose owner died reported as 'interrupted'."""
        with self._starting():
            return self._read_status()

    def _read_status(self) -> SyncJob | None:
        """The job file, judged for staleness (call with the start lock held)."""
        job = read_job(self._paths.job_file)
        if job is not None and job.running and self._owner_gone(job):
            job.state = "interrupted"
            job.current_file = None
            job.failure = "The sync stopped before it finished: the process running it ended."
        return job

    def _owner_gone(self, job: SyncJob) -> bool:
        """True when the process that ran this job is gone or no longer holds the job lock."""
        if not _pid_alive(job.pid):
            return True
        if job.pid == os.getpid() and self._thread is not None and self._thread.is_alive():
            return False
        return not held_elsewhere(self._paths.job_lock)

    def last(self) -> SyncJob | None:
        """The last finished job (done or failed), kept for the admin page."""
        return read_job(self._paths.last_job_file)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for this process's job thread to end (a hook for tests and the CLI); True when it ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        # A job may chain into another pass-started job at its end, so follow the newest thread.
        while (thread := self._thread) is not None and thread.is_alive():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            thread.join(remaining)
        return True
