"""Citation markers in the page: numbered links to the answer's sources, again after a reload."""

from __future__ import annotations

import random
import re
import string

from app.assistant.base import Exchange, Source
from app.assistant.citations import MARKER, search_result_block
from app.web.chat.history import History, load_history, save_history
from app.web.markdown import render_answer, source_anchor
from app.web.session import COOKIE_BUDGET, cookie_size
from tests.web.support import SEARCH_TOOL, ask_streamed, page_url

RAG = "Retrieval-Augmented Generation in Practice"
PYTEST = "Python Testing with Pytest"
KEY = "abc123"
MARKER_LINK = re.compile(r'<sup class="citation"><a href="#(source-[0-9a-f]+-\d+)"[^>]*>(\d+)</a>')


def source(number: int) -> Source:
    """A lesson source."""
    return Source(
        label=f"C – Lesson {number}: L{number}",
        course_title="C",
        lesson_number=number,
        lesson_title=f"L{number}",
        lesson_link=f"https://example.com/c/{number}",
    )


def markers(html: str) -> list[tuple[str, str]]:
    """The (target id, number) of every citation marker link in the HTML."""
    return MARKER_LINK.findall(html)


def source_ids(html: str) -> list[str]:
    """The ids of the source list entries in the HTML."""
    return re.findall(r'<li class="source-chip" id="(source-[0-9a-f]+-\d+)">', html)


def script_cited_answer(claude_app, fake_claude) -> None:
    """A search of two lessons, then an answer citing each of them once and the first again."""
    toolbox = claude_app.extensions["services"].assistant.toolbox
    rag = [search_result_block(p) for p in toolbox.search("chunking", "RAG", 2).passages]
    tests = [search_result_block(p) for p in toolbox.search("fixture scope", "pytest", 2).passages]
    fake_claude.enqueue_tool_uses(
        [
            (SEARCH_TOOL, {"query": "chunking", "course_name": "RAG", "lesson_number": 2}),
            (SEARCH_TOOL, {"query": "fixture scope", "course_name": "pytest", "lesson_number": 2}),
        ]
    )
    fake_claude.enqueue_cited(
        ("Chunks keep whole sentences.", [fake_claude.citation(rag[0], 0)]),
        " ",
        ("Fixtures have a scope.", [fake_claude.citation(tests[0], len(rag))]),
        " ",
        ("Chunks overlap a little.", [fake_claude.citation(rag[0], 0)]),
    )


def assert_cited_page(html: str) -> None:
    """Three markers (1, 2, 1) that link to the first and second entries of the sources list."""
    found = markers(html)
    assert [number for _, number in found] == ["1", "2", "1"]
    ids = source_ids(html)
    assert [target for target, _ in found] == [ids[0], ids[1], ids[0]]
    first, second = html.index(f'id="{ids[0]}"'), html.index(f'id="{ids[1]}"')
    assert html.index(RAG, first) < second, "source 1 is the RAG lesson"
    assert html.index(PYTEST, second), "source 2 is the pytest lesson"


def test_a_cited_answer_shows_markers_linking_to_its_sources_and_again_after_reload(claude_app, fake_claude):
    client = claude_app.test_client()
    script_cited_answer(claude_app, fake_claude)

    streamed = ask_streamed(client, "Chunks and fixtures?")

    assert_cited_page(streamed.done)
    page = client.get(page_url(client)).get_data(as_text=True)
    assert_cited_page(page)
    # The ids are random per render (unique per exchange), the numbers and their targets' order stay.
    assert [number for _, number in markers(page)] == [number for _, number in markers(streamed.done)]


def test_markers_survive_the_sanitizer_and_fake_ones_stay_plain_text():
    text = "Claim.[^1] Fake.[^7] Zero.[^0] <a href='#x' onclick='x()'>a</a>"

    html = render_answer(text, [source(1)], KEY)

    assert markers(html) == [(source_anchor(KEY, 1), "1")]
    assert "Fake.[^7]" in html and "Zero.[^0]" in html
    assert "onclick" not in html
    assert 'aria-label="Source 1: C – Lesson 1: L1"' in html


def test_a_marker_carries_a_preview_of_the_cited_text_and_the_lesson_link():
    cited = source(1).model_copy(update={"snippet": "Fixtures <b>set up</b> " + "state " * 80})

    html = render_answer("Claim.[^1]", [cited], KEY)

    preview = re.search(r'<span class="cite-preview">(.*?)</span></sup>', html).group(1)
    assert '<a href="https://example.com/c/1">C – Lesson 1: L1</a>' in preview
    assert '<span class="cite-text">Fixtures &lt;b&gt;set up&lt;/b&gt; state' in preview
    assert preview.endswith("…</span>") and len(preview) < 500  # the preview is cut, the chip has the rest


def test_model_html_cannot_borrow_the_preview_classes_for_other_markup():
    html = render_answer('<span class="cite-preview">x</span><p class="prose">y</p>', [], KEY)

    assert "class=" not in html  # markers are added after sanitizing: no model markup keeps a class


def test_a_marker_inside_code_stays_code():
    text = "Write `notes[^1]` in the file.[^1]\n\n```\nfootnote = 'x[^1]'\n```"

    html = render_answer(text, [source(1)], KEY)

    assert markers(html) == [(source_anchor(KEY, 1), "1")]  # only the one after the sentence
    assert "<code>notes[^1]</code>" in html
    assert "footnote = 'x[^1]'" in html.replace("&#x27;", "'").replace("&#39;", "'")


def test_model_html_cannot_forge_a_marker_that_runs_script():
    text = 'See <sup class="citation"><a href="javascript:alert(1)">1</a></sup> and \ue0001\ue001.'

    html = render_answer(text, [source(1)], KEY)

    assert "javascript:" not in html
    assert markers(html) == []


def test_history_keeps_markers_with_their_sources_and_drops_them_with_the_sources(app):
    cited = Exchange(question="q", answer="Claim one.[^1] Claim two.[^2]", sources=[source(1), source(2)])
    # Sources too big for the cookie on their own: the history must drop them, and the markers with them.
    rng = random.Random(3)
    huge = [
        source(n).model_copy(update={"label": "".join(rng.choices(string.ascii_letters, k=400))})
        for n in range(20)
    ]
    with app.test_request_context("/"):
        save_history(History([cited]))
        assert load_history().exchanges[0] == cited

        stored = save_history(History([cited.model_copy(update={"sources": huge})]))

        assert cookie_size() < COOKIE_BUDGET
        assert stored.exchanges[0].sources == []
        assert stored.exchanges[0].answer == "Claim one. Claim two."


def test_an_answer_shortened_for_the_cookie_keeps_only_whole_markers(app):
    rng = random.Random(5)
    claims = [
        "".join(rng.choices(string.ascii_letters, k=rng.randint(3, 40))) + f".[^{1 + n % 2}]"
        for n in range(300)
    ]
    cited = Exchange(question="q", answer=" ".join(claims), sources=[source(1), source(2)])
    with app.test_request_context("/"):
        stored = save_history(History([cited])).exchanges[0]

    assert stored.answer.endswith(" …") and len(stored.answer) < len(cited.answer)
    assert "[^1]" in stored.answer and stored.sources == [source(1), source(2)]
    assert "[" not in MARKER.sub("", stored.answer), "no marker was cut in half"
