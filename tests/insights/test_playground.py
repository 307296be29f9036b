"""The retrieval playground: the ranks behind /api/search's results, saving a test case, `flask eval`."""

from __future__ import annotations

import html as markup
import re

import pytest

from bench.eval_saved import run_saved_cases
from tests.servers import flask_command
from tests.web.admin_helpers import Admin

VECTORS = "Vector Databases from Scratch"
PASSAGE = re.compile(r'<li class="ranked" id="passage-\d+"(.*?)>', re.S)
ATTRIBUTE = re.compile(r'data-([a-z]+)="([^"]*)"')
SEARCHES = [
    {"q": "what is HNSW"},
    {"q": "fixture teardown", "k": 8},
    {"q": "how are documents split into chunks", "k": 3},
    {"q": "layers of the graph", "course": VECTORS},
    {"q": "metadata filters", "course": VECTORS, "lesson": 3},
    {"q": "banana yield"},
]


@pytest.fixture
def admin(sqlite_app) -> Admin:
    """A signed-in admin on the default SQLite database."""
    client = Admin(sqlite_app)
    assert client.login().status_code == 303
    return client


def shown(admin: Admin, **query) -> list[dict[str, str]]:
    """The passages the playground shows for a query, as their data attributes."""
    response = admin.client.get("/admin/playground", query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return [
        {name: markup.unescape(value) for name, value in ATTRIBUTE.findall(attributes)}
        for attributes in PASSAGE.findall(response.get_data(as_text=True))
    ]


@pytest.mark.parametrize("query", SEARCHES, ids=[search["q"] for search in SEARCHES])
def test_the_playground_shows_the_search_results_with_their_ranks(admin, query):
    expected = admin.client.get("/api/search", query_string={"k": 5, **query}).get_json()["results"]

    passages = shown(admin, **query)

    assert expected, "the search should find something"
    assert [(p["course"], int(p["lesson"]), int(p["chunk"])) for p in passages] == [
        (r["course_title"], r["lesson_number"], r["chunk_index"]) for r in expected
    ]
    assert [float(p["cosine"]) for p in passages] == pytest.approx([r["score"] for r in expected], abs=1e-4)
    assert [int(p["fused"]) for p in passages] == list(range(1, len(expected) + 1))
    for p in passages:
        assert p["dense"] or p["keyword"], "a result comes from at least one ranking"
    # The meaning rank orders the passages by cosine.
    by_meaning = sorted((int(p["dense"]), float(p["cosine"])) for p in passages if p["dense"])
    assert [cosine for _, cosine in by_meaning] == sorted((cosine for _, cosine in by_meaning), reverse=True)


def test_a_word_only_some_passages_hold_gives_only_those_a_keyword_rank(admin):
    passages = shown(admin, q="fixture teardown", k=8)
    with_keyword = [p for p in passages if p["keyword"]]
    assert with_keyword and all(p["course"] == "Python Testing with Pytest" for p in with_keyword)
    assert any(not p["keyword"] for p in passages)  # the rest came by meaning alone
    assert min(int(p["keyword"]) for p in with_keyword) == 1


def test_a_keyword_match_far_down_by_meaning_is_fused_first(admin):
    first = shown(admin, q="banana yield")[0]
    assert first["keyword"] == "1" and int(first["dense"]) > 3


def test_bad_filters_are_explained_and_the_form_kept(admin):
    unknown = admin.client.get(
        "/admin/playground", query_string={"q": "graphs", "course": "Underwater Basket Weaving"}
    )
    assert unknown.status_code == 404 and 'value="graphs"' in unknown.get_data(as_text=True)
    assert 'role="alert"' in unknown.get_data(as_text=True)
    bad_lesson = admin.client.get("/admin/playground", query_string={"q": "graphs", "lesson": "two"})
    assert bad_lesson.status_code == 400 and "A lesson is a whole number" in bad_lesson.get_data(as_text=True)
    no_lesson = admin.client.get(
        "/admin/playground", query_string={"q": "graphs", "course": VECTORS, "lesson": 9}
    )
    assert no_lesson.status_code == 404 and "has no lesson 9" in no_lesson.get_data(as_text=True)


GOLD = re.compile(r'name="gold" value="([^"]+)"')
EVIDENCE = re.compile(r'id="evidence-1-(\d+)" name="evidence" value="([^"]+)"')


def save_first_passage(admin: Admin, question: str, sentences: int = 1):
    """Search, then save the question with the first passage's lesson and its first sentences as evidence."""
    html = admin.client.get("/admin/playground", query_string={"q": question}).get_data(as_text=True)
    gold = markup.unescape(GOLD.search(html).group(1))
    evidence = [markup.unescape(value) for _, value in EVIDENCE.findall(html)[:sentences]]
    return (
        gold,
        evidence,
        admin.post("/admin/playground/cases", {"question": question, "gold": gold, "evidence": evidence}),
    )


def test_save_a_case_then_flask_eval_runs_it(insights_app):
    admin = Admin(insights_app)
    admin.login()
    cases = insights_app.extensions["services"].store.eval_cases

    assert (
        admin.client.post(
            "/admin/playground/cases", data={"question": "q", "gold": "2:" + VECTORS}
        ).status_code
        == 400
    )
    assert admin.post("/admin/playground/cases", {"question": "what is HNSW"}).status_code == 400
    assert cases.all() == []

    gold, evidence, response = save_first_passage(admin, "what is HNSW", sentences=2)
    assert gold == f"2:{VECTORS}" and len(evidence) == 2
    assert response.status_code == 303 and "q=what+is+HNSW" in response.location
    [case] = cases.all()
    assert (case.question, case.gold_course, case.gold_lesson) == ("what is HNSW", VECTORS, 2)
    assert case.evidence.splitlines() == evidence
    page = admin.client.get(response.location).get_data(as_text=True)
    assert "Saved test case #" in page and evidence[0] in page[page.index('id="cases-table"') :]
    # A case that cannot pass: its gold lesson is never found, its evidence never shown.
    cases.save("what is HNSW", "Python Testing with Pytest", 3, "no passage says this")

    result = insights_app.test_cli_runner().invoke(args=["eval"])

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"-> {VECTORS}, lesson 2: rank 1, evidence found" in lines[0]
    assert "-> Python Testing with Pytest, lesson 3: not in top 5, evidence missing" in lines[1]
    assert lines[-1] == "saved cases: 2  hit@1 1/2  hit@5 1/2  evidence@5 1/2"
    assert insights_app.test_cli_runner().invoke(args=["eval", "--strict"]).exit_code == 1
    # The page's "Run saved cases" button shows the same, each case's rank and evidence in its row.
    assert 'action="/admin/playground/cases/run"' in page and ">Run saved cases</button>" in page
    ran = admin.client.get("/admin/playground/cases/run").get_data(as_text=True)
    totals = " ".join(re.search(r'<p class="case-totals" role="status">(.*?)</p>', ran, re.DOTALL)[1].split())
    assert totals == (
        "Gold lesson first in 1 of 2, in the top five in 1 of 2; evidence in the top five in 1 of 2."
    )
    ranks = re.findall(r'<td class="case-rank">([^<]*)</td>', ran)
    found = re.findall(r'<td class="case-evidence-found">([^<]*)</td>', ran)
    assert sorted(zip(ranks, found, strict=True)) == [("1", "yes"), ("not in the top five", "no")]

    delete = admin.post(f"/admin/playground/cases/{case.id}/delete")
    assert delete.status_code == 303 and len(cases.all()) == 1
    assert admin.post(f"/admin/playground/cases/{case.id}/delete").status_code == 404


def test_flask_eval_without_cases_says_how_to_make_one(sqlite_app):
    result = sqlite_app.test_cli_runner().invoke(args=["eval"])
    assert result.exit_code == 0 and "Save one from the retrieval playground" in result.output


def test_flask_eval_runs_the_saved_cases_in_its_own_process(sqlite_app, tmp_path, docs_dir):
    sqlite_app.extensions["services"].store.eval_cases.save("what is HNSW", VECTORS, 2, "graph index")
    sqlite_app.extensions["services"].store.close()

    result = flask_command(tmp_path, docs_dir, "eval")

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "saved cases: 1  hit@1 1/1  hit@5 1/1  evidence@5 1/1"


def test_make_eval_prints_the_saved_cases_on_its_index(sqlite_app, capsys):
    services = sqlite_app.extensions["services"]
    services.store.eval_cases.save("how do fixtures clean up", "Python Testing with Pytest", 2)

    run_saved_cases(services.index, services.store)

    output = capsys.readouterr().out
    assert "## Saved playground cases" in output
    assert "saved cases: 1  hit@1 1/1  hit@5 1/1  evidence@5 0/0" in output
