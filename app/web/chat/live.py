"""A streamed answer shown as it is written, frugally: each markdown block is sent once, the one being
written is updated in place (a paragraph by appending what is new), and an open code fence is closed.

The page's `.prose` starts with an empty live block 0. Messages:
- `block` appends HTML to `.prose`: blocks that finished between two updates, then the next live block;
- `a<n>` appends HTML to live paragraph n; `r<n>` replaces the content of live block n.
"""

from __future__ import annotations

import re

from app.web.markdown import render_markdown
from app.web.sse import sse_message

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# A line that continues the block above it even after a blank line: a list item or an indented line.
_CONTINUES = re.compile(r"^(?:\s|[-*+]\s|\d{1,9}[.)]\s)")
_ONE_PARAGRAPH = re.compile(r"<p>(.*)</p>", re.S)
# htmx settles swapped content at once, so a live block added by one message hears the next message.
SWAP_APPEND = "beforeend settle:0ms"
SWAP_REPLACE = "innerHTML settle:0ms"


def split_blocks(text: str) -> list[str]:
    """Cut markdown where a block ends for good; the last piece is the block still being written.

    A cut falls before a line at the margin that follows a blank line outside a code fence, unless that
    line could continue a list (a list item or an indented line).
    """
    blocks, start, offset, fence, blank = [], 0, 0, "", False
    for line in text.splitlines(keepends=True):
        opener = _FENCE.match(line)
        if not fence and blank and line.strip() and not _CONTINUES.match(line) and offset > start:
            blocks.append(text[start:offset])
            start = offset
        if opener and not fence:
            fence = opener[1][0] * 3
        elif opener and fence and opener[1].startswith(fence):
            fence = ""
        blank = not fence and not line.strip()
        offset += len(line)
    blocks.append(text[start:])
    return blocks


def close_fence(block: str) -> str:
    """The block with a code fence that is still open closed, so partial code shows as code."""
    fence = ""
    for line in block.splitlines():
        opener = _FENCE.match(line)
        if opener and not fence:
            fence = opener[1][0] * 3
        elif opener and fence and opener[1].startswith(fence):
            fence = ""
    return f"{block.rstrip()}\n{fence}\n" if fence else block


def paragraph_html(block: str) -> str | None:
    """The inline HTML of a block that renders as one paragraph; None for any other block."""
    html = str(render_markdown(block)).strip()
    match = _ONE_PARAGRAPH.fullmatch(html)
    return match[1] if match and "<p>" not in match[1] else None


def live_block(number: int, content: str, paragraph: bool) -> str:
    """The element of live block `number`, holding `content` (inline HTML in a paragraph, or block HTML)."""
    inner = live_paragraph(number, content) if paragraph else content
    return f'<div class="live-block" sse-swap="r{number}" hx-swap="{SWAP_REPLACE}">{inner}</div>'


def live_paragraph(number: int, inline: str) -> str:
    """A live paragraph that later pieces are appended to."""
    return f'<p sse-swap="a{number}" hx-swap="{SWAP_APPEND}">{inline}</p>'


class LiveAnswer:
    """The answer's text so far, and the messages that bring the page up to date with it."""

    def __init__(self) -> None:
        self.text = ""
        self._start = 0  # where the live block begins in the text
        self._number = 0  # the live block's number
        self._inline: str | None = ""  # what the live paragraph shows, or None when it is another block

    def add(self, piece: str) -> None:
        """Take the next piece of the answer's text."""
        self.text += piece

    def update(self) -> list[str]:
        """The SSE messages that show the text so far (none when the page shows it already)."""
        blocks = split_blocks(self.text[self._start :])
        messages = self._refresh(blocks[0])
        if len(blocks) > 1:
            messages.append(self._next(blocks[1:-1], blocks[-1]))
            self._start = len(self.text) - len(blocks[-1])
        return messages

    def _refresh(self, block: str) -> list[str]:
        """Messages bringing the live block up to `block`: what is new, or the whole block again."""
        if not block.strip():
            return []
        block = close_fence(block)
        shown, inline = self._inline, paragraph_html(block)
        if inline is not None and shown is not None and inline.startswith(shown):
            self._inline = inline
            new = inline[len(shown) :]
            return [sse_message(f"a{self._number}", new)] if new else []
        self._inline = inline
        if inline is not None:
            return [sse_message(f"r{self._number}", live_paragraph(self._number, inline))]
        return [sse_message(f"r{self._number}", str(render_markdown(block)))]

    def _next(self, finished: list[str], block: str) -> str:
        """The message appending blocks that finished unseen and the next live block."""
        html = "".join(str(render_markdown(item)) for item in finished)
        self._number += 1
        block = close_fence(block)
        self._inline = paragraph_html(block)
        if self._inline is not None:
            return sse_message("block", html + live_block(self._number, self._inline, True))
        return sse_message("block", html + live_block(self._number, str(render_markdown(block)), False))


def first_live_block() -> str:
    """The empty live block the pending answer starts with."""
    return live_block(0, "", True)
