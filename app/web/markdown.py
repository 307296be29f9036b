"""Markdown from the model or the course files, rendered to HTML and sanitized on an allow-list."""

from __future__ import annotations

import re
from collections.abc import Sequence

import markdown as md
import nh3
from markupsafe import Markup, escape

from app.assistant.base import Source
from app.assistant.citations import MARKER
from app.bidi import strip_controls
from app.links import LINK_SCHEMES, safe_url
from app.web.highlight import LANGUAGE_CLASS, highlight_blocks

ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote",
    "ul", "ol", "li", "dl", "dt", "dd", "pre", "code", "em", "strong", "del", "a",
    "table", "thead", "tbody", "tr", "th", "td", "sup", "span",
}  # fmt: skip
# The content of these goes too, not just the tags (nh3 keeps the text of other stripped tags).
DROP_WITH_CONTENT = {"script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math"}


# Citation markers ride through the markdown converter and the sanitizer as private-use characters.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    """Keep an href only when it is an absolute http/https/mailto URL; no marker inside any attribute."""
    # A marker placeholder in an attribute (a URL with `[^1]` in it) stays the literal text it was.
    value = _PLACEHOLDER.sub(lambda match: f"[^{match[1]}]", value)
    if attribute == "class":
        # Only a fenced block's language, for the highlighter: a model's `class="citation"` goes.
        return value if tag == "code" and LANGUAGE_CLASS.fullmatch(value) else None
    if attribute == "href":
        # nh3 alone lets every relative URL by, in-page fragments included: only citation markers (added
        # after sanitizing) link within the page: the model cannot point a link at another answer's sources.
        return safe_url(value)
    return value


# No class attribute but a code block's language: a model's `<sup class="citation">` is a plain superscript.
_cleaner = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags=DROP_WITH_CONTENT,
    attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "code": {"class"}},
    attribute_filter=_filter_attribute,
    url_schemes=set(LINK_SCHEMES),
    link_rel="noopener nofollow",
    strip_comments=True,
)


def sanitize_html(html: str) -> Markup:
    """Strip every tag, attribute and URL that is not on the allow-list, then finish what is left."""
    # The attributes finish_html adds are fixed strings, on tags the cleaner has already rewritten.
    return Markup(finish_html(_cleaner.clean(strip_controls(html))))


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


_ITEM_INDENT = re.compile(r"^( *)([-*+]|\d{1,9}[.)])\s+\S")


def nest_lists(text: str) -> str:
    """Re-indent nested lists to the 4 spaces Python-Markdown needs; models indent by 2 or 3.

    Each list item's depth comes from the indents of the items above it (deeper than its parent: a child),
    and is written back as 4 spaces a level; indented lines inside an item follow their item.
    """
    lines: list[str] = []
    parents: list[int] = []  # the original indent of the item at each open depth
    kinds: list[bool] = []  # whether the list at each open depth is ordered
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        item = None if in_fence else _ITEM_INDENT.match(line)
        if item:
            indent = len(item[1])
            ordered = item[2][0].isdigit()
            while parents and indent < parents[-1]:
                parents.pop()
                kinds.pop()
            if not parents or indent > parents[-1]:
                parents.append(indent)
                kinds.append(ordered)
            elif kinds[-1] != ordered:
                lines.append("")  # a list of the other kind starts a new list, not a lazy line of the last
                kinds[-1] = ordered
            lines.append(" " * 4 * (len(parents) - 1) + line[indent:])
        elif parents and not in_fence and line.startswith(" ") and line.strip():
            indent = len(line) - len(line.lstrip(" "))
            depth = sum(1 for parent in parents if parent < indent)
            lines.append(" " * 4 * depth + line.lstrip(" "))
        else:
            if line.strip() and not line.startswith(" "):
                parents, kinds = [], []  # a paragraph at the margin ends the list
            lines.append(line)
    return "\n".join(lines)


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_BARE_URL = re.compile(r"(?<![(<\[\]\"'=/])\bhttps?://[^\s<>()\[\]`]*[^\s<>()\[\]`.,;:!?'\"]")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")


def inline_extras(text: str) -> str:
    """Link bare URLs and turn ~~text~~ into strikethrough, outside code (fenced blocks and code spans)."""
    lines, in_fence, in_list = [], False, False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        if _ITEM_INDENT.match(line):
            in_list = True
        elif line.strip() and not line.startswith(" "):
            in_list = False
        # Four spaces open a code block, except inside a list, where they nest.
        if in_fence or (line.startswith("    ") and not in_list):
            lines.append(line)
            continue
        pieces, last = [], 0
        for span in _CODE_SPAN.finditer(line):
            pieces += [_extras(line[last : span.start()]), span[0]]
            last = span.end()
        lines.append("".join([*pieces, _extras(line[last:])]))
    return "\n".join(lines)


def _extras(text: str) -> str:
    """Autolink and strike through one stretch of text outside code."""
    return _STRIKE.sub(r"<del>\1</del>", _BARE_URL.sub(r"<\g<0>>", text))


_EXTERNAL_LINK = re.compile(r'<a href="(?=https?:)')
_PRE = re.compile(r"<pre>")
_TABLE = re.compile(r"<table>(.*?)</table>", re.S)


def finish_html(html: str) -> str:
    """Sanitized HTML made usable: outside links open a new tab, wide code and tables scroll by keyboard."""
    html = _EXTERNAL_LINK.sub('<a target="_blank" href="', html)
    html = _PRE.sub('<pre tabindex="0">', html)
    return _TABLE.sub(r'<div class="table-scroll" tabindex="0"><table>\1</table></div>', html)


def render_markdown(text: str) -> Markup:
    """Render markdown (fenced code, tables, nested lists, links) to sanitized HTML, safe to put in a page."""
    return Markup(highlight_blocks(sanitize_html(_to_html(text))))


# Code elements (inline and inside <pre>) and links in rendered HTML, where a marker stays literal text (a
# link inside a link is not one); with a group, so re.split keeps them.
_LITERAL = re.compile(r"(<code[^>]*>.*?</code>|<a\b[^>]*>.*?</a>)", re.DOTALL)


def source_anchor(key: str, number: int) -> str:
    """The page id of the `number`-th source of the exchange rendered under `key` (unique per exchange)."""
    return f"source-{key}-{number}"


PREVIEW_CHARS = 240


def citation_marker(number: int, source: Source, anchor: str) -> str:
    """A citation marker, the only place one is built: a link to its source chip, and a preview of the cited
    text and lesson link that CSS shows while the marker is hovered or focused (no script, no tooltip)."""
    label = escape(source.label)
    link = safe_url(source.link)
    lesson = f'<a href="{escape(link)}">{label}</a>' if link else f"<strong>{label}</strong>"
    snippet = source.snippet if len(source.snippet) <= PREVIEW_CHARS else source.snippet[:PREVIEW_CHARS] + "…"
    text = f'<span class="cite-text">{escape(snippet)}</span>' if snippet else ""
    return (
        f'<sup class="citation"><a href="#{anchor}" aria-label="Source {number}: {label}">{number}</a>'
        f'<span class="cite-preview">{lesson}{text}</span></sup>'
    )


def render_answer(text: str, sources: Sequence[Source], key: str) -> Markup:
    """Render an answer's markdown with each `[^n]` as a numbered link to its source, sanitized.

    Markers are added after sanitizing, so model HTML can never imitate one. `key` is unique per exchange
    (see app.web.templating), so a marker always links within its own exchange. A marker whose number has
    no source (model text imitating one) stays plain text.
    """
    text = (text or "").replace(_OPEN, "").replace(_CLOSE, "")

    def placeholder(match: re.Match[str]) -> str:
        number = int(match[1])
        return f"{_OPEN}{number}{_CLOSE}" if 1 <= number <= len(sources) else match[0]

    def link(match: re.Match[str]) -> str:
        number = int(match[1])
        return citation_marker(number, sources[number - 1], source_anchor(key, number))

    def literal(match: re.Match[str]) -> str:
        return f"[^{match[1]}]"

    # Placeholders are left only in text and code (the attribute filter turns any in an attribute back).
    # A marker in code is code the model quoted, not a citation: it stays as written; so in a link's text.
    pieces = _LITERAL.split(str(sanitize_html(_to_html(MARKER.sub(placeholder, text)))))
    html = "".join(
        _PLACEHOLDER.sub(literal if position % 2 else link, piece) for position, piece in enumerate(pieces)
    )
    # Highlighted last, once code holds its literal markers again.
    return Markup(highlight_blocks(html))


def _to_html(text: str) -> str:
    """Markdown (fenced code, tables, lists as models write them) to unsanitized HTML."""
    # A fresh Markdown per call: the converter keeps state and is not thread-safe.
    return md.markdown(
        inline_extras(nest_lists(separate_lists(text or ""))),
        extensions=["fenced_code", "tables", "sane_lists"],
        extension_configs={"tables": {"use_align_attribute": True}},
        output_format="html",
    )
