"""Markdown from the model or the course files, rendered to HTML and sanitized on an allow-list."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import markdown as md
import nh3
from markupsafe import Markup, escape

from app.assistant.citations import MARKER
from app.assistant.models import Source
from app.links import LINK_SCHEMES, safe_url

ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote",
    "ul", "ol", "li", "dl", "dt", "dd", "pre", "code", "em", "strong", "del", "a",
    "table", "thead", "tbody", "tr", "th", "td", "sup",
}  # fmt: skip
# The content of these goes too, not just the tags (nh3 keeps the text of other stripped tags).
DROP_WITH_CONTENT = {"script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math"}


# An in-page link, as citation markers point at their source: nothing but a fragment of plain characters.
_FRAGMENT = re.compile(r"#[A-Za-z][A-Za-z0-9_-]{0,63}")


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    """Keep an href only when it is an absolute http/https/mailto URL or an in-page fragment."""
    if attribute == "href":
        # nh3 alone lets every relative URL by.
        return value if _FRAGMENT.fullmatch(value) else safe_url(value)
    return value


_cleaner = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags=DROP_WITH_CONTENT,
    attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "sup": {"class"}},
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
    return sanitize_html(_to_html(text))


# Citation markers ride through the markdown converter as private-use characters it leaves alone.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


def source_anchor(answer: str, number: int) -> str:
    """The id of an answer's `number`-th source in the page; from the answer's text, so a reload keeps it."""
    digest = hashlib.blake2s(answer.encode(), digest_size=5).hexdigest()
    return f"source-{digest}-{number}"


def render_answer(text: str, sources: Sequence[Source]) -> Markup:
    """Render an answer's markdown with each `[^n]` as a numbered link to its source, sanitized.

    A marker whose number has no source (model text imitating one) stays plain text.
    """
    answer = text or ""
    text = answer.replace(_OPEN, "").replace(_CLOSE, "")

    def placeholder(match: re.Match[str]) -> str:
        number = int(match[1])
        return f"{_OPEN}{number}{_CLOSE}" if 1 <= number <= len(sources) else match[0]

    def link(match: re.Match[str]) -> str:
        number = int(match[1])
        title = escape(f"Source {number}: {sources[number - 1].label}")
        anchor = source_anchor(answer, number)
        return f'<sup class="citation"><a href="#{anchor}" title="{title}">{number}</a></sup>'

    html = _PLACEHOLDER.sub(link, _to_html(MARKER.sub(placeholder, text)))
    return sanitize_html(html)


def _to_html(text: str) -> str:
    """Markdown (fenced code, tables, lists as models write them) to unsanitized HTML."""
    # A fresh Markdown per call: the converter keeps state and is not thread-safe.
    return md.markdown(
        separate_lists(text or ""),
        extensions=["fenced_code", "tables", "sane_lists"],
        extension_configs={"tables": {"use_align_attribute": True}},
        output_format="html",
    )
