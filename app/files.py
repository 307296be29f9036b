"""File primitives shared by the index, the sync jobs and the uploads: atomic writes and flock locks."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

# The only files locked() creates end in this, so a missing folder is never mistaken for a lock file.
LOCK_SUFFIX = ".lock"


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
    """Hold an flock on `path` (an existing folder, or a "*.lock" file created if need be); yield its fd.

    Only a name ending in ".lock" is created: a folder that does not exist raises FileNotFoundError instead
    of becoming an empty file where the folder belongs (use locked_folder to create it).

    With wait=False a lock held elsewhere raises BlockingIOError at once. The kernel drops a flock when its
    holder's process ends, however it ends, so a crash never leaves a stale lock behind.
    """
    if path.is_dir():
        fd = os.open(path, os.O_RDONLY)
    elif path.suffix != LOCK_SUFFIX:
        raise FileNotFoundError(f"cannot lock {path}: the folder does not exist")
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
    """Hold an flock on a folder, creating it first if it is missing."""
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
