"""The admin's MCP access page in Chromium: with JavaScript off, make a token, see it once, revoke it; the
page with a new token and a revoked one fits a phone and passes axe-core."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import serve
from tests.e2e.test_admin_e2e import _sign_in
from tests.e2e.test_layout_a11y_e2e import axe_violations, overflow
from tests.web.admin_helpers import PASSWORD

pytestmark = pytest.mark.e2e
LABEL = "Label (who or what will use it)"


def test_a_token_is_made_shown_once_and_revoked_without_javascript(make_app, browser):
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    tokens = app.extensions["services"].store.tokens
    with serve(app) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        _sign_in(page, base)
        page.get_by_role("link", name="MCP access").click()
        page.get_by_label(LABEL).fill("Seminar agent")
        page.get_by_role("button", name="Make token").click()

        secret = page.locator("#issued-token").input_value()
        assert secret.startswith("camcp_") and tokens.check(secret) is not None
        expect(page.locator("#tokens-table")).to_contain_text("Seminar agent")

        page.goto(f"{base}/admin/mcp")
        assert secret not in page.content(), "the token is shown once"
        page.get_by_role("button", name="Revoke token 1 (Seminar agent)").click()
        expect(page.locator(".admin-notices")).to_contain_text("Revoked token #1")
        expect(page.locator("#tokens-table")).to_contain_text("revoked")
        assert tokens.check(secret) is None
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_with_a_new_and_a_revoked_token_fits_a_phone_and_passes_axe(make_app, browser, scheme):
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    tokens = app.extensions["services"].store.tokens
    tokens.revoke(tokens.issue("Old laptop").record.id)
    with serve(app) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        page = context.new_page()
        _sign_in(page, base)
        page.goto(f"{base}/admin/mcp")
        page.get_by_label(LABEL).fill("Office hours bot")
        page.get_by_role("button", name="Make token").click()
        expect(page.locator("#issued-token")).to_be_visible()

        assert overflow(page) == 0
        assert axe_violations(page) == []
        context.close()
