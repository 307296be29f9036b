"""Run every benchmark: index and search, /ask, streaming, database writes, upload, cold start, memory,
load, growth."""

from __future__ import annotations

from bench import (
    ask_latency,
    cold_start,
    growth,
    index_search,
    index_speed,
    load,
    store_latency,
    stream_latency,
    upload_index,
    worker_memory,
)


def main() -> None:
    """Run each benchmark in turn, a blank line between their tables."""
    for bench in (
        index_search,
        index_speed,
        ask_latency,
        stream_latency,
        store_latency,
        upload_index,
        cold_start,
        worker_memory,
        load,
        growth,
    ):
        bench.main()
        print()


if __name__ == "__main__":
    main()
