"""Control characters (NUL, escape, backspace, C1): dropped from every text that enters the app.

PostgreSQL refuses NUL in text and SQLite keeps it, so a question with one would be stored on one and lost on
the other; a terminal obeys an escape sequence printed from a course file. Neither belongs in a question, a
comment, a title, a name or a course's text. Tabs and line breaks are text and stay.
"""

from __future__ import annotations

import re

# C0 without tab, line feed and carriage return; DEL; C1.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Form feed and vertical tab break lines (a PDF's page break); the others carry nothing a reader sees.
_BREAKS = {"\f": "\n", "\v": "\n"}


def has_control_chars(text: str) -> bool:
    """True when the text holds a control character other than a tab or a line break."""
    return _CONTROL.search(text) is not None


def drop_control_chars(text: str) -> str:
    """The text without control characters; form feeds and vertical tabs become line breaks."""
    return _CONTROL.sub(lambda match: _BREAKS.get(match[0], ""), text)
