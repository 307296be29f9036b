import pytest
from playwright.sync_api import expect
from tests.e2e.conftest import serve
from tests.e2e.test_layout_a11y_e2e import RICH_ANSWER, SEARCH_TOOL

OUT = "/tmp/ui_shots"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_shots(browser, live_server, fake_claude, scheme):
    for w, h in [(1280, 800), (390, 844), (320, 640)]:
        ctx = browser.new_context(viewport={"width": w, "height": h}, color_scheme=scheme)
        page = ctx.new_page()
        page.goto(live_server)
        page.screenshot(path=f"{OUT}/{scheme}-{w}-empty.png")
        box = page.locator(".suggestion").last.bounding_box()
        print(
            scheme,
            w,
            "last suggestion bottom",
            box["y"] + box["height"],
            "first top",
            page.locator(".suggestion").first.bounding_box()["y"],
        )
        ctx.close()
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = ctx.new_page()
    page.goto(live_server)
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "chunking"})
    fake_claude.enqueue_text(RICH_ANSWER + "\n\nCosine similarity compares directions.[^1]")
    page.get_by_label("Your question").fill("How does chunking work?")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
    page.screenshot(path=f"{OUT}/{scheme}-1280-answer.png", full_page=True)
    ctx.close()


def test_shot_answer_viewport(browser, live_server, fake_claude):
    for w, h, scheme in [(1280, 800, "light"), (390, 844, "dark"), (320, 640, "light")]:
        ctx = browser.new_context(viewport={"width": w, "height": h}, color_scheme=scheme)
        page = ctx.new_page()
        page.goto(live_server)
        fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": "chunking"})
        fake_claude.enqueue_text(
            "Chunks keep whole sentences.[^1] They overlap a little.[^2]\n\n" + RICH_ANSWER
        )
        page.get_by_label("Your question").fill("How does chunking work?")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("article.exchange[aria-busy]")).to_have_count(0)
        page.locator(".citation > a").first.hover()
        page.screenshot(path=f"{OUT}/{scheme}-{w}-hover.png")
        page.locator(".followups").scroll_into_view_if_needed()
        page.screenshot(path=f"{OUT}/{scheme}-{w}-followups.png")
        ctx.close()
