"""The command line: `flask index | search | ask` through the Flask CLI runner and the real `flask` script."""

from __future__ import annotations

import json
import socket

import pytest

from tests.servers import flask_command

RAG = "Retrieval-Augmented Generation in Practice"
VECTORS = "Vector Databases from Scratch"
PYTEST = "Python Testing with Pytest"
API_KEYS = {"course_title", "lesson_number", "lesson_title", "lesson_link", "chunk_index", "score", "text"}
NEW_COURSE = """Course Title: Kubernetes Basics
Course Link: https://example.com/courses/k8s

Lesson 1: Pods
Lesson Link: https://example.com/courses/k8s/lesson-1
A pod is the smallest deployable unit in Kubernetes. It groups one or more containers that share a network
namespace and storage volumes, and the scheduler places the whole pod on a single node.
"""


def invoke(app, *args: str, input: str | None = None):
    """Run a CLI command against `app` and return the click Result."""
    return app.test_cli_runner().invoke(args=list(args), input=input)


def json_lines(text: str) -> list[dict]:
    """Parse one JSON document per non-empty line."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# -- index ------------------------------------------------------------------------------------------------


def test_index_of_an_indexed_library_changes_nothing(app):
    result = invoke(app, "index")
    assert result.exit_code == 0, result.output
    assert (
        "Synced: 0 added, 0 updated, 3 unchanged, 0 removed, 0 failed, 0 refused; 0 chunks" in result.stdout
    )
    assert "Indexing" in result.stderr and "embedded folder" in result.stderr


def test_index_reports_each_change_and_exits_1_when_a_file_fails(app, docs_dir):
    (docs_dir / "kubernetes.txt").write_text(NEW_COURSE)
    with (docs_dir / "rag_in_practice.txt").open("a") as rag:
        rag.write("\nRerankers reorder the retrieved passages with a slower, more precise model.\n")
    (docs_dir / "pytest_testing.txt").unlink()
    (docs_dir / "empty.txt").write_text("")

    result = invoke(app, "index")

    assert result.exit_code == 1, "a failed file must make scripts notice"
    lines = result.stdout.splitlines()
    assert any(
        line.split()[:2] == ["added", "kubernetes.txt"] and "(Kubernetes Basics" in line for line in lines
    )
    assert any(line.split()[:2] == ["updated", "rag_in_practice.txt"] and RAG in line for line in lines)
    assert any(line.split()[:2] == ["removed", "pytest_testing.txt"] and PYTEST in line for line in lines)
    failed = [line for line in lines if line.split()[:2] == ["failed", "empty.txt:"]]
    assert len(failed) == 1 and len(failed[0].split()) > 3, "a failure carries its reason"
    assert "1 added, 1 updated, 1 unchanged, 1 removed, 1 failed, 0 refused" in lines[-1]

    courses = app.extensions["services"].index.courses()
    assert [course.title for course in courses] == ["Kubernetes Basics", RAG, VECTORS]


def test_index_refuses_a_second_file_with_the_same_title(app, docs_dir):
    copy = (docs_dir / "rag_in_practice.txt").read_text().replace("Lesson 1:", "Lesson 1:", 1)
    (docs_dir / "rag_copy.txt").write_text(copy + "\nA different ending.\n")

    result = invoke(app, "index")

    assert result.exit_code == 1
    refused = [line for line in result.stdout.splitlines() if line.split()[:1] == ["refused"]]
    assert len(refused) == 1 and "rag_copy.txt" in refused[0] and "rag_in_practice.txt" in refused[0]
    assert "0 added, 0 updated, 3 unchanged, 0 removed, 0 failed, 1 refused" in result.stdout


def test_index_rebuild_indexes_everything_again(app):
    result = invoke(app, "index", "--rebuild")
    assert result.exit_code == 0, result.output
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith("Rebuilt: 0 added, 3 updated, 0 unchanged")
    chunks = int(summary.split("; ")[1].split()[0])
    courses = app.extensions["services"].index.courses()
    assert chunks == sum(course.chunk_count for course in courses) > 0


# -- search -----------------------------------------------------------------------------------------------


def test_search_prints_ranked_passages_with_links(app):
    result = invoke(
        app, "search", "how big should chunks be and how much should they overlap", "--course", "RAG"
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. [") and f"{RAG} – Lesson 2: Chunking Documents" in lines[0]
    assert lines[1].strip() == "https://example.com/courses/rag/lesson-2"
    assert lines[2].strip(), "a snippet follows the link"
    headings = [line for line in lines if line[:1].isdigit()]
    rag = app.extensions["services"].index.resolve_course("RAG")
    assert len(headings) == min(5, rag.chunk_count) > 1 and all(RAG in line for line in headings)


def test_search_json_has_the_api_shape(app):
    result = invoke(app, "search", "HNSW layers and ef_search", "--course", "vector", "-k", "2", "--json")
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)["results"]
    assert len(results) == 2
    assert all(set(item) == API_KEYS for item in results)
    assert {item["course_title"] for item in results} == {VECTORS}
    top = results[0]
    assert (top["lesson_number"], top["lesson_title"]) == (2, "HNSW Graphs")
    assert top["lesson_link"] == "https://example.com/courses/vectordb/lesson-2"
    assert top["score"] >= results[1]["score"]


def test_search_filters_by_lesson(app):
    result = invoke(
        app, "search", "how do I share setup code", "--course", "pytest", "--lesson", "1", "--json"
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)["results"]
    assert results and {(item["course_title"], item["lesson_number"]) for item in results} == {(PYTEST, 1)}


def test_search_for_a_blank_query_exits_2(app):
    result = invoke(app, "search", "   ")
    assert result.exit_code == 2
    assert result.stderr.strip() == "Error: Give a query to search for."


def test_search_for_an_unknown_course_exits_2_with_the_message(app):
    result = invoke(app, "search", "pods", "--course", "Kubernetes for beginners", "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: No course matches 'Kubernetes for beginners'.")
    assert all(title in result.stderr for title in (RAG, VECTORS, PYTEST))
    assert len(result.stderr.strip().splitlines()) == 1


def test_search_for_a_missing_lesson_exits_2(app):
    result = invoke(app, "search", "fixtures", "--course", "pytest", "--lesson", "9")
    assert result.exit_code == 2
    assert "no lesson 9" in result.stderr


def test_search_batch_answers_each_line_and_reports_bad_ones(app):
    lines = [
        json.dumps({"q": "what is a fixture", "course": "pytest", "k": 2}),
        "not json",
        "",
        json.dumps({"course": "RAG"}),
        json.dumps({"q": "pods", "course": "Kubernetes for beginners"}),
        json.dumps({"q": "entry point of the course", "course": "vector", "lesson": 0, "k": 1}),
    ]
    result = invoke(app, "search", "-", input="\n".join(lines) + "\n")

    assert result.exit_code == 1, "a bad line makes the batch exit 1"
    replies = json_lines(result.stdout)
    assert len(replies) == 5, "one reply per non-blank line, in order"
    fixture, bad_json, no_query, unknown, intro = replies
    assert len(fixture["results"]) == 2 and {item["course_title"] for item in fixture["results"]} == {PYTEST}
    assert set(fixture["results"][0]) == API_KEYS
    assert bad_json["line"] == 2 and bad_json["error"]
    assert no_query["line"] == 4 and no_query["error"].startswith("q:")
    assert unknown["line"] == 5 and "No course matches" in unknown["error"]
    assert [(item["course_title"], item["lesson_number"]) for item in intro["results"]] == [(VECTORS, 0)]


def test_search_batch_of_good_lines_exits_0(app):
    lines = [json.dumps({"q": question}) for question in ("HNSW", "fixtures", "evaluation of answers")]
    result = invoke(app, "search", "-", input="\n".join(lines))
    assert result.exit_code == 0, result.output
    assert [len(reply["results"]) for reply in json_lines(result.stdout)] == [5, 5, 5]


# -- ask --------------------------------------------------------------------------------------------------


def sources_of(stdout: str) -> list[str]:
    """The lines listed under "Sources:"."""
    lines = stdout.splitlines()
    return [line.strip() for line in lines[lines.index("Sources:") + 1 :] if line.strip()]


def test_ask_without_a_key_answers_extractively_with_sources(app):
    result = invoke(app, "ask", "What does the HNSW graphs lesson of the vector database course explain?")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == "Mode: extractive (no ANTHROPIC_API_KEY set)"
    sources = sources_of(result.stdout)
    assert sources and sources[0].startswith("[1] ")
    assert any(f"{VECTORS} – Lesson 2: HNSW Graphs" in source for source in sources)
    assert all("<https://example.com/courses/" in source for source in sources)


def test_ask_with_claude_prints_the_answer_and_the_sources_it_used(claude_app, fake_claude):
    fake_claude.enqueue_tool_use("search_course_content", {"query": "HNSW layers", "course_name": "vector"})
    fake_claude.enqueue_text("HNSW keeps a hierarchy of proximity graphs and searches them greedily.")

    result = invoke(claude_app, "ask", "How does HNSW work?")

    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == "Mode: Claude (claude-sonnet-5-5)"
    assert result.stdout.startswith("HNSW keeps a hierarchy of proximity graphs")
    sources = sources_of(result.stdout)
    assert sources and all(VECTORS in source for source in sources)
    first, second = fake_claude.requests
    assert "How does HNSW work?" in json.dumps(first["messages"])
    tool_results = [block for block in second["messages"][-1]["content"] if block["type"] == "tool_result"]
    assert len(tool_results) == 1 and "HNSW" in json.dumps(tool_results[0])


def test_ask_exits_1_in_one_line_when_claude_keeps_failing(make_app, fake_claude):
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, ANTHROPIC_MAX_RETRIES=1)
    fake_claude.enqueue_error(529, "Overloaded", times=2)

    result = invoke(app, "ask", "What is RAG?")

    assert result.exit_code == 1
    assert result.stdout == ""
    error = result.stderr.strip().splitlines()
    assert len(error) == 2 and error[0].startswith("Mode: Claude") and error[1].startswith("Error: ")
    assert len(fake_claude.requests) == 2, "the SDK retried once, then the CLI gave up"


def closed_port() -> int:
    """A loopback port with nothing listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_ask_exits_1_when_the_model_cannot_be_reached(make_app):
    base_url = f"http://127.0.0.1:{closed_port()}"
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=base_url, ANTHROPIC_MAX_RETRIES=0)

    result = invoke(app, "ask", "What is RAG?")

    assert result.exit_code == 1
    assert result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ") and "Traceback" not in result.stderr


def test_ask_with_an_empty_question_exits_2(app):
    result = invoke(app, "ask", "   ")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1].startswith("Error: ")


# -- the real `flask` script ------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_flask_script_streams_a_batch_search(tmp_path, make_app, docs_dir):
    make_app()  # copies the indexed library into tmp_path
    queries = [{"q": "what does retrieval add", "course": "rag", "k": 1}, {"q": "parametrize", "k": 3}]
    stdin = "".join(json.dumps(query) + "\n" for query in queries)

    result = flask_command(tmp_path, docs_dir, "search", "-", stdin=stdin)

    assert result.returncode == 0, result.stderr
    first, second = json_lines(result.stdout)
    assert [(item["course_title"], item["lesson_number"]) for item in first["results"]] == [(RAG, 1)]
    assert len(second["results"]) == 3


@pytest.mark.slow
def test_the_flask_script_reports_a_bad_setting_in_one_line(tmp_path, docs_dir):
    result = flask_command(tmp_path, docs_dir, "index", CHUNK_SIZE="abc")
    assert result.returncode == 1
    assert result.stderr.strip().startswith("Invalid setting CHUNK_SIZE:")
    assert len(result.stderr.strip().splitlines()) == 1
