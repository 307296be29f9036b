"""Indexing speed on the lecture set: passages embedded per second, 4c6f331's method against today's, one run.

A fresh index spends nearly all its time in the encoder (a profile of syncing the lecture set: 97% in
onnxruntime's run, 1% in ChromaDB writes, under 1% tokenizing), so this measures the encoder path a sync
takes, on the export's two graphs loaded once, in alternating rounds so all see the same machine load:

- 4c6f331: the float graph, each course's chunks in file order, write batches of 64, encoder batches of 16
  padded to the longest text of the batch, the memory arena shrunk after every batch;
- fp32 sorted: the float graph, each course's chunks sorted by length (IndexWriter), so every batch pads to
  little more than its own texts, the arena shrunk once per write batch (OnnxSentenceModel.encode);
- int8 (served): the served graph, whose MatMul weights are int8 (export.py), one text per run
  (OnnxSentenceModel.batch_limit: a quantized batch would make each vector depend on its neighbours).

Wall time and this process's CPU time are both shown, with each method's ratio to 4c6f331's: on a shared
machine the CPU time is the steadier figure. The served vectors are compared with the float ones (cosine).
`python -m bench.index_speed` (part of `make bench`); INDEX_SPEED_EVERY=n keeps every n-th chunk, for a
quick look; INDEX_SPEED_ROUNDS=n sets the rounds (2).
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
from app.search.embedding.layout import FLOAT_MODEL_FILE, INPUTS, export_folder, resolve_model_path
from app.search.embedding.model import BATCH_SIZE, get_embedder
from app.search.embedding.onnx import OnnxSentenceModel
from app.search.writer import WRITE_BATCH

# The lecture set's TXT documents, as the repository holds them for `make eval` (DEVSET_DIR: another copy).
DEVSET = Path(os.environ.get("DEVSET_DIR", Path(__file__).resolve().parents[1] / "eval" / "lectures"))
ROUNDS = int(os.environ.get("INDEX_SPEED_ROUNDS", "2"))
EVERY = int(os.environ.get("INDEX_SPEED_EVERY", "1"))


def lecture_texts() -> list[list[str]]:
    """The embedding texts of each lecture-set course's chunks, in file order."""
    courses = []
    for path in sorted((DEVSET / "docs").glob("*.txt")):
        chunks = chunk_course(parse_file(path))
        courses.append([chunk.embedding_text for chunk in chunks][::EVERY])
    return courses


def first_method(model) -> Callable[[list[str]], np.ndarray]:
    """4c6f331's encoder path: batches in the order given, each padded to its longest, arena shrunk each
    time."""
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


def sorted_method(model: OnnxSentenceModel) -> Callable[[list[str]], np.ndarray]:
    """Today's encoder path (the texts come sorted by length): one tokenization, batches padded to their own
    longest text, the arena shrunk once per call."""
    return lambda texts: model.encode(texts, BATCH_SIZE)


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
    """Time the methods over the lecture set in alternating rounds; print passages per second, the ratios."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not (DEVSET / "docs").is_dir():
        print(f"Indexing speed: no lecture set at {DEVSET} (set DEVSET_DIR); skipped")
        return
    courses = lecture_texts()
    total = sum(len(texts) for texts in courses)
    embedder = get_embedder()
    embedder.embed_query("warm up")
    served = embedder._load()
    if not isinstance(served, OnnxSentenceModel):
        print("Indexing speed: needs the ONNX backend; skipped")
        return
    folder = export_folder(resolve_model_path(embedder.name), embedder.cache_dir)
    floats = OnnxSentenceModel(folder, FLOAT_MODEL_FILE)
    methods = {
        "4c6f331": lambda: index_courses(courses, first_method(floats), sort=False),
        "fp32 sorted": lambda: index_courses(
            courses, lambda texts: floats.encode(texts, BATCH_SIZE), sort=True
        ),
        "int8": lambda: index_courses(courses, lambda texts: served.encode(texts, BATCH_SIZE), sort=True),
    }
    wall, cpu, results = time_methods(methods)
    print(f"Indexing speed: {total} lecture-set passages, {ROUNDS} rounds each, alternating")
    print(f"{'method':<13}{'passages/s wall':>16}{'CPU':>8}{'ratio wall':>12}{'CPU':>8}")
    for name in methods:
        print(
            f"{name:<13}{total * ROUNDS / wall[name]:>16.1f}{total * ROUNDS / cpu[name]:>8.1f}"
            f"{wall['4c6f331'] / wall[name]:>11.2f}x{cpu['4c6f331'] / cpu[name]:>7.2f}x"
        )
    same = float(np.max(np.abs(np.array(results["4c6f331"]) - np.array(results["fp32 sorted"]))))
    cosine = np.sum(np.array(results["int8"]) * np.array(results["fp32 sorted"]), axis=1)
    print(f"float vectors of the two batchings differ by at most {same:.1e}")
    print(f"int8 against float vectors: cosine min {cosine.min():.3f}, mean {cosine.mean():.4f}")


def time_methods(methods: dict[str, Callable[[], list]]) -> tuple[dict, dict, dict]:
    """Run each method ROUNDS times, in an order that turns round each round; wall and CPU seconds."""
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
    return wall, cpu, results


if __name__ == "__main__":
    main()
