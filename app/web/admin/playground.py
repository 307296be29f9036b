"""The retrieval playground: a question's ranked passages with their ranks, and saving it as a test case."""

from __future__ import annotations

import re
from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.errors import AppError, BadRequest, NotFound
from app.links import safe_url
from app.rules import MAX_PASSAGES
from app.search.explain import RankedPassage
from app.services import services
from app.store.models import MAX_ROW_ID
from app.web.admin.access import bp

DEFAULT_K = 5
MAX_QUESTION_CHARS = 500
MAX_EVIDENCE_CHARS = 2000
# A sentence ends at ., ! or ? followed by a space; transcripts without punctuation stay one piece.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """A passage's sentences, to pick evidence from."""
    return [part.strip() for part in SENTENCE_END.split(" ".join(text.split())) if part.strip()]


def _lesson(text: str | None) -> int | None:
    """A lesson number from a form field (blank: none)."""
    text = (text or "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise BadRequest("A lesson is a whole number (0 or more), or blank for every lesson.")
    return int(text)


def _k(text: str | None) -> int:
    """How many passages to show."""
    text = (text or "").strip()
    if not text:
        return DEFAULT_K
    if not text.isdigit() or not 1 <= int(text) <= MAX_PASSAGES:
        raise BadRequest(f"Show between 1 and {MAX_PASSAGES} passages.")
    return int(text)


@bp.get("/playground")
def playground() -> ResponseReturnValue:
    """The question form and, for a question, its ranked passages with their ranks and scores."""
    question = " ".join(request.args.get("q", "").split())[:MAX_QUESTION_CHARS]
    course = request.args.get("course", "").strip() or None
    context: dict[str, Any] = {"question": question, "course": course, "results": [], "error": None}
    status = 200
    try:
        context["lesson"] = request.args.get("lesson", "").strip()
        context["k"] = _k(request.args.get("k"))
        if question:
            context["results"] = services().index.explain(
                question, course=course, lesson=_lesson(context["lesson"]), k=context["k"]
            )
    except AppError as exc:  # an unknown course or lesson, a bad number: said on the page, the form kept
        context["error"], status = exc.message, exc.status
        context.setdefault("k", DEFAULT_K)
    return render_template("admin/playground.html", **context, **_page()), status


def _page() -> dict[str, Any]:
    """What the playground shows besides the results: the courses to choose from and the saved cases."""
    return {
        "courses": [record.title for record in services().index.courses()],
        "cases": services().store.eval_cases.all(),
        "sentences": sentences,
        "link": lambda result: safe_url(result.passage.lesson_link or result.passage.course_link),
        "gold_value": _gold_value,
    }


def _gold_value(result: RankedPassage) -> str:
    """A passage's lesson as a radio value: "lesson:course title"."""
    return f"{result.passage.lesson_number}:{result.passage.course_title}"


@bp.post("/playground/cases")
def save_case() -> ResponseReturnValue:
    """Save the question with its gold lesson and the evidence chosen, as a test case for `flask eval`."""
    question = " ".join(request.form.get("question", "").split())
    if not question or len(question) > MAX_QUESTION_CHARS:
        raise BadRequest(f"A test case needs a question of at most {MAX_QUESTION_CHARS} characters.")
    lesson_text, _, course = request.form.get("gold", "").partition(":")
    if not course.strip() or not lesson_text.isdigit() or int(lesson_text) > MAX_ROW_ID:
        raise BadRequest("Choose the passage whose lesson answers the question (the gold lesson).")
    evidence = "\n".join(" ".join(line.split()) for line in request.form.getlist("evidence") if line.strip())
    if len(evidence) > MAX_EVIDENCE_CHARS:
        raise BadRequest(f"Choose at most {MAX_EVIDENCE_CHARS} characters of evidence.")
    case_id = services().store.eval_cases.save(question, course, int(lesson_text), evidence)
    flash(f"Saved test case #{case_id}: {course}, lesson {lesson_text}.")
    return redirect(url_for("admin.playground", q=question), 303)


@bp.post("/playground/cases/<int:case_id>/delete")
def delete_case(case_id: int) -> ResponseReturnValue:
    """Delete a saved test case."""
    if not services().store.eval_cases.remove(case_id):
        raise NotFound("There is no such test case; it may have been deleted already.")
    flash(f"Deleted test case #{case_id}.")
    return redirect(url_for("admin.playground"), 303)
