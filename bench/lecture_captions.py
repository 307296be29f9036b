"""The lecture set indexed from its captions, scored against its TXT version on the development questions.

`python -m bench.lecture_captions` writes a captioned course folder per lecture-set course (course.txt from
the TXT version's course header and the manifest's lessons, plus the WebVTT files), indexes it and the TXT
documents into two private indexes, and scores both on the development set's questions: search (the right
lesson in the top 5, its evidence phrase in the top 5) and, with `--answers`, extractive answers (the
evidence in the answer).
`python -m bench.lecture_captions --write DIR` only writes the caption course folders into DIR, for any
other use (DOCS_DIR, `make eval` with another docs folder).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from app.assistant.service import Assistant
from app.config import load_settings
from app.library.sync import Indexer
from app.search.index import CourseIndex

DEVSET = Path(os.environ.get("DEVSET_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "devset"))
HEADER_FIELDS = ("Course Title:", "Course Link:", "Course Instructor:")
K = 5


def write_caption_library(target: Path) -> None:
    """Write one course folder per lecture-set course into `target`: course.txt and its caption files."""
    lessons: dict[str, list[dict]] = {}
    for entry in json.loads((DEVSET / "manifest.json").read_text()):
        lessons.setdefault(entry["slug"], []).append(entry)
    for slug, entries in lessons.items():
        folder = target / slug
        folder.mkdir(parents=True)
        # The course fields as the TXT version has them, so both versions are the same course.
        header = [
            line
            for line in (DEVSET / "docs" / f"{slug}.txt").read_text().splitlines()[:5]
            if line.startswith(HEADER_FIELDS)
        ]
        for entry in sorted(entries, key=lambda entry: entry["lesson"]):
            caption = DEVSET / entry["caption_file"]
            shutil.copy(caption, folder / caption.name)
            header += [
                "",
                f"Lesson {entry['lesson']}: {entry['title']}",
                f"Lesson Link: {entry['youtube']}",
                f"Lesson Captions: {caption.name}",
            ]
        (folder / "course.txt").write_text("\n".join(header) + "\n")


def _squeezed(text: str) -> str:
    """Lower case, single spaces, no punctuation at word ends: evidence compared across both versions."""
    return " ".join(word.strip(".,;:!?\"'()") for word in text.lower().split())


def score(docs: Path, root: Path, questions: list[dict], answers: bool) -> dict[str, int]:
    """Index `docs` into a private index under `root`; count the questions each measure gets right."""
    settings = load_settings(
        {
            "DOCS_DIR": str(docs),
            "INSTANCE_PATH": str(root),
            "CHROMA_PATH": str(root / "chroma"),
            "CHROMA_HOST": None,
            "ANTHROPIC_API_KEY": None,
        }
    )
    index = CourseIndex(settings)
    report = Indexer(settings, index).sync()
    assert not report.problems, report.problems
    assistant = Assistant(settings, index)
    measures = ("lesson in top 5", "evidence in top 5", *(("evidence in answer",) if answers else ()))
    counts = dict.fromkeys(measures, 0)
    for question in questions:
        passages = index.search(question["question"], k=K)
        # A question names one course or several, and one evidence phrase or several; any one counts.
        courses = question["course"] if isinstance(question["course"], list) else [question["course"]]
        phrases = question["evidence"] if isinstance(question["evidence"], list) else [question["evidence"]]
        evidence = [_squeezed(phrase) for phrase in phrases]
        places = {(passage.course_title, passage.lesson_number) for passage in passages}
        counts["lesson in top 5"] += any(
            (course, lesson) in places for course in courses for lesson in question["lessons"]
        )
        texts = " ".join(_squeezed(passage.text) for passage in passages)
        counts["evidence in top 5"] += any(phrase in texts for phrase in evidence)
        if answers:
            answer = _squeezed(assistant.answer(question["question"], []).markdown)
            counts["evidence in answer"] += any(phrase in answer for phrase in evidence)
    return counts


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> None:
    """Write the caption folders (`--write DIR`), or compare captions with TXT on the questions."""
    argv = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if argv[:1] == ["--write"]:
        write_caption_library(Path(argv[1]))
        out(f"Caption courses written into {argv[1]}")
        return
    questions = [json.loads(line) for line in (DEVSET / "questions.jsonl").read_text().splitlines() if line]
    questions = [question for question in questions if question.get("evidence") and question.get("lessons")]
    answers = "--answers" in argv
    # `--course SLUG`: one course of the set and its questions only, for a quicker comparison.
    slug = argv[argv.index("--course") + 1] if "--course" in argv else None
    with tempfile.TemporaryDirectory(prefix="captions-eval-") as tmp:
        captions, txt = Path(tmp) / "captions", Path(tmp) / "txt-docs"
        write_caption_library(captions)
        txt.mkdir()
        for course in sorted((DEVSET / "docs").glob("*.txt")):
            if slug is None or course.stem == slug:
                shutil.copy(course, txt / course.name)
            elif (captions / course.stem).is_dir():
                shutil.rmtree(captions / course.stem)
        if slug is not None:
            title = (txt / f"{slug}.txt").read_text().splitlines()[0].removeprefix("Course Title:").strip()
            questions = [
                q
                for q in questions
                if title in (q["course"] if isinstance(q["course"], list) else [q["course"]])
            ]
        results = {
            "TXT": score(txt, Path(tmp) / "txt", questions, answers),
            "captions": score(captions, Path(tmp) / "vtt", questions, answers),
        }
    out(
        f"Lecture set{f' ({slug})' if slug else ''}, {len(questions)} questions with evidence:"
        " TXT against captions"
    )
    out(f"{'measure':<22}{'TXT':>6}{'captions':>10}")
    for measure in results["TXT"]:
        out(f"{measure:<22}{results['TXT'][measure]:>6}{results['captions'][measure]:>10}")


if __name__ == "__main__":
    main()
