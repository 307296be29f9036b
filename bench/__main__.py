"""Run every benchmark: index and search timings, then the /ask latency when that bench exists."""

from __future__ import annotations

import importlib
import importlib.util

from bench import index_search


def main() -> None:
    """Run bench/index_search.py, then bench/ask_latency.py if present."""
    index_search.main()
    if importlib.util.find_spec("bench.ask_latency") is not None:
        print()
        importlib.import_module("bench.ask_latency").main()


if __name__ == "__main__":
    main()
