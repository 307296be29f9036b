"""The admin's pages and actions: the overview, uploads, sync and rebuild with live progress, trash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.courses.parsing import SUPPORTED_EXTENSIONS
from app.errors import BadRequest, NotFound
from app.library.jobs import SyncJobs
from app.search.models import SyncJob
from app.services import services, settings
from app.web.admin.access import bp
from app.web.errors import wants_json
from app.web.htmx import is_htmx, stop_polling
from app.web.uploads import megabytes, save_uploads


def jobs() -> SyncJobs:
    """The current app's sync jobs."""
    return services().jobs


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
        raise BadRequest("Choose at least one course file (.txt, .pdf or .docx) to upload.")
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


def _progress_fragment(job: SyncJob | None) -> ResponseReturnValue:
    """The progress fragment; once the job ended it also refreshes the course table out of band."""
    if _is_running(job):
        return render_template("admin/_sync_progress.html", job=job)
    body = render_template("admin/_sync_progress.html", job=job) + render_template(
        "admin/_courses.html",
        courses=services().index.courses(),
        course_errors=_course_errors(),
        oob=True,
    )
    return stop_polling(body)


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
