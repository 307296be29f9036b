"""Decline thresholds fitted on one library's signals and checked on the other's."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from bench.eval_signals import SIGNALS, best_threshold, errors_at
from bench.index_search import print_table


def spread(rows: list[dict[str, Any]], signal: str, covered: bool) -> str:
    """Min / median / max of a signal over content (covered) or no-coverage questions."""
    values = [row[signal] for row in rows if row["covered"] == covered]
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def print_signals(libraries: dict[str, list[dict[str, Any]]], signals: Sequence[str] = SIGNALS) -> None:
    """Per library and signal: its spread, the best cut fitted there, and that cut's errors everywhere."""
    names = list(libraries)
    for fitted in names:
        rows = libraries[fitted]
        table = []
        present = [
            signal for signal in signals if all(signal in row for name in names for row in libraries[name])
        ]
        for signal in present:
            cut, _ = best_threshold(rows, signal)
            checks = []
            for name in names:
                declined, answered = errors_at(libraries[name], signal, cut)
                checks.append(f"{declined} / {answered}")
            table.append(
                (signal, spread(rows, signal, True), spread(rows, signal, False), f"{cut:.3f}", *checks)
            )
        print()
        print_table(
            f"Decline signals on {fitted} (decline below the cut; errors = content declined / "
            "no-coverage answered)",
            (
                "signal",
                "content min/med/max",
                "no-coverage min/med/max",
                "cut",
                *(f"errors on {n}" for n in names),
            ),
            table,
        )
