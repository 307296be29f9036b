"""Indexing speed on the lecture set: passages embedded per second, main's method against today's, one run.

A fresh index spends nearly all its time in the encoder (a profile of syncing the lecture set: 97% in
onnxruntime's run, 1% in ChromaDB writes, under 1% tokenizing), so this measures the encoder path a sync
takes, side by side on one loaded model, in alternating rounds so both see the same machine load:

- main: each course's chunks in file order, write batches of 64, encoder batches of 16 padded to the
  longest text of the batch, the memory arena shrunk after every batch;
- now: each course's chunks sorted by length (IndexWriter), so every batch pads to little more than its own
  texts, the arena shrunk once per write batch (OnnxSentenceModel.encode).

Wall time and this process's CPU time are both shown: on a shared machine the CPU time is the steadier
figure. The vectors of both methods are compared; they must agree to float rounding.
`python -m bench.index_speed` (part of `make bench`); INDEX_SPEED_EVERY=n keeps every n-th chunk, for a
quick look.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.courses.chunking import chunk_course
from app.courses.parsing import parse_file
from app.search.embedding.layout import INPUTS
from app.search.embedding.model import BATCH_SIZE, get_embedder
from app.search.writer import WRITE_BATCH

DEVSET = Path(os.environ.get("DEVSET_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "devset"))
ROUNDS = int(os.environ.get("INDEX_SPEED_ROUNDS", "2"))
EVERY = int(os.environ.get("INDEX_SPEED_EVERY", "1"))


def lecture_texts() -> list[list[str]]:
    """The embedding texts of each lecture-set course's chunks, in file order."""
    courses = []
    for path in sorted((DEVSET / "docs").glob("*.txt")):
        chunks = chunk_course(parse_file(path))
        courses.append([chunk.embedding_text for chunk in chunks][::EVERY])
    return courses


def main_method(model) -> Callable[[list[str]], np.ndarray]:
    """Main's encoder path: batches in the order given, each padded to its longest, arena shrunk each time."""
    import onnxruntime

    shrink = onnxruntime.RunOptions()
    shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    def encode(texts: list[str]) -> np.ndarray:
        vectors = []
        for start in range(0, len(texts), BATCH_SIZE):
            encodings = model.tokenizer.encode_batch(texts[start : start + BATCH_SIZE])
            feed = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            vectors.append(model._run_batch({name: feed[name] for name in INPUTS}, shrink=True))
        return np.concatenate(vectors)

    return encode


def index_courses(courses: list[list[str]], encode: Callable[[list[str]], np.ndarray], sort: bool) -> list:
    """Embed every course in write batches, as a sync does; return the vectors by text."""
    vectors = {}
    for texts in courses:
        ordered = sorted(texts, key=len) if sort else texts
        for start in range(0, len(ordered), WRITE_BATCH):
            batch = ordered[start : start + WRITE_BATCH]
            for text, vector in zip(batch, encode(batch), strict=True):
                vectors[text] = vector
    return [vectors[text] for texts in courses for text in texts]


def _cpu() -> float:
    """This process's CPU seconds so far (every thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Time both methods over the lecture set in alternating rounds; print passages per second, the ratio."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not (DEVSET / "docs").is_dir():
        print(f"Indexing speed: no lecture set at {DEVSET} (set DEVSET_DIR); skipped")
        return
    courses = lecture_texts()
    total = sum(len(texts) for texts in courses)
    embedder = get_embedder()
    embedder.embed_query("warm up")
    model = embedder._load()
    if not hasattr(model, "session"):
        print("Indexing speed: needs the ONNX backend; skipped")
        return
    methods = {
        "main": lambda: index_courses(courses, main_method(model), sort=False),
        "now": lambda: index_courses(courses, lambda texts: model.encode(texts, BATCH_SIZE), sort=True),
    }
    wall: dict[str, float] = dict.fromkeys(methods, 0.0)
    cpu: dict[str, float] = dict.fromkeys(methods, 0.0)
    results = {}
    for round_number in range(ROUNDS):
        names = list(methods) if round_number % 2 == 0 else list(reversed(methods))
        for name in names:
            started, cpu_started = time.perf_counter(), _cpu()
            results[name] = methods[name]()
            wall[name] += time.perf_counter() - started
            cpu[name] += _cpu() - cpu_started
    difference = float(np.max(np.abs(np.array(results["main"]) - np.array(results["now"]))))
    print(f"Indexing speed: {total} lecture-set passages, {ROUNDS} rounds each, alternating")
    print(f"{'method':<8}{'passages/s (wall)':>20}{'passages/s (CPU)':>20}")
    for name in methods:
        print(f"{name:<8}{total * ROUNDS / wall[name]:>20.1f}{total * ROUNDS / cpu[name]:>20.1f}")
    print(f"{'ratio':<8}{wall['main'] / wall['now']:>19.2f}x{cpu['main'] / cpu['now']:>19.2f}x")
    print(f"largest difference between the two methods' vectors: {difference:.1e}")


if __name__ == "__main__":
    main()
