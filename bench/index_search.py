"""Index and search timings on the sample docs: parse, chunk, embed, store; search vs. embedding a query."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app.config import Settings, load_settings
from app.courses.chunking import chunk_course
from app.courses.models import Chunk, Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file
from app.library.sync import Indexer
from app.search.embedding import Embedder, get_embedder
from app.search.index import CourseIndex

DOCS = Path(__file__).resolve().parent.parent / "docs"
QUERIES = 50
GENERIC_QUESTIONS = (
    "how do I get started",
    "what are the common mistakes",
    "how is this tested",
    "what does the final lesson cover",
    "explain the trade-offs",
)


class PrecomputedEmbedder:
    """Serve vectors computed earlier, so that timing `upsert_course` measures the store alone."""

    def __init__(self, vectors: dict[str, list[float]], model: Embedder):
        self._vectors = vectors
        self._model = model
        self.fingerprint = model.fingerprint

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Look the vectors up."""
        return [self._vectors[text] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed with the real model (only course titles reach here while storing)."""
        return self._model.embed_query(text)


def timed(work: Callable[[], object]) -> tuple[float, object]:
    """Run `work` and return (seconds, result)."""
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def latencies_ms(
    operations: dict[str, Callable[[str, str], object]],
    pairs: list[tuple[str, str]],
    before: Callable[[], object] = lambda: None,
) -> dict[str, list[float]]:
    """Milliseconds per call of each operation on (query, course), interleaved so load hits all alike."""
    results: dict[str, list[float]] = {name: [] for name in operations}
    for query, course in pairs:
        for name, operation in operations.items():
            before()
            seconds, _ = timed(
                lambda operation=operation, query=query, course=course: operation(query, course)
            )
            results[name].append(seconds * 1000)
    return results


def p95(values: list[float]) -> float:
    """The 95th percentile."""
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def bench_settings(root: Path, name: str) -> Settings:
    """Settings with a private index under `root`, reading the sample docs, in extractive mode."""
    return load_settings(
        {
            "DOCS_DIR": str(DOCS),
            "INSTANCE_PATH": str(root / name),
            "CHROMA_PATH": str(root / name / "chroma"),
            "CHROMA_HOST": None,
            "ANTHROPIC_API_KEY": None,
        }
    )


def make_queries(courses: list[Course]) -> list[tuple[str, str]]:
    """About QUERIES (query, course title) pairs: lesson titles as questions, plus generic ones."""
    pairs = [
        (f"what is {lesson.title.lower()}", course.title) for course in courses for lesson in course.lessons
    ]
    pairs += [(question, course.title) for course in courses for question in GENERIC_QUESTIONS]
    return (pairs * (QUERIES // max(len(pairs), 1) + 1))[:QUERIES]


def index_timings(
    settings: Settings, embedder: Embedder
) -> tuple[list[Course], list[Chunk], dict[str, float]]:
    """Parse, chunk, embed and store the sample docs step by step; return courses, chunks and timings."""
    files = sorted(path for path in DOCS.iterdir() if path.suffix.lower() in SUPPORTED_EXTENSIONS)
    seconds: dict[str, float] = {}
    seconds["load model"], _ = timed(lambda: embedder.embed_query("warm up"))
    seconds["parse"], courses = timed(lambda: [parse_file(path) for path in files])
    seconds["chunk"], per_course = timed(
        lambda: [chunk_course(course, settings.chunk_size, settings.chunk_overlap) for course in courses]
    )
    chunks = [chunk for course_chunks in per_course for chunk in course_chunks]
    texts = [chunk.embedding_text for chunk in chunks]
    seconds["embed"], vectors = timed(lambda: embedder.embed_documents(texts))
    index = CourseIndex(
        settings, embedder=PrecomputedEmbedder(dict(zip(texts, vectors, strict=True)), embedder)
    )
    index.clear()
    seconds["store"], _ = timed(
        lambda: [
            index.upsert_course(course, chunks) for course, chunks in zip(courses, per_course, strict=True)
        ]
    )
    return courses, chunks, seconds


def print_table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Print a plain aligned table."""
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    print(title)
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        print("  " + "  ".join(cells))


def main() -> None:
    """Print the index timing table and the search latency table."""
    embedder = get_embedder(None)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        root = Path(tmp)
        settings = bench_settings(root, "steps")
        courses, chunks, seconds = index_timings(settings, embedder)
        work = seconds["parse"] + seconds["chunk"] + seconds["embed"] + seconds["store"]
        sync_settings = bench_settings(root, "sync")
        sync_index = CourseIndex(sync_settings, embedder=embedder)
        sync_seconds, report = timed(lambda: Indexer(sync_settings, sync_index).sync(rebuild=True))
        rows = [
            (step, f"{seconds[step]:.3f}", f"{seconds[step] / work:.0%}" if step != "load model" else "")
            for step in ("load model", "parse", "chunk", "embed", "store")
        ]
        rows.append(("parse+chunk+embed+store", f"{work:.3f}", "100%"))
        rows.append((f"Indexer.sync(rebuild=True), {report.chunks} chunks", f"{sync_seconds:.3f}", ""))
        print_table(
            f"Indexing {len(courses)} sample courses from docs/ ({len(chunks)} chunks, "
            f"{len(chunks) / work:.0f} chunks/s; {len(chunks) / sync_seconds:.0f} chunks/s through "
            "Indexer.sync)",
            ("step", "seconds", "share"),
            rows,
        )

        index = CourseIndex(settings, embedder=embedder)
        pairs = make_queries(courses)
        index.search(pairs[0][0])  # the first query opens the collection; keep it out of the numbers
        timings = latencies_ms(
            {
                "embed one query (the floor)": lambda query, course: embedder.embed_query(query),
                "search, no filter": lambda query, course: index.search(query),
                "search, course filter": lambda query, course: index.search(query, course=course),
            },
            pairs,
            # Every question a student asks is new to the process: time it with the query-vector cache empty.
            before=embedder.embed_query.cache_clear,
        )
        floor = statistics.median(timings["embed one query (the floor)"])
        print()
        print_table(
            f"Search latency over {len(pairs)} queries, k={settings.max_results}, embedded ChromaDB folder",
            ("operation", "median ms", "p95 ms", "median / embed one query"),
            [
                (
                    name,
                    f"{statistics.median(values):.1f}",
                    f"{p95(values):.1f}",
                    f"{statistics.median(values) / floor:.1f}x",
                )
                for name, values in timings.items()
            ],
        )
