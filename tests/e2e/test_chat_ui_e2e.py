"""The chat as people expect it, in headless Chromium: the composer's keys, suggestions on the first screen,
citation previews, the theme switched during an answer, axe-core in both themes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.assistant.base import Answer, DoneEvent, Source, TextEvent
from tests.e2e.conftest import serve
from tests.e2e.test_layout_a11y_e2e import axe_violations
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer

pytestmark = pytest.mark.e2e

CITED = Source(
    label="Python Testing with Pytest – Lesson 2: Fixtures",
    course_title="Python Testing with Pytest",
    lesson_number=2,
    lesson_title="Fixtures",
    lesson_link="https://example.com/courses/pytest/lesson-2",
    snippet="A fixture provides a fixed baseline so tests run reliably and repeatably.",
)
ANSWER = "Fixtures give each test a known start.[^1]\n\n```python\n@pytest.fixture\ndef db():\n    ...\n```"


@pytest.fixture
def scripted_app(make_app):
    """The app with a scripted answerer in place of the model."""
    return make_app()


def test_enter_sends_shift_enter_makes_a_new_line_and_ctrl_enter_sends_too(browser, scripted_app):
    use_answerer(scripted_app, ScriptedAnswerer([DoneEvent(Answer(markdown="Sent.", sources=[]))]))
    with serve(scripted_app) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(base)
        box = page.get_by_label("Your question")
        one_line = box.bounding_box()["height"]
        box.type("def f():")
        box.press("Shift+Enter")
        box.type("    return 1")
        box.press("Shift+Enter")
        box.type("f()")
        expect(box).to_have_value("def f():\n    return 1\nf()")
        expect(page.locator("article.exchange")).to_have_count(0)
        # The box grew with its three lines (field-sizing: content).
        assert box.bounding_box()["height"] > 2 * one_line
        box.press("Enter")
        expect(page.locator("article.exchange .question-text")).to_have_text("def f():\n    return 1\nf()")
        expect(page.locator("article.exchange .prose")).to_have_text("Sent.")
        # The composer came back empty, and Ctrl+Enter sends as well, with no newline left in the question.
        box = page.get_by_label("Your question")
        expect(box).to_have_value("")
        expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled()
        box.type("And then?")
        box.press("Control+Enter")
        expect(page.locator("article.exchange")).to_have_count(2)
        expect(page.locator("article.exchange .question-text").nth(1)).to_have_text("And then?")
        expect(page.locator("article.exchange .prose").nth(1)).to_have_text("Sent.")
        assert not [error for error in errors if "Content Security Policy" in error], errors
        page.close()


def test_without_javascript_enter_makes_a_new_line_and_send_sends(browser, scripted_app):
    use_answerer(scripted_app, ScriptedAnswerer([DoneEvent(Answer(markdown="Sent.", sources=[]))]))
    with serve(scripted_app) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(base)
        box = page.get_by_label("Your question")
        box.type("one")
        box.press("Enter")
        box.type("two")
        expect(box).to_have_value("one\ntwo")
        page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("article.exchange .question-text")).to_have_text("one\ntwo")
        expect(page.locator("article.exchange .prose")).to_have_text("Sent.")
        context.close()


@pytest.mark.parametrize("javascript", [True, False])
def test_code_is_highlighted_and_raw_markdown_is_offered_without_a_script(browser, scripted_app, javascript):
    use_answerer(scripted_app, ScriptedAnswerer([DoneEvent(Answer(markdown=ANSWER, sources=[CITED]))]))
    with serve(scripted_app) as base:
        context = browser.new_context(java_script_enabled=javascript, color_scheme="dark")
        page = context.new_page()
        page.goto(base)
        page.get_by_label("Your question").fill("What do fixtures give?")
        page.get_by_role("button", name="Send", exact=True).click()
        code = page.locator("article.exchange .prose pre code.highlight")
        expect(code).to_have_text("@pytest.fixture\ndef db():\n    ...")
        plain = code.evaluate("e => getComputedStyle(e).color")
        keyword = code.locator(".k", has_text="def").evaluate("e => getComputedStyle(e).color")
        decorator = code.locator(".nd").evaluate("e => getComputedStyle(e).color")
        assert len({plain, keyword, decorator}) == 3, (plain, keyword, decorator)
        raw = page.locator("article.exchange details.raw-answer")
        expect(raw.locator("pre")).to_be_hidden()
        raw.locator("summary").click()
        expect(raw.locator("pre")).to_contain_text("```python\n@pytest.fixture")
        expect(raw.locator("pre")).to_contain_text("[^1]: Python Testing with Pytest – Lesson 2: Fixtures")
        download = page.locator("article.exchange a.download")
        expect(download).to_have_text("Download as Markdown")
        assert download.get_attribute("download") is not None
        page.screenshot(path=f"/tmp/ui-code-{javascript}.png", full_page=True)
        context.close()


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_suggestions_are_on_the_first_screen(browser, live_server, width, height):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(live_server)
    suggestions = page.locator("button.suggestion")
    expect(suggestions).to_have_count(4)
    boxes = [suggestions.nth(index).bounding_box() for index in range(4)]
    bottom = max(box["y"] + box["height"] for box in boxes)
    print(f"{width}x{height}: suggestions from {boxes[0]['y']:.0f} to {bottom:.0f} px")
    assert bottom <= height, f"the last suggestion ends at {bottom}px, below the {height}px window"
    # Not hidden behind the composer, which sticks to the window's bottom.
    composer_top = page.locator("#ask-form").bounding_box()["y"]
    assert bottom <= composer_top
    page.close()


def test_hovering_or_focusing_a_citation_marker_shows_the_cited_text(browser, scripted_app):
    use_answerer(scripted_app, ScriptedAnswerer([DoneEvent(Answer(markdown=ANSWER, sources=[CITED]))]))
    with serve(scripted_app) as base:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(base)
        page.get_by_label("Your question").fill("What do fixtures give?")
        page.get_by_role("button", name="Send", exact=True).click()
        marker = page.locator(".citation > a")
        expect(marker).to_have_text("1")
        preview = page.locator(".citation .cite-preview")
        expect(preview).to_be_hidden()
        marker.hover()
        expect(preview).to_be_visible()
        expect(preview).to_contain_text("A fixture provides a fixed baseline")
        expect(
            preview.get_by_role("link", name="Python Testing with Pytest – Lesson 2: Fixtures")
        ).to_be_visible()
        page.mouse.move(0, 0)
        expect(preview).to_be_hidden()
        marker.focus()
        expect(preview).to_be_visible()
        # Following the marker highlights its source chip, which opens the cited text.
        marker.press("Enter")
        chip = page.locator(".source-chip:target")
        expect(chip).to_have_count(1)
        expect(chip.locator(".snippet")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.close()


def test_switching_the_theme_keeps_an_answer_that_is_streaming(browser, scripted_app):
    answerer = ScriptedAnswerer(
        [
            TextEvent("The first half, "),
            TextEvent("then the second."),
            DoneEvent(Answer(markdown="The first half, then the second.", sources=[FIXTURES_SOURCE])),
        ],
        hold_at=1,
    )
    use_answerer(scripted_app, answerer)
    with serve(scripted_app) as base:
        page = browser.new_page(color_scheme="light")
        page.goto(base)
        page.evaluate("window.sameDocument = true")  # gone if the page reloads
        page.get_by_label("Your question").fill("Halves?")
        page.get_by_role("button", name="Send", exact=True).click()
        pending = page.locator("article.exchange[aria-busy]")
        expect(pending.locator(".prose")).to_contain_text("The first half")
        light = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.locator(".theme-menu summary").click()
        page.get_by_role("button", name="Dark").click()
        page.wait_for_function(
            # A function is eval-ed once; an expression again on each poll, which the CSP refuses.
            "light => getComputedStyle(document.body).backgroundColor !== light",
            arg=light,
        )
        assert page.evaluate("window.sameDocument") is True
        answerer.release()
        expect(page.locator("article.exchange .prose")).to_have_text("The first half, then the second.")
        expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
        page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_the_first_screen_during_and_after_an_answer(browser, scripted_app, scheme):
    answerer = ScriptedAnswerer(
        [
            TextEvent("Fixtures give each test "),
            TextEvent("a known start."),
            DoneEvent(Answer(markdown=ANSWER, sources=[CITED])),
        ],
        hold_at=1,
    )
    use_answerer(scripted_app, answerer)
    with serve(scripted_app) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        page = context.new_page()
        page.goto(base)
        assert axe_violations(page) == []
        page.locator(".theme-menu summary").click()  # the open menu too
        assert axe_violations(page) == []
        page.locator(".theme-menu summary").click()
        page.get_by_label("Your question").fill("What do fixtures give?")
        page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("article.exchange[aria-busy] .prose")).to_contain_text("Fixtures give each test")
        assert axe_violations(page) == []
        answerer.release()
        expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
        page.locator(".citation > a").focus()
        assert axe_violations(page) == []
        context.close()
