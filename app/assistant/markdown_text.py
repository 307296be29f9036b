"""Plain text made safe to put in Markdown: it renders exactly as written (course quotations)."""

from __future__ import annotations

import re

# Characters Markdown reads as syntax anywhere in a line, backslash-escaped (CommonMark and Python-Markdown).
_INLINE = re.compile(r"([\\`*_\[\]{}()!])")
# As entities: what Python-Markdown cannot backslash-escape and reads as HTML, an entity or strikethrough.
_ENTITY_LIKE = re.compile(r"&(?=#|\w+;)")
_ENTITIES = {"<": "&lt;", "~": "&#126;", "|": "&#124;"}
# What starts a heading, list item, quote or rule at the start of a line.
_LINE_START = re.compile(r"^(\s*)([#+>-])", re.MULTILINE)
_NUMBERED = re.compile(r"^(\s*\d+)(?=[.)])", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """`text` escaped so Markdown shows every character of it as written, none of it as formatting."""
    text = _ENTITY_LIKE.sub("&amp;", text)
    text = "".join(_ENTITIES.get(character, character) for character in text)
    text = _INLINE.sub(r"\\\1", text)
    return _NUMBERED.sub(r"\1\\", _LINE_START.sub(r"\1\\\2", text))
