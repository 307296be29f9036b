"""The extractive answerer's fitted numbers, read once from fitted.json (written by `python -m bench.fit`).

Each number is named as the constant that holds it; fitted.md beside the file reports how it was fitted and
what it scores on the library it was not fitted on.
"""

from __future__ import annotations

import json
from pathlib import Path

FITTED_FILE = Path(__file__).with_name("fitted.json")
_VALUES: dict[str, float] = json.loads(FITTED_FILE.read_text(encoding="utf-8"))["values"]


def fitted(name: str) -> float:
    """The fitted value of the constant `name`."""
    return _VALUES[name]
