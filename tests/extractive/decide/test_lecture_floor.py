"""The lecture set's extractive floors (outline, declines), kept once raised; slow: it indexes 19 lectures."""

from __future__ import annotations

import pytest

from app import create_app
from app.services import services
from bench.eval_questions import LECTURES, load_lectures
from bench.evaluate import app_config, evaluate

LECTURE_DOCS = LECTURES / "docs"


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_lecture_outline_questions_are_all_answered_and_most_absent_topics_declined(tmp_path):
    questions = [q for q in load_lectures() if q.kind in ("outline", "no_coverage")]
    app = create_app(app_config(tmp_path, LECTURE_DOCS, hybrid=True))
    with app.app_context():
        services().indexer.sync()
        run = evaluate(services().index, services().assistant, questions, answers=True)

    verdicts = {
        kind: [run.verdicts[q.id] for q in questions if q.kind == kind] for kind in ("outline", "no_coverage")
    }
    # Courses named by code ("ECON 159"), instructor ("bloom's") or nickname: all answered from the outline.
    assert set(verdicts["outline"]) == {"ok"}, verdicts["outline"]
    assert verdicts["no_coverage"].count("ok") >= 6, verdicts["no_coverage"]
