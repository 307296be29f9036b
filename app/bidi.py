"""Unicode bidi controls: neutralized wherever text is shown (pages, JSON, the terminal, exports).

An embedding, override or isolate control (U+202A–U+202E, U+2066–U+2069) reorders the characters after it:
"invoice‮txt.exe" reads as "invoiceexe.txt". The marks U+200E/U+200F only nudge direction, but in a name or a
URL they serve the same trick.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
MARKS = "\u200e\u200f"
_DROP_CONTROLS = dict.fromkeys(map(ord, CONTROLS))
_DROP_ALL = dict.fromkeys(map(ord, CONTROLS + MARKS))


def has_bidi(text: str) -> bool:
    """True when the text holds any bidi control or mark."""
    return any(char in text for char in CONTROLS + MARKS)


def strip_controls(text: str) -> str:
    """The text without embedding, override and isolate controls (prose keeps its direction marks)."""
    return text.translate(_DROP_CONTROLS)


def strip_all(text: str) -> str:
    """The text without any bidi control or mark, as a name or a link must be."""
    return text.translate(_DROP_ALL)


# JSON fields that hold prose (an answer, a passage, a streamed piece): they keep their direction marks.
PROSE_FIELDS = frozenset({"answer", "text", "snippet"})


def neutralize(value: Any, field: str | None = None) -> Any:
    """A JSON value whose strings lost every bidi control, and their marks too unless they are prose."""
    if isinstance(value, str):
        return strip_controls(value) if field in PROSE_FIELDS else strip_all(value)
    if isinstance(value, dict):
        return {key: neutralize(item, key) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [neutralize(item, field) for item in value]
    return value


def finalize(value: Any) -> Any:
    """Jinja's finalize: every printed plain string (names, titles, snippets, URLs) loses every bidi control,
    and sanitized HTML (an answer's prose) its controls; None prints as nothing, as Jinja does by default."""
    if value is None:
        return ""
    if isinstance(value, Markup):
        return Markup(strip_controls(str(value)))
    if isinstance(value, str):
        return strip_all(value)
    return value
