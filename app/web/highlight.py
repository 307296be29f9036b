"""Server-side syntax highlighting of sanitized code blocks with Pygments: spans with token classes only."""

from __future__ import annotations

import html
import re

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

# A fenced block's language, as Python-Markdown's fenced_code writes it and the sanitizer lets it through.
LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9_+#.-]{1,40}")
# A code block as the sanitizer leaves it: the language class is the only attribute a <code> may keep.
_BLOCK = re.compile(r'<pre tabindex="0"><code class="language-([^"]+)">(.*?)</code></pre>', re.DOTALL)
# Token classes only (Pygments' short names: "k", "s2", "nf"); no wrapping <div>/<pre>, ours stays.
_FORMATTER = HtmlFormatter(nowrap=True)
# Past this a block is shown plain: highlighting is a nicety, not worth a slow page.
MAX_HIGHLIGHT_CHARS = 20_000


def highlight_blocks(sanitized: str) -> str:
    """Colour each code block that names a language Pygments knows; others stay plain (class removed)."""
    return _BLOCK.sub(_highlighted, sanitized)


def _highlighted(match: re.Match[str]) -> str:
    """One block, its escaped text re-read and highlighted (Pygments escapes what it writes)."""
    language, escaped = match[1], match[2]
    lexer = _lexer(language)
    if lexer is None or len(escaped) > MAX_HIGHLIGHT_CHARS:
        return f'<pre tabindex="0"><code>{escaped}</code></pre>'
    coloured = highlight(html.unescape(escaped), lexer, _FORMATTER).rstrip("\n")
    return f'<pre tabindex="0"><code class="highlight">{coloured}</code></pre>'


def _lexer(language: str) -> Lexer | None:
    """The lexer for a fence's language name or alias (None when Pygments knows none)."""
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
