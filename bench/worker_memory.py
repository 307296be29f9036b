"""Worker memory: a warm gunicorn worker after 30 answers, this checkout beside an earlier build in one run;
then this checkout's worker step by step.

The earlier build (WORKER_MEMORY_BASE, a git ref: by default the commit before the worker was slimmed) is
checked out into a temporary git worktree. Each build makes its own ONNX export into a cache folder of its
own, then for each layout indexes the sample library, serves it from one gunicorn worker (as `make serve`
does: warmed before it takes traffic) and answers 30 questions through /api/query. The layouts: extractive
answers or Claude (its Messages API faked on loopback, one search per answer), on the embedded ChromaDB
folder or a `chroma run` server.

The step-by-step table: a fresh extractive process after each stage of a worker's life (the app, the index
opened, the model loaded, warm-up and searches, the freed heap given back as `post_worker_init` does, one
sync-sized batch embedded, and given back again).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.cold_start import ROOT, app_env, chroma_server, flask_index, free_port, serve, worker_rss_mb
from bench.index_search import DOCS, print_table

BASE = os.environ.get("WORKER_MEMORY_BASE", "965129a5ffeefcd396de03b2ebded5a2ad39d34b")
ANSWERS = 30
# Made-up questions about the sample library; the answers ask each of them three times, numbered.
QUESTIONS = (
    "What does a test fixture give a test?",
    "How does an HNSW graph find neighbours?",
    "Why do chunks overlap?",
    "What is cosine similarity?",
    "How do I test a Flask view?",
    "What does an HTMX swap replace?",
    "How are two rankings fused?",
    "What does a vector database store?",
    "When is a mock the wrong tool?",
    "How is recall of an index measured?",
)
CLAUDE_ANSWER = "A short answer that cites the lesson."
# name: (Claude rather than extractive answers, a ChromaDB server rather than the embedded folder)
LAYOUTS = {
    "extractive, embedded folder": (False, False),
    "extractive, ChromaDB server": (False, True),
    "Claude, embedded folder": (True, False),
    "Claude, ChromaDB server": (True, True),
}
# A sync embeds batches of 16 passages of up to 256 tokens.
SYNC_BATCH = ["The quality of an approximate nearest neighbour index is measured as recall. " * 20] * 16
SEARCHES = ["what is a fixture", "how does hnsw work", "chunking with overlap", "cosine similarity"] * 5


@contextlib.contextmanager
def checkout(ref: str) -> Iterator[Path]:
    """`ref` checked out into a temporary git worktree, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bench-base-") as tmp:
        folder = Path(tmp) / "checkout"
        git = ["git", "-C", str(ROOT), "worktree"]
        add = [*git, "add", "--detach", "--quiet", str(folder), ref]
        subprocess.run(add, check=True, capture_output=True)
        try:
            yield folder
        finally:
            subprocess.run([*git, "remove", "--force", str(folder)], check=False, capture_output=True)


def export_model(root: Path, cache: Path) -> None:
    """Make the checkout `root`'s ONNX export of the embedding model into `cache` (not timed)."""
    env = {**os.environ, "EMBEDDING_CACHE_DIR": str(cache)}
    module = [sys.executable, "-m", "app.search.embedding.export"]
    subprocess.run(module, cwd=root, env=env, check=True, capture_output=True)


def ask(port: int, number: int, fake: Any) -> None:
    """POST one question to /api/query; with the fake Claude, script its search and its answer first."""
    question = f"{QUESTIONS[number % len(QUESTIONS)]} ({number + 1})"
    if fake is not None:
        fake.enqueue_tool_use("search_course_content", {"query": question})
        fake.enqueue_text(CLAUDE_ANSWER)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/query",
        data=json.dumps({"query": question}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        response.read()


def worker_after_answers(
    root: Path, cache: Path, layout: tuple[bool, bool], fake: Any
) -> tuple[float, float]:
    """Serve the checkout `root` from one gunicorn worker in `layout`: its RSS when warm and after ANSWERS
    answers, in MB."""
    claude, server = layout
    with tempfile.TemporaryDirectory(prefix="bench-worker-") as tmp, contextlib.ExitStack() as stack:
        docs = Path(tmp) / "docs"
        shutil.copytree(DOCS, docs)
        extra = {"EMBEDDING_CACHE_DIR": str(cache)}
        if server:
            extra.update(stack.enter_context(chroma_server(Path(tmp) / "chroma")))
        if claude:
            extra.update(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=fake.url)
        port = free_port()
        env = app_env(docs, Path(tmp) / "instance", PORT=str(port), WEB_CONCURRENCY="1", **extra)
        flask_index(env, root)
        gunicorn = serve(env, root)
        try:
            warm = worker_rss_mb(gunicorn.pid)
            for number in range(ANSWERS):
                ask(port, number, fake if claude else None)
            return warm, worker_rss_mb(gunicorn.pid)
        finally:
            gunicorn.terminate()
            gunicorn.wait(timeout=30)


def compared_rows() -> list[tuple[str, ...]]:
    """Each layout's worker, the base build's beside this checkout's: warm, after the answers, the ratio."""
    sys.path.insert(0, str(ROOT))  # tests.fake_claude is the scripted Messages API the tests use
    from tests.fake_claude import FakeClaude

    fake = FakeClaude().start()
    try:
        with checkout(BASE) as base, tempfile.TemporaryDirectory(prefix="bench-exports-") as exports:
            builds = {BASE[:7]: base, "this checkout": ROOT}
            for number, root in enumerate(builds.values()):
                export_model(root, Path(exports) / str(number))
            rows = []
            for name, layout in LAYOUTS.items():
                figures = {}
                for number, (build, root) in enumerate(builds.items()):
                    figures[build] = worker_after_answers(root, Path(exports) / str(number), layout, fake)
                before = figures[BASE[:7]][1]
                for build, (warm, after) in figures.items():
                    rows.append((name, build, f"{warm:.0f}", f"{after:.0f}", f"{after / before:.2f}x"))
            return rows
    finally:
        fake.stop()


def memory_mb() -> tuple[float, float]:
    """This process's resident and proportional set sizes, in MB."""
    figures = {}
    for line in Path(f"/proc/{os.getpid()}/smaps_rollup").read_text().splitlines():
        key, *value = line.split()
        if key in ("Rss:", "Pss:"):
            figures[key] = int(value[0]) / 1024
    return figures["Rss:"], figures["Pss:"]


def stages() -> list[tuple[str, float, float]]:
    """Run the stages in this process; each one's RSS and PSS after it."""
    rows = [("python", *memory_mb())]
    from app import create_app
    from app.memory import release_free_memory

    app = create_app()
    rows.append(("the app created", *memory_mb()))
    services = app.extensions["services"]
    services.index.ping()
    rows.append(("the index opened", *memory_mb()))
    services.index.embedder.embed_query("load")
    rows.append(("the model loaded", *memory_mb()))
    services.warm_up()
    for question in SEARCHES:
        services.index.search(question)
    rows.append(("warmed up, 20 searches", *memory_mb()))
    release_free_memory()
    rows.append(("freed heap given back", *memory_mb()))
    services.index.embedder.embed_documents(SYNC_BATCH)
    rows.append(("one sync-sized batch embedded", *memory_mb()))
    release_free_memory()
    rows.append(("freed heap given back", *memory_mb()))
    return rows


def main() -> None:
    """Print the two builds' workers side by side; then index the sample library in a subprocess, measure
    this checkout's stages in a fresh one and print them."""
    if "--stages" in sys.argv:
        for name, rss, pss in stages():
            print(f"{name}\t{rss:.0f}\t{pss:.0f}")
        return
    print_table(
        f"Worker memory: one warm gunicorn worker, then after {ANSWERS} answers (RSS, MB), "
        f"against {BASE[:7]} in one run",
        ("layout", "build", "warm", f"after {ANSWERS} answers", f"vs {BASE[:7]}"),
        compared_rows(),
    )
    print()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        docs = Path(tmp) / "docs"
        shutil.copytree(DOCS, docs)
        env = app_env(docs, Path(tmp) / "instance")
        flask_index(env)
        run = [sys.executable, "-m", "bench.worker_memory", "--stages"]
        output = subprocess.run(run, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    rows = [tuple(line.split("\t")) for line in output.strip().splitlines()]
    print_table(
        "Worker memory after each stage (a fresh extractive process, MB)", ("stage", "RSS", "PSS"), rows
    )


if __name__ == "__main__":
    main()
