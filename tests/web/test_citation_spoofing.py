"""Citations cannot be spoofed: only citation blocks make markers, model HTML imitates none, ids unique."""

from __future__ import annotations

import re

from app.assistant.citations import MARKER, search_result_block
from app.web.markdown import render_answer, render_markdown
from tests.web.support import SEARCH_TOOL, ask_streamed, page_url
from tests.web.test_citations import KEY, markers, source

RAG = "Retrieval-Augmented Generation in Practice"


def test_a_model_typed_marker_is_text_not_a_citation(claude_app, fake_claude):
    toolbox = claude_app.extensions["services"].assistant.toolbox
    [rag, *_] = [search_result_block(p) for p in toolbox.search("chunking", "RAG", 2).passages]
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "chunking", "course_name": "RAG", "lesson_number": 2})
    fake_claude.enqueue_cited(
        "I made this up.[^1] ", ("Chunks keep sentences.", [fake_claude.citation(rag, 0)])
    )
    streamed = ask_streamed(claude_app.test_client(), "Chunks?")
    assert [number for _, number in markers(streamed.done)] == ["1"]
    assert "I made this up.[^1]" in streamed.done


def test_model_html_imitating_a_marker_does_not_survive_sanitizing():
    forged = '<sup class="citation"><a href="#source-abc123-1" title="Source 1">1</a></sup>'
    for html in (render_answer(f"Look {forged}", [source(1)], KEY), render_markdown(f"Look {forged}")):
        assert 'class="citation"' not in html and 'href="#' not in html
        assert markers(html) == []


def test_a_marker_typed_into_a_link_url_stays_inside_the_url():
    html = str(render_answer("See <https://example.com/a[^1]b> now.[^1]", [source(1)], KEY))
    assert len(markers(html)) == 1
    assert not re.search(r'href="[^"]*<sup', html)


def test_identical_answers_get_different_source_ids(claude_app, fake_claude):
    client = claude_app.test_client()
    toolbox = claude_app.extensions["services"].assistant.toolbox
    rag = [search_result_block(p) for p in toolbox.search("chunking", "RAG", 2).passages]
    for _ in range(2):
        fake_claude.enqueue_tool_use(
            SEARCH_TOOL, {"query": "chunking", "course_name": "RAG", "lesson_number": 2}
        )
        fake_claude.enqueue_cited(("Chunks keep whole sentences.", [fake_claude.citation(rag[0], 0)]))
        first = ask_streamed(client, "Chunks?")
    page = client.get(page_url(client)).get_data(as_text=True)  # the conversation both answers are in
    ids = re.findall(r'<li class="source-chip" id="(source-[^"]+)">', page)
    assert len(ids) == len(set(ids)) >= 2
    targets = [target for target, _ in markers(page)]
    assert len(set(targets)) == 2 and all(target in ids for target in targets)
    # No marker is left as text but in the answer's raw Markdown, offered to select.
    rendered = re.sub(r'<details class="raw-answer">.*?</details>', "", first.done, flags=re.DOTALL)
    assert MARKER.search(rendered) is None
