"""Markdown from the model or the course files, rendered to HTML and sanitized on an allow-list."""

from __future__ import annotations

import re

import markdown as md
import nh3
from markupsafe import Markup

from app.links import LINK_SCHEMES, safe_url

ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote",
    "ul", "ol", "li", "dl", "dt", "dd", "pre", "code", "em", "strong", "del", "a",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
# The content of these goes too, not just the tags (nh3 keeps the text of other stripped tags).
DROP_WITH_CONTENT = {"script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math"}


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    """Keep an href only when it is an absolute http/https/mailto URL (nh3 alone lets relative URLs by)."""
    if attribute == "href":
        return safe_url(value)
    return value


_cleaner = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags=DROP_WITH_CONTENT,
    attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}},
    attribute_filter=_filter_attribute,
    url_schemes=set(LINK_SCHEMES),
    link_rel="noopener nofollow",
    strip_comments=True,
)


def sanitize_html(html: str) -> Markup:
    """Strip every tag, attribute and URL that is not on the allow-list."""
    return Markup(_cleaner.clean(html))


_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\S")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def separate_lists(text: str) -> str:
    """Put a blank line before a list that follows a paragraph line, as models (CommonMark) write them."""
    lines, in_fence, previous = [], False, ""
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        elif (
            not in_fence
            and _LIST_ITEM.match(line)
            and previous.strip()
            and not _LIST_ITEM.match(previous)
            and not previous.startswith((" ", "\t"))  # an indented line belongs to a list item already
        ):
            lines.append("")
        lines.append(line)
        previous = line
    return "\n".join(lines)


def render_markdown(text: str) -> Markup:
    """Render markdown (fenced code, tables) to sanitized HTML, safe to put in a page."""
    # A fresh Markdown per call: the converter keeps state and is not thread-safe.
    html = md.markdown(
        separate_lists(text or ""),
        extensions=["fenced_code", "tables", "sane_lists"],
        extension_configs={"tables": {"use_align_attribute": True}},
        output_format="html",
    )
    return sanitize_html(html)
