"""Chat searches during an admin rebuild: search latency while every course is re-embedded, against quiet.

A chat search embeds its (new) question and queries the index; the rebuild embeds batches of chunks in
another thread of the same process, as an admin page's sync job does in a gunicorn worker.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path

from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file
from app.library.jobs import yield_to_requests
from app.library.sync import Indexer
from app.search.index import CourseIndex
from bench.growth import write_library
from bench.index_search import DOCS, bench_settings, p95, print_table

COPIES = 5
SEARCHES = 200
PAUSE = 0.05  # between searches: a chat's pace, not a tight loop


def timed_searches(index: CourseIndex, prefix: str, until: threading.Event | None = None) -> list[float]:
    """Milliseconds of searches for new questions, SEARCHES of them or until `until` is set."""
    results: list[float] = []
    number = 0
    while (until is None and number < SEARCHES) or (until is not None and not until.is_set()):
        started = time.perf_counter()
        index.search(f"{prefix} how are chunks sized and overlapped? {number}")
        results.append((time.perf_counter() - started) * 1000)
        number += 1
        time.sleep(PAUSE)
    return results


def main() -> None:
    """Print quiet and during-rebuild search p50/p95 and their ratio."""
    files = sorted(path for path in DOCS.iterdir() if path.suffix.lower() in SUPPORTED_EXTENSIONS)
    courses = [parse_file(path) for path in files]
    with tempfile.TemporaryDirectory(prefix="bench-rebuild-") as tmp:
        docs = Path(tmp) / "docs"
        write_library(courses, COPIES, docs)
        settings = bench_settings(Path(tmp), "index").model_copy(update={"docs_dir": docs})
        index = CourseIndex(settings)
        indexer = Indexer(settings, index)
        indexer.sync()
        quiet = timed_searches(index, "quiet")
        done = threading.Event()
        rebuild_seconds: list[float] = []

        def rebuild() -> None:
            yield_to_requests()  # as the admin page's sync job does
            started = time.perf_counter()
            try:
                indexer.sync(rebuild=True)
            finally:
                rebuild_seconds.append(time.perf_counter() - started)
                done.set()

        worker = threading.Thread(target=rebuild)
        worker.start()
        busy = timed_searches(index, "busy", until=done)
        worker.join()
    print_table(
        f"Chat searches during a full rebuild ({COPIES}x the sample library, {rebuild_seconds[0]:.0f} s)",
        ("searches", "p50 ms", "p95 ms", "p95 vs quiet"),
        [
            ("quiet", f"{statistics.median(quiet):.1f}", f"{p95(quiet):.1f}", "1.00x"),
            (
                f"during rebuild ({len(busy)})",
                f"{statistics.median(busy):.1f}",
                f"{p95(busy):.1f}",
                f"{p95(busy) / p95(quiet):.2f}x",
            ),
        ],
    )


if __name__ == "__main__":
    main()
