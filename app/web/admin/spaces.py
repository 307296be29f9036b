"""Course spaces on the admin page: the operator makes spaces, assigns their courses, sets their settings."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.errors import AppError
from app.services import services, settings
from app.web.admin.access import bp
from app.web.space_forms import settings_from


@bp.get("/spaces")
def spaces() -> ResponseReturnValue:
    """Every space with its courses and settings, and the form to make one."""
    return _page()


@bp.post("/spaces")
def create_space() -> ResponseReturnValue:
    """Make a space; a bad or taken name is said on the page."""
    try:
        made = services().store.spaces.create(request.form.get("name", ""))
    except AppError as exc:
        return _page(error=exc.message, status=exc.status)
    flash(f"Made the space {made.name}: now choose its courses.")
    return redirect(url_for("admin.spaces"), 303)


@bp.post("/spaces/<int:space_id>/courses")
def assign_courses(space_id: int) -> ResponseReturnValue:
    """Make the ticked courses the space's (only courses the index holds)."""
    known = {record.id for record in services().index.courses()}
    chosen = {course for course in request.form.getlist("course") if course in known}
    services().store.spaces.set_courses(space_id, chosen)
    flash(f"Saved the courses of space #{space_id}: {len(chosen)} course{'s' if len(chosen) != 1 else ''}.")
    return redirect(url_for("admin.spaces"), 303)


@bp.post("/spaces/<int:space_id>/settings")
def configure_space(space_id: int) -> ResponseReturnValue:
    """Save a space's answer mode, topics to avoid, welcome and suggested questions."""
    try:
        services().store.spaces.configure(space_id, settings_from(request.form))
    except AppError as exc:
        return _page(error=exc.message, status=exc.status)
    flash(f"Saved the settings of space #{space_id}.")
    return redirect(url_for("admin.spaces"), 303)


def _page(error: str | None = None, status: int = 200) -> ResponseReturnValue:
    """The spaces page."""
    return (
        render_template(
            "admin/spaces.html",
            spaces=services().store.spaces.all(),
            courses=services().index.courses(),
            enforced=settings().spaces_enabled,
            error=error,
        ),
        status,
    )
