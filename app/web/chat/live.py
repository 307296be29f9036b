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
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])\s")
# A block that grows by appending: one paragraph, or one code block (group 1 the tag, 2 the content).
_GROWING = re.compile(r'<(p)>(.*)</p>|<pre tabindex="0"><(code)>(.*)</code></pre>', re.S)
# Inline markdown whose HTML changes once it closes: held back until it does, so a paragraph only grows.
_OPENERS = ("`", "**", "~~")
_OPEN_LINK = re.compile(r"\[[^\]]*$|\[[^\]]*\]\([^)]*$|<[^>]*$|https?://\S*$")
# htmx settles swapped content at once, so a live block added by one message hears the next message.
SWAP_APPEND = "beforeend settle:0ms"
SWAP_REPLACE = "innerHTML settle:0ms"


def split_blocks(text: str) -> list[str]:
    """Cut markdown where a block ends for good; the last piece is the block still being written.

    A cut falls before a line at the margin that follows a blank line outside a code fence, unless that
    line may continue a list above it (a list item after a list) or is indented.
    """
    blocks, start, offset, fence, blank, in_list = [], 0, 0, "", False, False
    for line in text.splitlines(keepends=True):
        opener = _FENCE.match(line)
        item = _LIST_ITEM.match(line)
        if not fence and blank and line.strip() and not line[0].isspace() and not (in_list and item):
            blocks.append(text[start:offset])
            start = offset
        if opener and not fence:
            fence = opener[1][0] * 3
        elif opener and fence and opener[1].startswith(fence):
            fence = ""
        if not fence and line.strip() and not line[0].isspace():
            in_list = item is not None
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


def hold_back(block: str) -> str:
    """The block up to its first inline construct still open (code span, bold, strike, link, URL)."""
    cut = len(block)
    for opener in _OPENERS:
        if block.count(opener) % 2:
            cut = min(cut, block.rindex(opener))
    link = _OPEN_LINK.search(block)
    if link:
        cut = min(cut, link.start())
    return block[:cut]


def growing_html(block: str) -> tuple[str, str] | None:
    """("p" or "code", inner HTML) for a block that renders as one paragraph or one code block, else None."""
    html = str(render_markdown(block)).strip()
    match = _GROWING.fullmatch(html)
    if match is None:
        return None
    tag, inner = (match[1], match[2]) if match[1] else (match[3], match[4])
    if tag == "p" and "<p>" in inner or tag == "code" and "<code>" in inner:
        return None
    # A code block's last newline comes and goes as lines are written; a paragraph's spaces are trimmed.
    return tag, inner.rstrip("\n")


def live_block(number: int, content: str | tuple[str, str]) -> str:
    """The element of live block `number`: block HTML, or a growing block (tag, inner HTML)."""
    inner = growing_element(number, *content) if isinstance(content, tuple) else content
    return f'<div class="live-block" sse-swap="r{number}" hx-swap="{SWAP_REPLACE}">{inner}</div>'


def growing_element(number: int, tag: str, inner: str) -> str:
    """A paragraph or code block that later pieces are appended to (message a<number>)."""
    element = f'<{tag} sse-swap="a{number}" hx-swap="{SWAP_APPEND}">{inner}</{tag}>'
    return f'<pre tabindex="0">{element}</pre>' if tag == "code" else element


class LiveAnswer:
    """The answer's text so far, and the messages that bring the page up to date with it."""

    def __init__(self) -> None:
        self.text = ""
        self._start = 0  # where the live block begins in the text
        self._number = 0  # the live block's number
        self._shown: tuple[str, str] | None = ("p", "")  # what a growing live block shows (tag, inner HTML)

    def add(self, piece: str) -> None:
        """Take the next piece of the answer's text."""
        self.text += piece

    def update(self) -> list[str]:
        """The SSE messages that show the text so far (none when the page shows it already)."""
        blocks = split_blocks(self.text[self._start :])
        if len(blocks) == 1:
            return self._refresh(blocks[0], finished=False)
        messages = self._refresh(blocks[0], finished=True)
        messages.append(self._next(blocks[1:-1], blocks[-1]))
        self._start = len(self.text) - len(blocks[-1])
        return messages

    def _refresh(self, block: str, finished: bool) -> list[str]:
        """Messages bringing the live block up to `block`: what is new, or the whole block again."""
        if not block.strip():
            return []
        shown, grown = self._shown, self._render(block, finished)
        if grown is None:
            return []
        self._shown = grown if isinstance(grown, tuple) else None
        if (
            isinstance(grown, tuple)
            and shown is not None
            and grown[0] == shown[0]
            and grown[1].startswith(shown[1])
        ):
            new = grown[1][len(shown[1]) :]
            return [sse_message(f"a{self._number}", new)] if new else []
        content = growing_element(self._number, *grown) if isinstance(grown, tuple) else grown
        return [sse_message(f"r{self._number}", content)]

    def _next(self, finished: list[str], block: str) -> str:
        """The message appending blocks that finished unseen and the next live block."""
        html = "".join(str(render_markdown(item)) for item in finished)
        self._number += 1
        content = self._render(block, finished=False) or ("p", "")
        self._shown = content if isinstance(content, tuple) else None
        return sse_message("block", html + live_block(self._number, content))

    @staticmethod
    def _render(block: str, finished: bool) -> str | tuple[str, str] | None:
        """A block as it shows now: growing (tag, inner HTML) when it can, else its HTML; None for nothing."""
        if not finished and not _FENCE.match(block):
            block = hold_back(block)
            if not block.strip():
                return None
        block = close_fence(block)
        return growing_html(block) or str(render_markdown(block))


def first_live_block() -> str:
    """The empty live block the pending answer starts with."""
    return live_block(0, ("p", ""))
