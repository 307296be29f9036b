"""Gap clustering with the real embedding model, the chart's layout and the period form."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest

from app.errors import BadRequest
from app.insights.chart import build_chart
from app.insights.clustering import THRESHOLD, cluster, course_words, medoid, topic
from app.insights.period import Period, parse_period
from app.search.embedding import get_embedder
from app.store.records import DayCount

# Held out from eval/gap_groups.yaml, which fitted the threshold: three groups of paraphrases, two loners.
ENROLMENT = [
    "How do I cancel my enrollment in the course?",
    "how do I withdraw my enrollment from this course",
    "I want to drop the course, how do I do that?",
]
GPU = [
    "What GPU do I need for the labs?",
    "which graphics card is required for the lab exercises",
    "do the labs need a GPU",
]
CERTIFICATE = [
    "Is there a certificate at the end of the course?",
    "do I get a certificate when I finish",
    "can I earn a certificate for completing the class",
]
LONERS = ["What is the capital of France?", "How does photosynthesis work in plants?"]


@pytest.fixture(scope="module")
def embedder():
    """The app's embedding model."""
    return get_embedder()


def test_paraphrases_group_together_and_unrelated_questions_stay_apart(embedder):
    questions = ENROLMENT + GPU + CERTIFICATE + LONERS
    vectors = np.asarray(embedder.embed_documents(questions))

    groups = [sorted(questions[index] for index in group) for group in cluster(vectors)]

    assert sorted(groups) == sorted(
        sorted(group) for group in [ENROLMENT, GPU, CERTIFICATE, *[[q] for q in LONERS]]
    )


def test_questions_about_one_course_but_different_things_stay_apart(embedder):
    questions = [
        "Who teaches the game theory course?",
        "Does the game theory course cover auctions?",
        "When is the final exam of the game theory course?",
    ]
    names = course_words(["Yale ECON 159: Game Theory"])
    topics = [topic(question, names) for question in questions]
    assert topics[1] == "Does the cover auctions?"
    assert cluster(np.asarray(embedder.embed_documents(topics))) == [[0], [1], [2]]
    # As asked, the course's name alone pulls them together.
    assert len(cluster(np.asarray(embedder.embed_documents(questions)))) < 3
    assert topic("Game Theory", names) == "Game Theory"  # nothing but a name: kept as it is


def test_clustering_is_deterministic_and_orders_groups_by_size(embedder):
    questions = LONERS + GPU + ENROLMENT[:2]
    vectors = np.asarray(embedder.embed_documents(questions))

    first = cluster(vectors)

    assert first == cluster(vectors.copy())
    assert [len(group) for group in first] == [3, 2, 1, 1]
    assert first[0] == [2, 3, 4]  # the GPU questions, in index order
    assert medoid(vectors, first[0]) in first[0]


def test_the_threshold_decides_what_merges():
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])  # cosines: 0.8, 0.6, 0.0
    assert cluster(vectors, threshold=0.9) == [[0], [1], [2]]
    assert cluster(vectors, threshold=0.7) == [[0, 1], [2]]
    # Average linkage: {0, 1} to 2 is (0.0 + 0.6) / 2 = 0.3.
    assert cluster(vectors, threshold=0.3) == [[0, 1, 2]]
    assert cluster(np.zeros((0, 2))) == []
    assert 0.3 < THRESHOLD < 0.8


def test_the_chart_stacks_each_days_courses_and_scales_to_a_round_top():
    period = Period(date(2026, 11, 1), date(2026, 11, 7))
    counts = [
        DayCount(date(2026, 11, 2), "Course A", 4),
        DayCount(date(2026, 11, 2), None, 3),
        DayCount(date(2026, 11, 5), "Course A", 1),
        DayCount(date(2026, 10, 30), "Course A", 9),  # outside the period
    ]

    chart = build_chart(counts, period)

    assert [(series.name, series.total) for series in chart.series] == [("Course A", 14), ("No course", 3)]
    assert [segment.title for segment in chart.segments] == [
        "2026-11-02, Course A: 4 questions",
        "2026-11-02, No course: 3 questions",
        "2026-11-05, Course A: 1 question",
    ]
    assert chart.total == 8
    assert [mark.label for mark in chart.y_marks] == ["0", "2", "4", "6", "8"]
    four, three = chart.segments[:2]
    assert four.height == pytest.approx(three.height * 4 / 3)
    assert four.y == pytest.approx(three.y + three.height)  # stacked: the second sits on the first
    assert len(chart.rows) == 7 and chart.rows[1].counts == [4, 3]
    assert "Busiest day: 2026-11-02 with 7" in chart.description


def test_more_courses_than_colours_share_other_courses():
    period = Period(date(2026, 11, 1), date(2026, 11, 1))
    counts = [DayCount(date(2026, 11, 1), f"Course {n}", 10 - n) for n in range(8)]
    chart = build_chart(counts, period)
    assert [series.name for series in chart.series][-1] == "Other courses"
    assert chart.series[-1].total == 5 + 4 + 3  # courses 5, 6 and 7
    assert len(chart.series) == 6


def test_the_period_comes_from_a_preset_or_a_range():
    today = date(2026, 11, 24)
    assert parse_period({}, today) == Period(today - timedelta(days=29), today, 30)
    assert parse_period({"days": "7"}, today).first == date(2026, 11, 18)
    custom = parse_period({"from": "2026-11-01", "to": "2026-11-03"}, today)
    assert (custom.first, custom.last, custom.preset) == (date(2026, 11, 1), date(2026, 11, 3), None)
    assert custom.until.isoformat() == "2026-11-04T00:00:00+00:00"
    for bad, message in [
        ({"days": "8"}, "last 7, 30 or 90 days"),
        ({"from": "yesterday"}, "start date must look like"),
        ({"from": "2026-11-05", "to": "2026-11-01"}, "after the end date"),
        ({"from": "2020-01-01", "to": "2026-11-01"}, "at most 366 days"),
    ]:
        with pytest.raises(BadRequest, match=message):
            parse_period(bad, today)
