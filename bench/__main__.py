"""Run every benchmark: index and search, POST /ask, streamed answers, upload until searchable, growth."""

from __future__ import annotations

from bench import ask_latency, growth, index_search, stream_latency, upload_index


def main() -> None:
    """Run each benchmark in turn, a blank line between their tables."""
    for bench in (index_search, ask_latency, stream_latency, upload_index, growth):
        bench.main()
        print()


if __name__ == "__main__":
    main()
