"""The extractive mode through the page, in Chromium: quotations read as the course wrote them, and every
suggestion the page offers is answered from the lesson it names."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import make_config
from tests.e2e.conftest import serve
from tests.helpers import Library, titled_course_text

pytestmark = pytest.mark.e2e

# Made-up lessons whose sentences hold what Markdown would read as formatting.
WEB_COURSE = titled_course_text(
    "Web Apps in Python",
    (
        "Your First App",
        "The application object is created with app = Flask(__name__) at the top of the module. "
        "Keyword arguments arrive as **kwargs and positional ones as *args in a view helper. "
        "A route such as /items/<int:item_id> passes the number to the view.",
    ),
    (
        "Templates",
        "Templates fill placeholders such as {{ title }} with values from the view. "
        "A base template defines blocks that each page overrides.",
    ),
)


@pytest.fixture
def web_course_app(tmp_path):
    """The app in extractive mode over the one made-up web course, its database migrated."""
    from app import create_app
    from app.store.store import Store

    library = Library(tmp_path)
    (library.docs / "web.txt").write_text(WEB_COURSE)
    library.synced()
    store = Store.from_settings(library.settings)
    store.upgrade()
    store.close()
    return create_app(make_config(tmp_path, library.docs))


def test_an_extractive_quotation_reads_as_the_course_wrote_it(browser, web_course_app):
    with serve(web_course_app) as base:
        page = browser.new_page()
        page.goto(base)
        page.get_by_label("Your question").fill("How is the application object created with Flask?")
        page.get_by_role("button", name="Send", exact=True).click()
        prose = page.locator("article.exchange .prose")
        expect(prose).to_contain_text("app = Flask(__name__)")
        # Nothing of the sentence became formatting: no bold, no italics, no link or tag from its text.
        quoted = prose.locator("p", has_text="Flask(__name__)")
        expect(quoted.locator("strong, em, code, a")).to_have_count(0)
        page.close()


def test_every_offered_suggestion_is_answered_from_the_lesson_it_names(browser, make_app):
    with serve(make_app()) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(base)
        offered = page.locator("button.suggestion").all_inner_texts()
        assert len(offered) >= 2, offered
        for position, _ in enumerate(offered):
            page.goto(base)
            button = page.locator("button.suggestion").nth(position)
            question = button.evaluate("b => b.form.question.value")
            course = button.locator(".suggestion-course").inner_text()
            lesson = re.search(r"“(.+?)”", question)
            assert lesson, question
            button.click()
            chips = page.locator("article.exchange .source-chip").all_inner_texts()
            cited = [chip for chip in chips if f"{course} – Lesson" in chip and f": {lesson[1]}" in chip]
            assert cited, (question, chips)
        context.close()
