"""Course text put into an answer's Markdown renders exactly as written."""

from __future__ import annotations

import html
import re

import pytest

from app.assistant.markdown_text import escape_markdown
from app.web.markdown import render_markdown

WRITTEN = [
    "Create the app with app = Flask(__name__) first.",
    "Pass *args and **kwargs along; x_y_z stays one name.",
    "# a hash at the start is not a heading",
    "1. a number at the start is not a list",
    "- nor is a dash, + a plus or > a quote",
    "a <b>tag</b> is text, & so is &amp; and ~~this~~ | that",
    "`ticks`, [brackets](parens), a note[^1] and a back\\slash",
    "See https://example.com/a_b_c for more.",
]


@pytest.mark.parametrize("text", WRITTEN)
def test_escaped_text_renders_as_written(text):
    rendered = str(render_markdown(escape_markdown(text)))
    assert not re.search(r"<(strong|em|code|h\d|li|blockquote|del|b)\b", rendered), rendered
    assert html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == text
