"""The admin blueprint: sign in, upload courses, sync with live progress, remove and restore courses."""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import RequestEntityTooLarge

from app.courses.parsing import SUPPORTED_EXTENSIONS
from app.errors import AppError, NotFound, PayloadTooLarge, Unauthorized
from app.extensions import limiter
from app.library.jobs import SyncJobs
from app.search.models import SyncJob
from app.services import services, settings
from app.web.admin_session import sign_in, sign_out, signed_in
from app.web.errors import wants_json
from app.web.htmx import is_htmx
from app.web.redirects import safe_local_path
from app.web.uploads import megabytes, save_uploads

bp = Blueprint("admin", __name__, url_prefix="/admin")

PUBLIC_ENDPOINTS = {"admin.login", "admin.logout"}
# htmx stops polling when a poll answers with this status.
STOP_POLLING = 286


class AdminDisabled(NotFound):
    """The admin is off because ADMIN_PASSWORD is not set."""

    title = "The admin page is off"


def jobs() -> SyncJobs:
    """The current app's sync jobs."""
    return services().jobs


# -- access ---------------------------------------------------------------------------------------------


@bp.url_value_preprocessor
def _gate(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Answer 404 while the admin is off, and 413 for an oversized body, before the CSRF check reads it."""
    # URL value preprocessors run before every before_request hook, the app-wide CSRF check included.
    if not settings().admin_password:
        raise AdminDisabled(
            "The admin page is turned off. Set ADMIN_PASSWORD in the environment (or .env), then restart."
        )
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit and request.content_length and request.content_length > limit:
        raise PayloadTooLarge(
            f"The upload is larger than the {megabytes(limit)} limit (MAX_UPLOAD_MB). "
            "Upload fewer or smaller files."
        )


@bp.errorhandler(AdminDisabled)
def _disabled(error: AdminDisabled):
    """Explain how to turn the admin on (JSON for JSON clients)."""
    if wants_json():
        return jsonify(error=error.message, detail=error.detail), 404
    return render_template("admin/disabled.html", message=error.message), 404


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge):
    """Say what the limit is when a body without a declared length runs over it."""
    from app.web.errors import handle_error

    return handle_error(
        PayloadTooLarge(f"The upload is larger than the {megabytes(settings().max_upload_bytes)} limit.")
    )


@bp.before_request
def _require_login() -> ResponseReturnValue | None:
    """Send anyone not signed in to the login page (401 for JSON and htmx requests)."""
    if request.endpoint in PUBLIC_ENDPOINTS or signed_in():
        return None
    sign_out(everywhere=False)
    login = url_for("admin.login", next=_next_target())
    if is_htmx():
        response = make_response("Sign in to continue.", 401)
        response.headers["HX-Redirect"] = login
        return response
    if wants_json():
        raise Unauthorized("Sign in to the admin page first.")
    return redirect(login, 302 if request.method == "GET" else 303)


def _next_target() -> str:
    """Where to come back to after signing in: this page for a GET, the admin page otherwise."""
    if request.method == "GET":
        return request.full_path.rstrip("?")
    return url_for("admin.index")


def _safe_next(target: str | None) -> str:
    """A local admin path to go to after signing in; anything else goes to the admin page."""
    return safe_local_path(target, url_for("admin.index"), prefix="/admin")


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(
    lambda: settings().ratelimit_login,
    methods=["POST"],
    error_message="Too many sign-in attempts. Wait a minute, then try again.",
)
def login():
    """Show the sign-in form; check the password in constant time and set the session flag."""
    target = _safe_next(request.values.get("next"))
    if request.method == "GET":
        if signed_in():
            return redirect(target, 303)
        return render_template("admin/login.html", next=target, error=None)
    password = request.form.get("password", "")
    expected = settings().admin_password or ""
    if not hmac.compare_digest(password.encode("utf-8"), expected.encode("utf-8")):
        return render_template("admin/login.html", next=target, error="Wrong password."), 401
    sign_in()
    return redirect(target, 303)


@bp.post("/logout")
def logout():
    """Sign out here and end every other admin session (a copied cookie too), then show the sign-in page."""
    sign_out()
    return redirect(url_for("admin.login"), 303)


# -- the page -------------------------------------------------------------------------------------------


@bp.get("", strict_slashes=False)
def index():
    """The admin page: courses, index location, sync progress or summary, upload form, trash."""
    return render_template("admin/index.html", **_page_context())


def _page_context(**extra: Any) -> dict[str, Any]:
    """What the admin page shows."""
    index = services().index
    return {
        "courses": index.courses(),
        "location": index.location,
        "job": jobs().status(),
        "course_errors": _course_errors(),
        "trash": services().trash.entries(),
        "accept": ",".join(SUPPORTED_EXTENSIONS),
        "max_upload": megabytes(settings().max_upload_bytes),
        "docs_dir": settings().docs_dir,
        **extra,
    }


def _course_errors() -> dict[str, str]:
    """The last finished sync's error per file, shown next to the course that kept its old version."""
    last = jobs().last()
    return {result.file: result.error for result in last.results if result.error} if last else {}


@bp.route("/<path:rest>", methods=["GET", "POST"])
def unknown(rest: str):
    """Any other /admin address: 404 (and, while the admin is off, the page that says how to turn it on)."""
    raise NotFound("There is no admin page at this address.")


# -- upload ---------------------------------------------------------------------------------------------


@bp.post("/upload")
def upload():
    """Check each uploaded file, save the accepted ones atomically, start a sync, list what was refused."""
    uploads = [item for item in request.files.getlist("files") if item.filename]
    if not uploads:
        raise AppError("Choose at least one course file (.txt, .pdf or .docx) to upload.", status=400)
    outcome = save_uploads(
        uploads, Path(settings().docs_dir), settings().max_upload_bytes, services().indexer.check_upload
    )
    job = jobs().start(files_changed=True) if outcome.accepted else jobs().status()
    status = 200 if outcome.accepted or is_htmx() else 422
    if is_htmx():
        return render_template("admin/_upload_result.html", outcome=outcome, job=job), status
    return render_template("admin/upload_result.html", outcome=outcome, job=job), status


# -- sync -----------------------------------------------------------------------------------------------


@bp.post("/sync")
def sync():
    """Start a sync with the docs folder unless one is running; show its progress."""
    return _started(jobs().start(rebuild=False))


@bp.get("/rebuild")
def confirm_rebuild():
    """Ask before clearing and rebuilding the index (works without JavaScript)."""
    return render_template("admin/confirm_rebuild.html", course_count=len(services().index.courses()))


@bp.post("/rebuild")
def rebuild():
    """Clear the index and index every file again, in the background."""
    return _started(jobs().start(rebuild=True))


def _started(job: SyncJob) -> ResponseReturnValue:
    """Answer a started (or already running) job: the progress fragment, or a redirect to the status page."""
    if is_htmx():
        return _progress_fragment(job)
    if wants_json():
        return jsonify(job.public()), 202
    return redirect(url_for("admin.sync_status"), 303)


@bp.get("/sync/status")
def sync_status():
    """The job's progress: a polling fragment for htmx (286 once ended), JSON, or a self-refreshing page."""
    job = jobs().status()
    if is_htmx():
        return _progress_fragment(job)
    if wants_json():
        return jsonify(job.public() if job else {"state": "idle"})
    return render_template("admin/status.html", job=job, running=_is_running(job))


def _is_running(job: SyncJob | None) -> bool:
    """True for a job that is still running."""
    return job is not None and job.running


def _progress_fragment(job: SyncJob | None) -> tuple[str, int]:
    """The progress fragment; once the job ended it also refreshes the course table out of band."""
    if _is_running(job):
        return render_template("_sync_progress.html", job=job), 200
    body = render_template("_sync_progress.html", job=job) + render_template(
        "admin/_courses.html",
        courses=services().index.courses(),
        course_errors=_course_errors(),
        oob=True,
    )
    return body, STOP_POLLING


# -- remove and restore ---------------------------------------------------------------------------------


@bp.post("/courses/<course_id>/delete")
def delete_course(course_id: str):
    """Move the course's file to the trash and remove the course from the index."""
    record = services().trash.remove(course_id)
    flash(f"Removed “{record.title}”. Its file is in the trash; restore it below.")
    return redirect(url_for("admin.index"), 303)


@bp.post("/trash/<entry>/restore")
def restore(entry: str):
    """Put a trashed file back into the docs folder (if its name and title are free), then sync."""
    name = services().trash.restore(entry)
    jobs().start(files_changed=True)
    flash(f"Restored {name}; a sync is indexing it.")
    return redirect(url_for("admin.index"), 303)
