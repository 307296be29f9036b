"""`python -m bench.evaluate --compare before.json after.json`: two builds, question by question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.eval_report import kind_groups, print_paired
from bench.eval_scoring import Result, Run


def load_runs(path: Path) -> dict[str, dict[str, Run]]:
    """The runs a `--json` file holds, by library and ranking."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        library: {
            mode: Run({key: Result(**value) for key, value in results.items()})
            for mode, results in entry["runs"].items()
        }
        for library, entry in data["libraries"].items()
    }


def changes(before: Run, after: Run) -> list[str]:
    """One line per question whose strict rank or verdict moved."""
    lines = []
    for key, old in before.results.items():
        new = after.results.get(key)
        if new is None:
            continue
        moved = []
        if old.searched and old.strict != new.strict:
            moved.append(f"strict {old.strict} -> {new.strict}")
        if old.verdict != new.verdict:
            moved.append(f"answer {old.verdict} -> {new.verdict}")
        if moved:
            lines.append(f"    {key} ({old.kind}): {', '.join(moved)}")
    return lines


def compare(before_path: Path, after_path: Path) -> None:
    """Print paired counts (after against before) per library and ranking, and the questions that moved."""
    before, after = load_runs(before_path), load_runs(after_path)
    for library in [name for name in before if name in after]:
        for mode in [name for name in before[library] if name in after[library]]:
            runs: dict[str, Any] = {"after": after[library][mode], "before": before[library][mode]}
            print_paired(
                runs,
                kind_groups(before[library][mode]),
                f"== {library} ({mode}): {after_path.name} against {before_path.name} "
                "(better / worse / same, per question)",
            )
            print("\n".join(changes(before[library][mode], after[library][mode])) or "    no question moved")
            print()
