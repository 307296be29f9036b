"""Give freed heap memory back to the operating system, where the C library allows it."""

from __future__ import annotations

import ctypes


def release_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc `malloc_trim`); a no-op elsewhere.

    Loading the model, warming up and embedding a sync's batches free far more than they keep, but glibc keeps
    freed pages for reuse: measured on a warm gunicorn worker, trimming once takes it from 297 to 268 MB.
    """
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return
    trim(0)
