"""A course space's staff pages: staff of that space only (403 for anyone else, by URL too)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.errors import AppError, Forbidden
from app.services import services
from app.store.spaces import SpaceRecord
from app.web.space_forms import settings_from
from app.web.viewer import viewer

bp = Blueprint("staff", __name__, url_prefix="/spaces")


def staff_space(space_id: int) -> SpaceRecord:
    """The space, when the viewer is its staff; Forbidden otherwise (another space's staff, a student)."""
    space = viewer().space
    if space is None or not viewer().is_staff_of(space_id):
        raise Forbidden("Only this course space's staff can open this page.")
    return space


@bp.get("/<int:space_id>/settings")
def space_settings(space_id: int) -> ResponseReturnValue:
    """The space's answer mode, topics to avoid, welcome and suggested questions, as a form."""
    return _page(staff_space(space_id))


@bp.post("/<int:space_id>/settings")
def save_settings(space_id: int) -> ResponseReturnValue:
    """Save the space's settings; bad input is said on the page and changes nothing."""
    space = staff_space(space_id)
    try:
        services().store.spaces.configure(space.id, settings_from(request.form))
    except AppError as exc:
        return _page(space, error=exc.message, status=exc.status)
    flash("Saved. Students get these settings from their next question.")
    return redirect(url_for(".space_settings", space_id=space.id), 303)


def _page(space: SpaceRecord, error: str | None = None, status: int = 200) -> ResponseReturnValue:
    """The staff settings page."""
    courses = [record.title for record in services().index.within(space.courses).courses()]
    return render_template("staff/settings.html", space=space, courses=courses, error=error), status
