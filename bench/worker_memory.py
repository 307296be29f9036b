"""Worker memory, step by step: what a serving process holds after each stage of its life (Linux /proc).

A fresh process indexes nothing itself: `flask index` fills the index first, as in a deployment. The stages
then follow a gunicorn worker: the app, the index opened, the model loaded, warm-up and searches, the freed
heap given back (as `post_worker_init` does), one sync-sized batch embedded, and given back again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.cold_start import ROOT, app_env, flask_index
from bench.index_search import DOCS, print_table

# A sync embeds batches of 16 passages of up to 256 tokens.
SYNC_BATCH = ["The quality of an approximate nearest neighbour index is measured as recall. " * 20] * 16
SEARCHES = ["what is a fixture", "how does hnsw work", "chunking with overlap", "cosine similarity"] * 5


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
    """Index the sample library in a subprocess, then measure the stages in a fresh one and print them."""
    if "--stages" in sys.argv:
        for name, rss, pss in stages():
            print(f"{name}\t{rss:.0f}\t{pss:.0f}")
        return
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
