"""Small screens, rich answers and accessibility in Chromium: no sideways scrolling, no axe-core findings."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.conftest import serve
from tests.e2e.test_admin_e2e import _sign_in
from tests.e2e.test_chat_e2e import ask
from tests.web.admin_helpers import PASSWORD

pytestmark = pytest.mark.e2e

SEARCH_TOOL = "search_course_content"
# An answer as a model writes one: nested lists by two spaces, code, a wide table, a bare link, strikethrough.
RICH_ANSWER = """Here is how **chunking** works:

1. Split the lesson into sentences
   - keep sentence boundaries
     - never cut inside one
2. Pack sentences into chunks
  - about 800 characters
  - with ~~no~~ some overlap

```python
chunks = [pack(sentences[i : i + window]) for i in range(0, len(sentences), step)]  # scrolls sideways
```

| setting | default | meaning |
|---|---|---|
| CHUNK_SIZE | 800 | characters per chunk, counted over whole sentences |
| CHUNK_OVERLAP | 100 | characters repeated between neighbouring chunks |

More at https://example.com/courses/rag/lesson-2.
"""


def overflow(page) -> int:
    """How far the page scrolls sideways, in CSS pixels (0: it fits the window)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def luminance(css_colour: str) -> float:
    """The relative luminance (WCAG) of an rgb()/rgba() colour."""
    channels = [int(value) / 255 for value in re.findall(r"\d+", css_colour)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two colours."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def axe_violations(page) -> list[str]:
    """axe-core's violations on the page as it is now: rule id and the first offending element."""
    results = Axe().run(page)
    return [f"{v['id']}: {v['nodes'][0]['html'][:120]}" for v in results.response["violations"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_rich_answer_on_a_320_px_phone_fits_and_passes_axe(browser, live_server, fake_claude, scheme):
    context = browser.new_context(viewport={"width": 320, "height": 640}, color_scheme=scheme)
    page = context.new_page()
    page.goto(live_server)
    assert overflow(page) == 0
    send = page.get_by_role("button", name="Send", exact=True)
    box = send.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320, "the Send button is clipped"
    # The composer is compact: the box, Send and a "Help" line, not a label and two lines of help.
    composer = page.locator("#ask-form").bounding_box()
    assert composer is not None and composer["height"] <= 110, composer

    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "chunking"})
    fake_claude.enqueue_text(RICH_ANSWER)
    ask(page, "How does chunking work?", exchanges=1)
    prose = page.locator("article.exchange .prose")
    expect(prose.locator("ol > li > ul > li > ul > li")).to_have_text("never cut inside one")
    expect(prose.locator("del")).to_have_text("no")
    link = prose.locator('a[href="https://example.com/courses/rag/lesson-2"]')
    assert link.get_attribute("target") == "_blank" and "noopener" in link.get_attribute("rel")
    # Wide code and tables scroll inside themselves, reachable by keyboard; the page does not.
    assert prose.locator("pre").get_attribute("tabindex") == "0"
    assert prose.locator(".table-scroll").get_attribute("tabindex") == "0"
    assert overflow(page) == 0
    code_bg = prose.locator("pre").evaluate("e => getComputedStyle(e).backgroundColor")
    answer_bg = page.locator("article.exchange .turn-answer").evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    assert code_bg != answer_bg, "code blocks must stand apart from the answer"
    # A table keeps readable columns (no one-word lines) and scrolls sideways inside its box.
    widths = prose.locator("td").evaluate_all("cells => cells.map(c => c.getBoundingClientRect().width)")
    assert min(widths) >= 80, widths
    # The answer's actions with their forms open (edit the question, 👎 with a comment) fit and pass too.
    page.locator("article.exchange .edit-question > summary").click()
    page.locator("article.exchange .vote-down-details > summary").click()
    assert overflow(page) == 0
    assert axe_violations(page) == []
    # So does the list of this browser's conversations.
    page.goto(f"{live_server}/conversations")
    expect(page.locator(".conversation-row").first).to_be_visible()
    assert overflow(page) == 0
    assert axe_violations(page) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_admin_page_fits_a_390_px_phone_and_passes_axe(make_app, browser, scheme):
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    with serve(app) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        page = context.new_page()
        _sign_in(page, base)
        expect(page.locator(".admin-table")).to_be_visible()
        assert overflow(page) == 0
        assert axe_violations(page) == []
        # While a job runs: the disabled actions and the progress pass too.
        with app.extensions["services"].indexer.writer_lock(wait=True):
            page.get_by_role("button", name="Sync with docs").click()
            expect(page.locator("#sync-progress.sync-running")).to_be_visible()
            expect(page.get_by_role("button", name="Sync with docs")).to_be_disabled()
            assert axe_violations(page) == []
        app.extensions["services"].jobs.wait(120)
        context.close()


def test_the_question_field_border_has_3_to_1_contrast(browser, live_server):
    page = browser.new_page()
    page.goto(live_server)
    field = page.locator(".composer")  # the box drawn around the textarea and Send
    border = field.evaluate("e => getComputedStyle(e).borderTopColor")
    inside = field.evaluate("e => getComputedStyle(e).backgroundColor")
    ratio = contrast(border, inside)
    assert ratio >= 3, (border, inside, ratio)
    page.close()
