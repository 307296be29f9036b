"""How a streamed answer travels: each finished block once, the block being written updated in place."""

from __future__ import annotations

import itertools
import re

import pytest

from app.assistant.base import Answer, DoneEvent, TextEvent
from app.web.chat import run as chat_run
from app.web.chat.live import LiveAnswer, close_fence, split_blocks
from app.web.markdown import render_answer, render_markdown
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.web.support import sse_events

PARAGRAPH = (
    "Fixtures set up **what a test needs** and tear it down again afterwards, so each test starts clean. "
    "A fixture is a function marked with `@pytest.fixture`; a test names it as an argument and gets its "
    "value.[^1] Scopes decide how often it runs: once per test, per module or per session. "
)
CODE = '```python\n@pytest.fixture\ndef client(app):\n    """A client."""\n    return app.test_client()\n```'
LIST = (
    "- function scope: a fresh value for every test\n- module scope: shared by one file\n- session scope: one"
)


def six_thousand_characters() -> str:
    """About 6,000 characters of markdown as a model writes it: paragraphs, a list, code, citations."""
    blocks = [PARAGRAPH * 2, LIST, PARAGRAPH, CODE, PARAGRAPH * 2, "## Scopes in practice", PARAGRAPH * 3]
    text = "\n\n".join(blocks * 3)
    return text[: text.rindex("\n\n", 0, 6000)]


def pieces(text: str, size: int = 12) -> list[str]:
    """The text cut into token-sized pieces, as a model streams it."""
    return [text[start : start + size] for start in range(0, len(text), size)]


class Clock:
    """A monotonic clock that moves on by `step` seconds each time it is read: the model's pace."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        """The time, then a step later."""
        self.now += self.step
        return self.now


def test_a_6000_character_answer_streams_in_little_over_three_times_its_html(app, client, monkeypatch):
    text = six_thousand_characters()
    assert 5800 <= len(text) <= 6000
    # 12 characters every 50 ms, about 240 characters a second: a model's pace. The clock is read about once
    # per piece, so the 100 ms cadence updates the page every other piece or so.
    monkeypatch.setattr(chat_run, "clock", Clock(0.05))
    answer = Answer(markdown=text, sources=[FIXTURES_SOURCE])
    events = [TextEvent(piece) for piece in pieces(text)]
    use_answerer(app, ScriptedAnswerer([*events, DoneEvent(answer)]))

    pending = client.post("/ask", data={"question": "How do fixtures work?"}, headers={"HX-Request": "true"})
    url = re.search(r'sse-connect="([^"]+)"', pending.get_data(as_text=True)).group(1).replace("&amp;", "&")
    body = client.get(url).get_data()

    html = len(str(render_answer(text, [FIXTURES_SOURCE], "k")).encode())
    ratio = len(body) / html
    print(f"stream {len(body)} bytes, answer HTML {html} bytes, ratio {ratio:.2f}")
    # Each update carries its event id (a few bytes), so a browser that lost its connection resumes there;
    # a code block being written is re-sent whole as it grows, and highlighted code is mostly markup.
    assert ratio <= 3.75
    # Many updates reached the page, not one at the end.
    assert len(sse_events(body.decode())) > 100


def replay(messages: list[str]) -> str:
    """What the page shows after these messages, applied as the htmx SSE extension would apply them."""
    blocks: dict[int, list[str]] = {0: ["<p></p>"]}  # block number -> [content], as the pending answer has
    order = [0]
    for name, data in (event for message in messages for event in sse_events(message)):
        if name == "block":
            for number, content in re.findall(
                r'<div class="live-block" sse-swap="r(\d+)"[^>]*>(.*)</div>$', data, re.S
            ):
                before = data[: data.index('<div class="live-block"')]
                order.append(-len(order))
                blocks[order[-1]] = [before]
                order.append(int(number))
                blocks[int(number)] = [content]
        elif name.startswith("r"):
            blocks[int(name[1:])] = [data]
        elif name.startswith("a"):
            content = blocks[int(name[1:])][0]
            end = max(content.rfind("</p>"), content.rfind("</code>"))
            blocks[int(name[1:])] = [content[:end] + data + content[end:]]
    html = "".join(blocks[number][0] for number in order)
    return re.sub(r"<(p|div|code) sse-swap[^>]*>", r"<\1>", html).replace("<div>", "").replace("</div>", "")


def squeeze(html: str) -> str:
    """HTML with runs of white space made one space and none between tags, for comparing."""
    return re.sub(r"\s*<", "<", re.sub(r">\s+", ">", re.sub(r"\s+", " ", html)))


@pytest.mark.parametrize("size", [1, 5, 40])
def test_the_page_ends_showing_the_whole_answer_rendered(size):
    text = six_thousand_characters()[:2500] + "\n\n" + CODE[:-3]  # ends inside an open fence
    live, messages = LiveAnswer(), []
    for piece in pieces(text, size):
        live.add(piece)
        messages += live.update()

    shown = replay(messages)

    expected = "".join(str(render_markdown(close_fence(block))) for block in split_blocks(text))
    assert squeeze(shown) == squeeze(expected)
    # The open fence shows as code: its last line is the block's last text.
    assert squeeze(shown).endswith("</code></pre>")
    assert " ".join(re.sub(r"<[^>]+>", "", shown).split()).endswith("return app.test_client()")


def test_blocks_end_at_a_blank_line_outside_code_and_lists_stay_whole():
    text = "One.\n\nTwo:\n\n- a\n\n- b\n\nThree.\n\n```\nx\n\ny\n```\n\nFour"
    # A list item may continue a list above it: a list stays one block, blank lines or not.
    assert split_blocks(text) == [
        "One.\n\n",
        "Two:\n\n",
        "- a\n\n- b\n\n",
        "Three.\n\n",
        "```\nx\n\ny\n```\n\n",
        "Four",
    ]
    assert close_fence("```py\nx = 1") == "```py\nx = 1\n```\n"
    assert close_fence("~~~\nx\n~~~\n") == "~~~\nx\n~~~\n"


def test_a_paragraph_grows_by_appending_only_what_is_new():
    live = LiveAnswer()
    sent = []
    for piece in itertools.chain(["Fixtures set"], [" up state", " for tests."]):
        live.add(piece)
        sent += live.update()
    assert [event for message in sent for event in sse_events(message)] == [
        ("a0", "Fixtures set"),
        ("a0", " up state"),
        ("a0", " for tests."),
    ]
