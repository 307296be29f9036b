"""File primitives shared by the index, the sync jobs and the uploads: atomic writes and flock locks."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def write_atomically(path: Path, data: bytes | str) -> None:
    """Write to a temp file in the target's folder, flush it to disk, then rename it over the target.

    Readers (another worker, the indexer) see the old file or the new one, never half of one.
    """
    os.replace(stage_file(path, data), path)


def stage_file(path: Path, data: bytes | str) -> Path:
    """Write `data` to a temp file beside `path`, flushed to disk, and return it for the caller to rename.

    The temp name starts with a dot and ends in ".part", so the indexer never picks it up as a course.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:100]}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return Path(temp)


@contextlib.contextmanager
def locked(path: Path, *, wait: bool = True, shared: bool = False) -> Iterator[int]:
    """Hold an flock on `path` (a folder, or a file created if need be) and yield its descriptor.

    With wait=False a lock held elsewhere raises BlockingIOError at once. The kernel drops a flock when its
    holder's process ends, however it ends, so a crash never leaves a stale lock behind.
    """
    if path.is_dir():
        fd = os.open(path, os.O_RDONLY)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB))
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked_folder(folder: Path) -> Iterator[int]:
    """Hold an flock on a folder, creating it first (locked() alone would create a file in its place)."""
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder) as fd:
        yield fd


def held_elsewhere(path: Path) -> bool:
    """True when someone holds an exclusive flock on `path` (probed without waiting)."""
    if not path.exists():
        return False
    try:
        with locked(path, wait=False, shared=True):
            return False
    except BlockingIOError:
        return True
