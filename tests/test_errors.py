"""Typed errors: each status has its own class and title, and no code outside app/errors.py picks a status."""

from __future__ import annotations

import ast

import pytest

from app import create_app
from app.errors import AppError, Conflict, InsufficientStorage, SyncBusy, Unprocessable
from tests.conftest import ROOT, make_config


def status_overrides(source: str) -> list[int]:
    """The line of every `AppError(..., status=...)` call in a module's source."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "AppError"
        and any(keyword.arg == "status" for keyword in node.keywords)
    ]


def test_the_scan_finds_a_status_chosen_at_the_call_even_across_lines():
    assert status_overrides('raise AppError(\n    "clash",\n    status=409,\n)') == [1]
    assert status_overrides("raise errors.AppError('x', status=422)") == [1]
    assert status_overrides("raise Conflict('clash')") == []


def test_no_module_outside_errors_py_picks_a_status_for_app_error():
    app = ROOT / "app"
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(app.rglob("*.py"))
        if path != app / "errors.py"
        for line in status_overrides(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "raise a typed error from app/errors.py instead of AppError(status=...)"


@pytest.mark.parametrize(
    ("error", "status"),
    [(Conflict, 409), (SyncBusy, 409), (Unprocessable, 422), (InsufficientStorage, 507)],
)
def test_each_typed_error_carries_its_status_and_its_own_title(error: type[AppError], status: int):
    raised = error("What happened.")
    assert raised.status == status
    assert raised.title != AppError.title
    assert raised.message == raised.detail == "What happened."


def test_a_typed_error_shows_its_own_title_and_status_on_the_error_page(tmp_path):
    app = create_app(make_config(tmp_path, tmp_path / "docs"))

    def full_disk():
        raise InsufficientStorage("The upload could not be saved. Free some space or try again.")

    app.add_url_rule("/_raise/storage", "raise_storage", full_disk)
    response = app.test_client().get("/_raise/storage")
    assert response.status_code == 507
    page = response.get_data(as_text=True)
    assert "Out of storage space" in page and "Free some space" in page
    assert AppError.title not in page
