"""The insights and playground pages in Chromium: gaps grouped, chart drawn, a case saved, no axe findings."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import serve
from tests.e2e.test_admin_e2e import _sign_in
from tests.e2e.test_layout_a11y_e2e import axe_violations, overflow
from tests.insights.conftest import build, down_voted, log

pytestmark = pytest.mark.e2e

VECTORS = "Vector Databases from Scratch"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_insights_page_shows_the_gaps_and_passes_axe(make_app, browser, scheme):
    app = build(make_app)
    for question in ["How do I bake sourdough bread?", "sourdough bread recipe please", "sourdough recipe"]:
        log(app, question=question, declined=True)
    log(app, question="What is HNSW?", course=VECTORS, lessons=[(VECTORS, 2)], confidence=0.8)
    down_voted(app, "what does efSearch do in HNSW", "Too vague.", closest=(VECTORS, 2), course=VECTORS)
    with serve(app) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        page = context.new_page()
        _sign_in(page, base)
        page.get_by_role("link", name="Insights").click()
        page.wait_for_url(f"{base}/admin/insights")

        gaps = page.locator("#gaps li.gap")
        expect(gaps).to_have_count(2)
        expect(gaps.first).to_contain_text("asked 3 times")
        expect(gaps.nth(1)).to_contain_text(f"{VECTORS}, lesson 2: HNSW Graphs")
        expect(page.get_by_role("img", name="Questions per day by course, the last 30 days")).to_be_visible()
        expect(page.locator(".chart-bars rect")).to_have_count(2)
        page.get_by_role("button", name="7 days").click()
        expect(page.locator("#period-title")).to_have_text("Period: the last 7 days")
        assert overflow(page) == 0
        assert axe_violations(page) == []
        context.close()


def test_the_playground_saves_a_case_and_passes_axe(make_app, browser):
    app = build(make_app)
    with serve(app) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        _sign_in(page, base)
        page.goto(f"{base}/admin/playground")
        page.get_by_label("Question").fill("what is HNSW")
        page.get_by_role("button", name="Search").click()
        first = page.locator("li.ranked").first
        expect(first.locator(".ranks")).to_contain_text("Fused rank1")
        assert axe_violations(page) == []
        first.get_by_label("This passage's lesson is the gold lesson").check()
        first.locator(".evidence input").first.check()
        page.get_by_role("button", name="Save as test case").click()
        expect(page.locator(".admin-notices")).to_contain_text(f"{VECTORS}, lesson 2")
        expect(page.locator("#cases-table tbody tr")).to_have_count(1)
        assert overflow(page) == 0
        assert axe_violations(page) == []
        context.close()
