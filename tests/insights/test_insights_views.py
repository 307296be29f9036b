"""The insights page on SQLite and PostgreSQL: sign-in, CSRF, period, chart, lessons, gaps, CSV, purge."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.helpers import CountingEmbedder
from tests.insights.conftest import down_voted, log
from tests.web.admin_helpers import Admin, csrf_token

VECTORS = "Vector Databases from Scratch"
RAG = "Retrieval-Augmented Generation in Practice"
NOW = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
TODAY = NOW.date()
BAR = re.compile(r'<rect class="series-\d"[^>]*><title>([^<]+)</title></rect>')
GAP = re.compile(r'<li class="gap">(.*?)</li>\s*(?=<li class="gap">|</ol>)', re.S)

PROTECTED = [
    ("GET", "/admin/insights"),
    ("GET", "/admin/insights/questions.csv"),
    ("POST", "/admin/insights/purge"),
    ("GET", "/admin/playground"),
    ("POST", "/admin/playground/cases"),
    ("POST", "/admin/playground/cases/1/delete"),
]


def page(admin: Admin, **query) -> str:
    """The insights page's HTML for a query."""
    response = admin.client.get("/admin/insights", query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data(as_text=True)


def count_rows(app) -> int:
    """How many questions are logged."""
    return len(list(app.extensions["services"].store.questions.csv_rows())) - 1


@pytest.mark.parametrize("method, url", PROTECTED)
def test_every_insights_and_playground_url_needs_sign_in(insights_app, method, url):
    log(insights_app, question="kept")
    client = Admin(insights_app).client
    token = csrf_token(client)
    response = client.open(url, method=method, data={"csrf_token": token, "confirm": "yes", "question": "q"})
    assert response.status_code in (302, 303)
    assert response.location.startswith("/admin/login?next=")
    assert count_rows(insights_app) == 1


def test_the_purge_needs_the_csrf_token_and_the_confirmation(admin, insights_app):
    log(insights_app, NOW - timedelta(days=40), question="old")
    log(insights_app, question="new")

    assert admin.client.post("/admin/insights/purge", data={"confirm": "yes"}).status_code == 400
    unconfirmed = admin.post("/admin/insights/purge", {})
    assert unconfirmed.status_code == 400 and "Tick the box" in unconfirmed.get_data(as_text=True)
    assert admin.post("/admin/insights/purge", {"confirm": "yes", "older_than": "7"}).status_code == 400
    assert count_rows(insights_app) == 2

    older = admin.post("/admin/insights/purge", {"confirm": "yes", "older_than": "30"})
    assert older.status_code == 303 and older.location.endswith("/admin/insights")
    assert "Deleted 1 logged question older than 30 days." in page(admin)
    assert count_rows(insights_app) == 1

    assert admin.post("/admin/insights/purge", {"confirm": "yes", "older_than": ""}).status_code == 303
    assert count_rows(insights_app) == 0
    assert "No questions were asked in the last 30 days." in page(admin)


def test_the_chart_counts_each_days_questions_per_course_within_the_period(admin, insights_app):
    three_days_ago, ten_days_ago = TODAY - timedelta(days=3), TODAY - timedelta(days=10)
    for _ in range(3):
        log(insights_app, NOW, question="today", course=VECTORS)
    log(insights_app, NOW, question="no course")
    log(insights_app, NOW - timedelta(days=3), question="earlier", course=RAG)
    log(insights_app, NOW - timedelta(days=10), question="ten days ago", course=RAG)
    log(insights_app, NOW - timedelta(days=100), question="long ago", course=RAG)

    week = page(admin, days=7)
    assert set(BAR.findall(week)) == {
        f"{TODAY}, {VECTORS}: 3 questions",
        f"{TODAY}, No course: 1 question",
        f"{three_days_ago}, {RAG}: 1 question",
    }
    assert "5 questions from" in week and f"Busiest day: {TODAY} with 4." in week
    assert '<svg role="img" aria-labelledby="chart-title chart-desc"' in week
    assert '<title id="chart-title">Questions per day by course, the last 7 days</title>' in week
    assert ">Questions</text>" in week and ">Day (UTC, month-day)</text>" in week
    table = week[week.index('id="per-day-table"') :]
    assert re.search(
        rf"{TODAY}</time></th>\s*<td class=\"num\">3</td><td class=\"num\">1</td><td class=\"num\">0</td>",
        table,
    )

    month = page(admin, days=30)
    assert f"{ten_days_ago}, {RAG}: 1 question" in BAR.findall(month)
    assert "long ago" not in month

    custom = page(admin, **{"from": str(ten_days_ago), "to": str(three_days_ago)})
    assert set(BAR.findall(custom)) == {
        f"{ten_days_ago}, {RAG}: 1 question",
        f"{three_days_ago}, {RAG}: 1 question",
    }
    assert f"{ten_days_ago} to {three_days_ago}" in custom
    assert re.search(rf"<td>{RAG}</td><td class=\"num\">2</td>", custom)


def test_a_bad_period_says_what_is_wrong_and_keeps_the_form(admin):
    response = admin.client.get("/admin/insights", query_string={"from": "last tuesday"})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "The start date must look like 2025-01-31." in html
    assert 'value="last tuesday"' in html


def test_the_lessons_table_counts_the_answers_citing_each_lesson(admin, insights_app):
    log(insights_app, question="What is HNSW?", course=VECTORS, lessons=[(VECTORS, 2)])
    log(
        insights_app,
        question="How do HNSW layers work?",
        course=VECTORS,
        lessons=[(VECTORS, 2), (VECTORS, 1)],
    )
    html = page(admin)
    table = html[html.index('id="per-lesson-table"') :]
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td class=\"num\">(\d+)</td>\s*<td>(.*?)</td>", table, re.S)
    assert [(re.sub(r"<[^>]+>", "", name), int(count)) for name, count, _ in rows] == [
        (f"{VECTORS}, lesson 2: HNSW Graphs", 2),
        (f"{VECTORS}, lesson 1: Approximate Nearest Neighbours", 1),
    ]
    assert "How do HNSW layers work?" in rows[0][2] and "What is HNSW?" in rows[0][2]
    assert 'href="https://example.com/courses/vectordb/lesson-2"' in rows[0][0]


def test_gaps_group_declined_low_confidence_and_down_voted_questions_by_meaning(admin, insights_app):
    for question in [
        "How do I bake sourdough bread?",
        "what is a good sourdough bread recipe",
        "sourdough bread recipe please",
    ]:
        log(insights_app, question=question, declined=True)
    log(insights_app, question="What is the capital of France?", declined=True)
    log(insights_app, question="How is HNSW tuned with efSearch?", confidence=0.1, closest=(VECTORS, 2))
    down_voted(
        insights_app,
        "what does efSearch do in HNSW",
        "It never said what efSearch trades off.",
        closest=(VECTORS, 2),
    )
    log(insights_app, question="A well answered question", confidence=0.9, lessons=[(VECTORS, 1)])

    html = page(admin)
    groups = GAP.findall(html[html.index('id="gaps"') :])
    assert len(groups) == 3
    bread, hnsw, france = groups
    assert "asked 3 times" in bread and "declined: 3" in bread
    assert all(text in bread for text in ["sourdough bread recipe please", "How do I bake sourdough bread?"])
    assert "found by searching the group" in bread  # no closest lesson logged: the index was asked
    assert "asked 2 times" in hnsw and "low confidence: 1" in hnsw and "👎: 1" in hnsw
    assert "It never said what efSearch trades off." in hnsw
    assert f"{VECTORS}, lesson 2: HNSW Graphs" in hnsw and "found by searching" not in hnsw
    assert "asked 1 time" in france and "capital of France" in france
    assert "A well answered question" not in html[html.index('id="gaps"') : html.index('id="lessons-title"')]


def test_the_csv_holds_every_question_with_formulas_defused_and_a_safe_name(admin, insights_app):
    log(insights_app, NOW - timedelta(days=60), question="an old one", course=RAG)
    log(insights_app, question='=HYPERLINK("http://evil.example","click")', declined=True)
    log(insights_app, question="What is HNSW?", course=VECTORS, lessons=[(VECTORS, 2)], confidence=0.75)

    month = admin.client.get("/admin/insights/questions.csv", query_string={"days": 30})
    assert month.status_code == 200 and month.mimetype == "text/csv"
    name = re.fullmatch(
        r'attachment; filename="(question-log-[0-9]{4}-[0-9-]+-to-[0-9-]+\.csv)"',
        month.headers["Content-Disposition"],
    )
    assert name, month.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(month.get_data(as_text=True).lstrip("\ufeff"))))
    assert rows[0][:4] == ["asked_at", "question", "course", "lessons"]
    assert rows[0][4:] == ["declined", "confidence", "mode", "vote", "comment"]
    assert [row[1] for row in rows[1:]] == ['\'=HYPERLINK("http://evil.example","click")', "What is HNSW?"]
    assert rows[2][2:6] == [VECTORS, f"{VECTORS} 2", "no", "0.750"]

    everything = admin.client.get("/admin/insights/questions.csv", query_string={"all": 1})
    assert re.fullmatch(
        r'attachment; filename="question-log-[0-9-]+\.csv"', everything.headers["Content-Disposition"]
    )
    assert len(list(csv.reader(io.StringIO(everything.get_data(as_text=True))))) == 4


def test_a_second_view_embeds_only_the_gap_questions_asked_since(sqlite_app):
    services = sqlite_app.extensions["services"]
    services.index.embedder = counting = CountingEmbedder(services.index.embedder)
    admin = Admin(sqlite_app)
    admin.login()
    log(sqlite_app, question="Is there a lesson on quantum annealing?", declined=True)
    log(sqlite_app, question="Does any course cover quantum annealing?", declined=True)

    assert "asked 2 times" in page(admin)
    first = counting.documents
    assert first == 2
    log(sqlite_app, question="How do I reset my password?", declined=True)
    assert "How do I reset my password?" in page(admin)
    assert counting.documents == first + 1
