"""Growth: the sample library copied 1x, 10x and 50x under distinct titles; index, re-sync and search costs.

`GROWTH_SCALES=1,10` runs fewer scales (the 50x fresh index embeds about 4,000 chunks).
"""

from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path

from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file
from app.library.sync import Indexer
from app.search.embedding import get_embedder
from app.search.index import CourseIndex
from app.search.searcher import DENSE_CANDIDATES, OVERFETCH
from bench.index_search import DOCS, bench_settings, latencies_ms, make_queries, p95, print_table, timed

DEFAULT_SCALES = (1, 10, 50)


def course_text(course: Course, copy: int) -> str:
    """The course as a TXT document, its title made distinct by the copy number."""
    title = course.title if copy == 0 else f"{course.title} (edition {copy + 1})"
    lines = [f"Course Title: {title}"]
    if course.link:
        lines.append(f"Course Link: {course.link}")
    if course.instructor:
        lines.append(f"Course Instructor: {course.instructor}")
    for lesson in course.lessons:
        lines += ["", f"Lesson {lesson.number}: {lesson.title}"]
        if lesson.link:
            lines.append(f"Lesson Link: {lesson.link}")
        lines.append(lesson.text)
    return "\n".join(lines) + "\n"


def write_library(courses: list[Course], copies: int, folder: Path) -> list[str]:
    """Write `copies` editions of every sample course into `folder`; return the titles."""
    folder.mkdir(parents=True)
    titles = []
    for copy in range(copies):
        for number, course in enumerate(courses):
            text = course_text(course, copy)
            (folder / f"course-{copy:03d}-{number}.txt").write_text(text)
            titles.append(text.splitlines()[0].removeprefix("Course Title: "))
    return titles


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def scales() -> tuple[int, ...]:
    """The scales to run, from GROWTH_SCALES or the default."""
    raw = os.environ.get("GROWTH_SCALES", "")
    return tuple(int(part) for part in raw.split(",") if part.strip()) or DEFAULT_SCALES


def measure(scale: int, courses: list[Course], root: Path) -> dict[str, float]:
    """Index a library of `scale` copies fresh, re-sync it unchanged, and time searches over it."""
    docs = root / f"docs-{scale}"
    write_library(courses, scale, docs)
    settings = bench_settings(root, f"index-{scale}").model_copy(update={"docs_dir": docs})
    embedder = get_embedder(None)
    index = CourseIndex(settings, embedder=embedder)
    indexer = Indexer(settings, index)
    fresh, report = timed(indexer.sync)
    resync, _ = timed(indexer.sync)
    pairs = make_queries(courses)
    for query, _ in pairs:  # query vectors cached: the table shows the index's own cost, not the model's
        embedder.embed_query(query)
    index.search(pairs[0][0])
    # The same library ranked by meaning alone (HYBRID_SEARCH=false): what the keyword half adds.
    dense = CourseIndex(settings.model_copy(update={"hybrid_search": False}), embedder=embedder)
    dense.search(pairs[0][0])
    hits = max(DENSE_CANDIDATES, 2 * settings.max_results) + OVERFETCH
    timings = latencies_ms(
        {
            "no filter": lambda query, course: index.search(query),
            "course filter": lambda query, course: index.search(query, course=course),
            "meaning only": lambda query, course: dense.search(query),
            # ChromaDB's own unfiltered vector query for the same hits: the part that grows with the library
            # by nature, shown beside the whole search so the rest of its cost can be told apart.
            "vector query": lambda query, course: index.searcher.query(
                embedder.embed_query(query), hits, None
            ),
        },
        pairs,
    )
    return {
        "courses": len(index.courses()),
        "chunks": report.chunks,
        "fresh index s": fresh,
        "unchanged re-sync s": resync,
        "p50 no filter": statistics.median(timings["no filter"]),
        "p95 no filter": p95(timings["no filter"]),
        "p50 course filter": statistics.median(timings["course filter"]),
        "p95 course filter": p95(timings["course filter"]),
        "p50 vector query": statistics.median(timings["vector query"]),
        "p50 meaning only": statistics.median(timings["meaning only"]),
        "rss MB": rss_mb(),
    }


def main() -> None:
    """Print one row per scale, and each search p50 as a ratio to the 1x library's."""
    files = sorted(path for path in DOCS.iterdir() if path.suffix.lower() in SUPPORTED_EXTENSIONS)
    courses = [parse_file(path) for path in files]
    get_embedder(None).embed_query("warm up")
    rows, base = [], None
    with tempfile.TemporaryDirectory(prefix="bench-growth-") as tmp:
        for scale in scales():
            figures = measure(scale, courses, Path(tmp))
            base = base or figures
            rows.append(
                (
                    f"{scale}x",
                    f"{figures['courses']:.0f}",
                    f"{figures['chunks']:.0f}",
                    f"{figures['fresh index s']:.1f}",
                    f"{figures['unchanged re-sync s']:.2f}",
                    f"{figures['p50 no filter']:.1f} / {figures['p95 no filter']:.1f}",
                    f"{figures['p50 no filter'] / base['p50 no filter']:.2f}x",
                    f"{figures['p50 course filter']:.1f} / {figures['p95 course filter']:.1f}",
                    f"{figures['p50 course filter'] / base['p50 course filter']:.2f}x",
                    f"{figures['p50 meaning only']:.1f}",
                    f"{figures['p50 meaning only'] / base['p50 meaning only']:.2f}x",
                    f"{figures['p50 vector query']:.1f}",
                    f"{figures['p50 no filter'] - figures['p50 vector query']:.1f}",
                    f"{figures['rss MB']:.0f}",
                )
            )
    print_table(
        "Growth: the sample library copied under distinct titles; search ms with query vectors cached "
        "(hybrid search as served; 'meaning only' is HYBRID_SEARCH=false, no filter)",
        (
            "scale",
            "courses",
            "chunks",
            "fresh index s",
            "re-sync s",
            "no filter p50/p95",
            "p50 vs 1x",
            "course filter p50/p95",
            "p50 vs 1x",
            "meaning only p50",
            "p50 vs 1x",
            "vector query p50",
            "search minus query",
            "RSS MB",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
