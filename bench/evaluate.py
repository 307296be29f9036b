"""`make eval`: each labelled library indexed once, scored for search and extractive answers, per ranking.

python -m bench.evaluate                       # both libraries, both rankings
python -m bench.evaluate --library lectures    # one library (sample or lectures)
python -m bench.evaluate --search-only         # skip the extractive answers
python -m bench.evaluate --json out.json       # also write every question's results
python -m bench.evaluate --compare before.json after.json   # two builds, question by question
python -m bench.evaluate --library lectures --captions       # the lecture set indexed from its captions
python -m bench.evaluate --reranker PATH       # with a cross-encoder reranking stage (or RERANKER_MODEL)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.config import load_settings
from app.search.rerank import RERANK_CANDIDATES
from bench.eval_compare import compare
from bench.eval_crossval import fitted_values, held_out
from bench.eval_questions import (
    CONTENT_KINDS,
    LECTURES,
    REWORDED,
    ROOT,
    SAMPLE_REWORDED,
    Question,
    flat,
    load_lectures,
    load_questions,
)
from bench.eval_report import by_kind, kind_groups, print_answers, print_headline, print_paired, print_search
from bench.eval_saved import run_saved_cases  # the playground's saved cases, from the app's database
from bench.eval_scoring import Run, evaluate
from bench.eval_signals import Bm25, decline_rows
from bench.eval_threshold import print_signals

__all__ = ["CONTENT_KINDS", "Question", "evaluate", "flat", "load_questions", "main"]

# The rankings compared on the same index and questions: the configured hybrid one and meaning alone.
MODES = {"hybrid": True, "dense": False}
# The hybrid ranking answered with the extractive numbers fitted without the library (`bench.fit`).
CROSS = "hybrid, fitted elsewhere"


@dataclass(frozen=True)
class Library:
    """A labelled library: its course files and its questions."""

    docs: Path
    questions: Callable[[], list[Question]]
    index: str | None = None  # the library whose kept index it shares (the same course files)


LIBRARIES = {
    "sample": Library(ROOT / "docs", load_questions),
    "lectures": Library(LECTURES / "docs", load_lectures),
    # The lecture set's questions reworded by the team: a check of wording, not a quality figure (its README).
    "reworded": Library(LECTURES / "docs", lambda: load_lectures(REWORDED), index="lectures"),
    # The sample library's questions reworded the same way, over the sample's course files and kept index.
    "sample-reworded": Library(ROOT / "docs", lambda: load_questions(SAMPLE_REWORDED), index="sample"),
}
# What `make eval` scores unless asked for a library by name.
DEFAULT_LIBRARIES = ("sample", "lectures")


def app_config(root: Path, docs: Path, hybrid: bool, reranker: str | None = None) -> dict[str, Any]:
    """Settings for a private index under `root` over `docs`, extractive (no API key); RERANKER_MODEL
    from the environment unless `reranker` names one."""
    return {
        **({"RERANKER_MODEL": reranker} if reranker else {}),
        "DOCS_DIR": str(docs),
        "INSTANCE_PATH": str(root),
        "CHROMA_PATH": str(root / "chroma"),
        "CHROMA_HOST": None,
        "ANTHROPIC_API_KEY": None,
        "SECRET_KEY": "eval",
        "HYBRID_SEARCH": hybrid,
    }


def run_library(
    name: str,
    library: Library,
    answers: bool,
    modes: list[str],
    index_dir: Path | None = None,
    reranker: str | None = None,
) -> dict[str, Any]:
    """Index one library once (into a temporary folder, or `index_dir` kept between runs), then score each
    ranking over its questions."""
    from app import create_app
    from app.services import services

    questions = library.questions()
    runs: dict[str, Run] = {}
    with contextlib.ExitStack() as stack:
        if index_dir is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"eval-{name}-"))
        else:
            tmp = str(index_dir / (library.index or name))
        started = time.perf_counter()
        built = create_app(app_config(Path(tmp), library.docs, hybrid=True))
        with built.app_context():
            # A kept index syncs like any other: files whose bytes did not change are not parsed again.
            services().indexer.sync(rebuild=index_dir is None)
            settings = services().settings
        index_seconds = time.perf_counter() - started
        for mode in modes:
            with create_app(app_config(Path(tmp), library.docs, MODES[mode], reranker)).app_context():
                index = services().index
                # Each ranking embeds its questions afresh: fair timings.
                index.embedder.embed_query.cache_clear()
                runs[mode] = evaluate(index, services().assistant, questions, answers=answers)
                if reranker and not index.searcher.reranker.enabled:
                    raise SystemExit(f"The reranker {reranker} failed (see the log above): no figures.")
        values = held_out(library.index or name) if answers and "hybrid" in runs else None
        if values is not None:
            # The extractive numbers fitted without this library (`bench.fit`): its cross-validated figures.
            with (
                create_app(app_config(Path(tmp), library.docs, True, reranker)).app_context(),
                fitted_values(values),
            ):
                runs[CROSS] = evaluate(services().index, services().assistant, questions, answers=True)
        if name == "sample":  # the playground's saved cases ask about the app's own docs/
            with create_app(app_config(Path(tmp), library.docs, True, reranker)).app_context():
                run_saved_cases(services().index)
    bm25 = Bm25(library.docs, settings.chunk_size, settings.chunk_overlap)
    report(name, questions, runs, index_seconds, library.index or name)
    cross = runs.pop(CROSS, None)
    return {
        "index_seconds": round(index_seconds, 1),
        "runs": {mode: run.as_json() for mode, run in runs.items()},
        "cross_validated": cross.as_json() if cross else None,
        "signals": decline_rows(questions, runs, bm25),
    }


def report(
    name: str, questions: list[Question], runs: dict[str, Run], index_seconds: float, fold: str
) -> None:
    """Print one library's tables: headline figures (and those with numbers fitted without the `fold`
    library), per-kind detail, hybrid against dense."""
    print(f"\n##### {name}: {len(questions)} questions, indexed in {index_seconds:.1f} s")
    print_headline(name, questions, runs)
    if CROSS in runs:
        print(f"  ({CROSS}: answered with the numbers `python -m bench.fit` fitted without {fold})")
    kinds = list(dict.fromkeys(question.kind for question in questions))
    searched = by_kind([q for q in questions if q.searched], [k for k in kinds if k not in ("outline",)])
    for mode, run in [(mode, run) for mode, run in runs.items() if mode in MODES]:
        print()
        print_search(mode, run, searched)
        if run.verdicts:
            print_answers(mode, run, by_kind(questions, kinds))
    if "hybrid" in runs and "dense" in runs:
        print()
        print_paired({mode: runs[mode] for mode in MODES}, kind_groups(runs["hybrid"]))
    if CROSS in runs:
        print()
        print_paired({CROSS: runs[CROSS], "hybrid": runs["hybrid"]}, kind_groups(runs["hybrid"]))


def commit() -> str:
    """The checked-out commit, to label a `--json` file."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> None:
    """Score the chosen libraries, or compare two `--json` files."""
    parser = argparse.ArgumentParser(prog="python -m bench.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=sorted(LIBRARIES), action="append", help="only this library")
    parser.add_argument("--search-only", action="store_true", help="skip the extractive answers")
    parser.add_argument("--ranking", choices=list(MODES), help="score one ranking only")
    parser.add_argument("--json", type=Path, help="write every question's results to this file")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument(
        "--captions",
        action="store_true",
        help="index the lecture set from its WebVTT caption files (captioned course folders written by "
        "bench.lecture_captions from DEVSET_DIR) instead of its TXT documents",
    )
    parser.add_argument(
        "--reranker",
        metavar="PATH",
        help="rerank each search's best candidates with this cross-encoder (a folder or a cached model "
        "name; default: RERANKER_MODEL)",
    )
    parser.add_argument(
        "--index-dir",
        type=Path,
        help="keep each library's index here between runs (only while parsing, chunking and embedding "
        "are unchanged: a kept index is not rebuilt)",
    )
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.compare)
        return
    started = time.perf_counter()
    libraries = dict(LIBRARIES)
    captions = tempfile.TemporaryDirectory(prefix="eval-captions-")
    if args.captions:
        from bench.lecture_captions import write_caption_library

        write_caption_library(Path(captions.name))
        libraries["lectures"] = Library(Path(captions.name), load_lectures)
        # A kept index of the captions lives apart from the TXT version's.
        args.index_dir = args.index_dir and args.index_dir / "captions"
    reranker = args.reranker or load_settings().reranker_model
    if reranker:
        print(f"Reranking each search's best {RERANK_CANDIDATES} candidates with the cross-encoder", reranker)
    results = {
        name: run_library(
            name,
            libraries[name],
            not args.search_only,
            [args.ranking] if args.ranking else list(MODES),
            args.index_dir,
            reranker,
        )
        for name in args.library or DEFAULT_LIBRARIES
    }
    captions.cleanup()
    print_signals({name: result["signals"] for name, result in results.items()})
    wall = time.perf_counter() - started
    builds = ", ".join(f"{name} indexed in {result['index_seconds']} s" for name, result in results.items())
    print(f"\nEval wall time: {wall:.0f} s ({builds})")
    if args.json:
        data = {"commit": commit(), "wall_seconds": round(wall, 1), "reranker": reranker}
        data["libraries"] = results
        args.json.write_text(json.dumps(data, indent=1), encoding="utf-8")
        print(f"Per-question results written to {args.json}")


if __name__ == "__main__":
    main()
