"""An answer as the export carries it: what the page shows (sanitized HTML), written back as Markdown."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from app.store.export import no_tags
from app.web.markdown import render_markdown

# Characters a link's URL keeps as they are; the rest (brackets, spaces, quotes, angle brackets) are
# percent-encoded, so a URL can never close its Markdown link and open raw HTML after it.
_URL_SAFE = ":/?#@!$&'*+,;=%~-._"


def safe_answer_markdown(text: str) -> str:
    """The answer's Markdown rendered and sanitized as on the page, then back to Markdown: no raw HTML, only
    absolute http(s) and mailto links; a citation marker stays `[^n]`."""
    from markdownify import MarkdownConverter  # only exports need it

    class _Converter(MarkdownConverter):
        """Markdown whose text escapes what a viewer would read as HTML.

        `escape` and `convert_a` are markdownify's documented extension points; its stub declares neither.
        """

        def escape(self, text: str, parent_tags: Any) -> str:
            return no_tags(super().escape(text, parent_tags))  # type: ignore[misc]

        def convert_a(self, el: Any, text: str, parent_tags: Any) -> str:
            el["href"] = quote(el.get("href") or "", safe=_URL_SAFE) if el.get("href") else None
            return str(super().convert_a(el, text, parent_tags))  # type: ignore[misc]

    html = str(render_markdown(text))
    return str(_Converter(heading_style="ATX", bullets="-", escape_underscores=False).convert(html)).strip()
