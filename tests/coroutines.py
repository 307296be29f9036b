"""Running a coroutine from a synchronous test, whatever loop the test's thread already runs."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end on a new loop in a thread of its own.

    Playwright's sync API (the e2e tests' session-wide browser) keeps a loop running in the main thread, where
    asyncio.run refuses to start another.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
