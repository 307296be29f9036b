"""Cross-validated figures: a library answered again with the extractive numbers fitted without it.

`python -m bench.fit` writes, beside the values the app uses (fitted on every labelled library), the values
fitted with each library left out. Scoring a library with the values fitted without it says what the fitted
decisions are worth on a library they never saw.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator

from app.assistant.extractive.fitted import FITTED_FILE


def held_out(library: str) -> dict[str, float] | None:
    """The values fitted without `library`; None when the fit did not leave it out, or they are the app's."""
    document = json.loads(FITTED_FILE.read_text(encoding="utf-8"))
    values = document.get("held_out", {}).get(library)
    return values if values and values != document["values"] else None


@contextlib.contextmanager
def fitted_values(values: dict[str, float]) -> Iterator[None]:
    """Every loaded app module's constant named as a fitted value holds `values` meanwhile (a module that
    imported a constant by name holds its own copy, so each is set)."""
    saved: list[tuple[object, str, float]] = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("app.") or module is None:
            continue
        for constant, value in values.items():
            if isinstance(getattr(module, constant, None), float):
                saved.append((module, constant, getattr(module, constant)))
                setattr(module, constant, value)
    try:
        yield
    finally:
        for module, constant, value in saved:
            setattr(module, constant, value)
