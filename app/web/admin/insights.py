"""Instructor insights: questions per day and course, per lesson, the gaps, the CSV export and the purge."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Response, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.errors import AppError, BadRequest
from app.insights.chart import NO_COURSE, build_chart
from app.insights.gaps import group_gaps
from app.insights.period import DEFAULT_DAYS, PRESETS, Period, parse_period
from app.links import safe_url
from app.services import services
from app.store.records import LessonCount
from app.web.admin.access import bp

# Purge choices: everything, or what is older than so many days.
PURGE_AGES = (30, 90, 365)


@bp.get("/insights")
def insights() -> ResponseReturnValue:
    """The insights page for the period the GET form chose (the last 30 days by default)."""
    try:
        period = parse_period(request.args)
    except BadRequest as exc:
        # Keep what was typed in the form, say what is wrong, and show the default period meanwhile.
        default = parse_period({"days": str(DEFAULT_DAYS)})
        return render_template("admin/insights.html", **_context(default), error=exc.message), 400
    return render_template("admin/insights.html", **_context(period), error=None)


def _context(period: Period) -> dict[str, Any]:
    """Everything the insights page shows for a period."""
    log = services().store.questions
    counts = log.per_day(period.since, period.until)
    per_course: Counter[str] = Counter()
    for row in counts:
        per_course[row.course or NO_COURSE] += row.count
    return {
        "period": period,
        "presets": PRESETS,
        "purge_ages": PURGE_AGES,
        "form": request.args,
        "chart": build_chart(counts, period),
        "per_course": sorted(per_course.items(), key=lambda item: (-item[1], item[0])),
        "lessons": _lessons(log.per_lesson(period.since, period.until)),
        "gaps": group_gaps(log.gaps(period.since, period.until), services().index),
    }


@dataclass(frozen=True)
class LessonRow:
    """A lesson's line in the per-lesson table: its counts, and its title and link when the index has it."""

    count: LessonCount
    title: str | None
    link: str | None


def _lessons(counts: list[LessonCount]) -> list[LessonRow]:
    """The per-lesson counts with each lesson's title and link from the index."""
    try:
        records = services().index.courses()
    except AppError:  # the index is down: the counts still show
        records = []
    known = {
        (record.title, lesson.number): (lesson.title, safe_url(lesson.link))
        for record in records
        for lesson in record.lessons
    }
    return [LessonRow(row, *known.get((row.course, row.lesson), (None, None))) for row in counts]


@bp.get("/insights/questions.csv")
def questions_csv() -> ResponseReturnValue:
    """The question log as a CSV download: the chosen period, or everything with `all=1`."""
    period = None if request.args.get("all") else parse_period(request.args)
    since, until = (period.since, period.until) if period else (None, None)
    # Read every row before the response starts, so a database failure is an error page, not a cut file.
    rows = list(services().store.questions.csv_rows(since, until))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    name = (
        f"question-log-{period.first.isoformat()}-to-{period.last.isoformat()}.csv"
        if period
        else f"question-log-{stamp}.csv"
    )
    return Response(
        _encode(rows),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


def _encode(rows: list[list[str]]) -> Iterator[str]:
    """The rows as CSV text, a row at a time, with a byte order mark so spreadsheets read UTF-8."""
    yield "\ufeff"
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


@bp.post("/insights/purge")
def purge_questions() -> ResponseReturnValue:
    """Delete the question log (all of it, or what is older than a chosen age) once confirmed."""
    if request.form.get("confirm") != "yes":
        raise BadRequest("Tick the box to confirm that the question log should be deleted.")
    age = request.form.get("older_than", "").strip()
    if age and age not in {str(days) for days in PURGE_AGES}:
        raise BadRequest("Choose which questions to delete: all, or older than 30, 90 or 365 days.")
    deleted = services().store.questions.purge(int(age) if age else None)
    noun = "question" if deleted == 1 else "questions"
    flash(f"Deleted {deleted} logged {noun}" + (f" older than {age} days." if age else "."))
    return redirect(url_for("admin.insights"), 303)
