"""The admin's pages and actions: the overview, uploads, sync and rebuild with live progress, trash."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from flask import flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.courses.parsing import SUPPORTED_EXTENSIONS
from app.errors import AppError, BadRequest, NotFound
from app.library.jobs import SyncJobs
from app.library.limits import capped_chunks
from app.library.sync import last_sync
from app.search.models import SyncJob
from app.services import services, settings
from app.web.admin.access import AdminDisabled, bp
from app.web.errors import handle_error, public_error, wants_json
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
    job = jobs().status()
    return {
        "courses": index.courses(),
        "location": index.location,
        "job": job,
        "busy": _is_running(job),
        "last_sync": last_sync(settings()),
        "course_errors": _course_errors(),
        "trash": services().trash.entries(),
        **_upload_context(),
        "docs_dir": settings().docs_dir,
        **extra,
    }


def _upload_context() -> dict[str, Any]:
    """What the upload form needs."""
    return {"accept": ",".join(SUPPORTED_EXTENSIONS), "max_upload": megabytes(settings().max_upload_bytes)}


# The admin page's own forms, whose refusals land back on it.
PAGE_FORMS = {"admin.upload", "admin.sync", "admin.rebuild", "admin.delete_course", "admin.restore"}


@bp.errorhandler(AppError)
def _back_to_the_page(error: AppError) -> ResponseReturnValue:
    """A refused admin form lands back on the admin page with the message (post/redirect/get, so a reload
    repeats nothing); htmx, JSON and the sign-in form get the usual answer."""
    plain_form = request.method == "POST" and not is_htmx() and not wants_json()
    if not plain_form or isinstance(error, AdminDisabled) or request.endpoint not in PAGE_FORMS:
        return handle_error(error)
    _status, _title, message, _detail = public_error(error, f"on {request.method} {request.path}")
    flash(message, "error")
    return redirect(url_for("admin.index"), 303)


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
        uploads,
        Path(settings().docs_dir),
        # A file the sync would refuse (over MAX_DOCUMENT_MB) is refused at once.
        min(settings().max_upload_bytes, settings().max_document_bytes),
        services().indexer.check_upload,
        discard=services().trash.keep,  # a replaced file goes to the trash like a removed one
        # A file the sync would refuse for its chunk count is refused at once, with the sync's reason.
        check_course=functools.partial(capped_chunks, settings=settings()),
    )
    job = jobs().start(files_changed=True) if outcome.accepted else jobs().status()
    status = 200 if outcome.accepted or is_htmx() else 422
    if is_htmx():
        # The result in its own place under a fresh form; a started sync in the sync panel, out of band.
        body = render_template("admin/_upload_form.html", outcome=outcome, htmx=True, **_upload_context())
        if outcome.accepted:
            body += _job_fragments(job, oob=True)
        return body, status
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
        return _job_fragments(job, oob=False)
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
    return render_template(
        "admin/status.html", job=job, running=_is_running(job), last_sync=last_sync(settings())
    )


def _is_running(job: SyncJob | None) -> bool:
    """True for a job that is still running."""
    return job is not None and job.running


def _progress_fragment(job: SyncJob | None) -> ResponseReturnValue:
    """The progress fragment; once the job ended, the actions and course table too (out of band)."""
    if _is_running(job):
        return _progress_html(job, oob=False)
    return stop_polling(_job_fragments(job, oob=False))


def _progress_html(job: SyncJob | None, oob: bool) -> str:
    """The progress panel (out of band: replacing the one on the page)."""
    report = last_sync(settings())
    return render_template("admin/_sync_progress.html", job=job, last_sync=report, oob=oob)


def _job_fragments(job: SyncJob | None, oob: bool) -> str:
    """The progress panel, and out of band the actions and course table, enabled or not as the job runs."""
    busy = _is_running(job)
    return (
        _progress_html(job, oob)
        + render_template("admin/_sync_actions.html", busy=busy, oob=True)
        + render_template(
            "admin/_courses.html",
            courses=services().index.courses(),
            course_errors=_course_errors(),
            busy=busy,
            oob=True,
        )
    )


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
