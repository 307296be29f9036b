"""Captioned courses through sync and search: times in the index, timed links, refused caption files."""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from app import create_app
from app.assistant.citations import search_result_block
from app.assistant.tools import SEARCH_TOOL
from app.search.models import FileResult
from tests.conftest import make_config
from tests.helpers import FakeEmbedder, Library, course_text

CAPTIONS = Path(__file__).parent / "data" / "captions"
LECTURE = "00-P3FKHH2RzjI.vtt"
VIDEO = "https://www.youtube.com/watch?v=P3FKHH2RzjI"
TITLE = "Yale PSYC 110: Introduction to Psychology"
HEADER = f"""Course Title: {TITLE}
Course Link: https://oyc.yale.edu/psychology/psyc-110
Course Instructor: Paul Bloom

Lesson 1: Introduction
Lesson Link: {VIDEO}
Lesson Captions: {LECTURE}
"""
_TIMING = re.compile(r"^(\d+):(\d\d):(\d\d)\.(\d{3}) -->")
_TAG = re.compile(r"<[^>]*>")


def write_course(folder: Path) -> Path:
    """The captioned course folder: course.txt and one real lecture's captions."""
    folder.mkdir(parents=True)
    (folder / "course.txt").write_text(HEADER)
    shutil.copy(CAPTIONS / LECTURE, folder / LECTURE)
    return folder


def cue_starts(path: Path) -> list[tuple[float, str]]:
    """Each cue's start second and text, read plainly from the WebVTT file (independently of the app)."""
    cues: list[tuple[float, str]] = []
    lines = path.read_text().replace("\r\n", "\n").split("\n")
    for number, line in enumerate(lines):
        match = _TIMING.match(line)
        if match:
            hours, minutes, seconds, millis = (int(part) for part in match.groups())
            text = []
            for following in lines[number + 1 :]:
                if not following.strip():
                    break
                text.append(_TAG.sub("", following).strip())
            cues.append((hours * 3600 + minutes * 60 + seconds + millis / 1000, " ".join(text)))
    return cues


def said_at(sentence: str, cues: list[tuple[float, str]]) -> float:
    """The start of the cue where `sentence` begins (its first words matched across cue boundaries)."""
    words = " ".join(sentence.lower().split()[:6])
    joined, starts = "", []
    for start, text in cues:
        starts.append((len(joined), start))
        joined += " ".join(text.lower().split()) + " "
    position = joined.find(words)
    assert position != -1, f"not in the captions: {sentence!r}"
    return max(start for offset, start in starts if offset <= position)


def link_second(link: str) -> int:
    """The `t=<s>s` second of a YouTube link."""
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://www.youtube.com/watch"
    query = parse_qs(parts.query)
    assert query["v"] == ["P3FKHH2RzjI"]
    return int(query["t"][0].removesuffix("s"))


@pytest.fixture(scope="module")
def captioned(tmp_path_factory) -> Path:
    """A library of the captioned course and one TXT course, indexed once with the real model."""
    root = tmp_path_factory.mktemp("captioned")
    source = root / "source"
    write_course(source / "psyc110")
    (source / "garden.txt").write_text(course_text("Garden Basics", "Tomato seedlings want full sun."))
    Library.indexed(root / "lib", source)
    return root / "lib"


@pytest.fixture
def app(captioned):
    """An extractive app over the captioned library."""
    app = create_app(
        make_config(captioned, captioned / "docs", CHROMA_PATH=str(captioned / "instance" / "chroma"))
    )
    app.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
    return app


def test_a_caption_folder_is_a_course_with_timed_passages_and_lesson_lengths(app):
    index = app.extensions["services"].index
    record = next(record for record in index.courses() if record.title == TITLE)
    assert record.source_file == "psyc110" and record.captioned
    [lesson] = record.lessons
    assert lesson.link == VIDEO and 1700 < lesson.duration < 1800
    garden = next(record for record in index.courses() if record.title == "Garden Basics")
    assert not garden.captioned and garden.lessons[0].duration is None
    passages = index.search("syllabus on the website", course="psyc")
    assert passages and all(passage.sentence_times for passage in passages)
    first = passages[0]
    assert first.start_seconds() == first.sentence_times[0][1]
    # Unchanged folder: nothing to do on the next sync.
    report = app.extensions["services"].indexer.sync()
    assert {result.file: result.status for result in report.results}["psyc110"] == "unchanged"


def test_search_json_gives_a_timed_passage_its_second_and_an_untimed_one_none(app):
    client = app.test_client()
    [timed] = client.get("/api/search?q=syllabus website&course=psyc&k=1").get_json()["results"]
    assert isinstance(timed["start_seconds"], float)
    assert link_second(timed["lesson_link"]) == int(timed["start_seconds"])
    [plain] = client.get("/api/search?q=tomato seedlings&course=garden&k=1").get_json()["results"]
    assert "start_seconds" not in plain


def test_an_extractive_source_opens_the_video_where_the_quoted_sentence_is_said(app):
    client = app.test_client()
    body = client.post("/api/query", json={"query": "Why are the lectures being filmed?"}).get_json()
    citation = body["citations"][0]
    assert citation["course"] == TITLE
    second = link_second(citation["link"])
    assert second == int(citation["start_seconds"])
    assert re.search(r"Lesson 1 · \d+:\d\d: Introduction$", citation["label"])
    # The answer quotes the lesson's sentences under its label (no time: each sentence has its own), each
    # after a link to the second it is said at; the source is timed at one of them.
    heading = "**" + re.sub(r" · \d+:\d\d", "", citation["label"]) + "**"
    quoted = body["answer"].split(heading, 1)[1].strip().split("\n\n")[0]
    timed = re.findall(r"\[(\d+):(\d\d)\]\(<([^>]+)>\) ([^\[]+)", quoted)
    assert timed, quoted
    cues = cue_starts(CAPTIONS / LECTURE)
    for minutes, seconds, link, sentences in timed:
        assert link_second(link) == int(minutes) * 60 + int(seconds)
        first = sentences.split(" … ")[0].replace("\\", "")
        assert abs(said_at(first, cues) - link_second(link)) <= 5, (link, first)
    assert second in {link_second(link) for _, _, link, _ in timed}


# -- refused caption files: each with its line, and the indexed version stays --------------------------------

BACKWARDS = (
    b"WEBVTT\n\n00:00:05.000 --> 00:00:08.000\nFirst words.\n\n00:00:02.000 --> 00:00:04.000\nBack again.\n"
)
BAD_SRT = b"1\n00:00:01,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:03,000 --> 00:00:4,5\nBroken.\n"
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"


@pytest.mark.parametrize(
    ("name", "data"), [("talk.vtt", BACKWARDS), ("talk.srt", BAD_SRT), ("talk.vtt", BINARY)]
)
def test_a_bad_caption_file_is_refused_with_its_line_and_the_index_keeps_its_version(tmp_path, name, data):
    library = Library(tmp_path, embedder=FakeEmbedder())
    (library.docs / name).write_bytes(VTT_GOOD if name.endswith(".vtt") else SRT_GOOD)
    first = library.indexer.sync()
    assert not first.problems
    before = library.index.courses()
    (library.docs / name).write_bytes(data)
    report = library.indexer.sync()
    [result] = report.results
    assert isinstance(result, FileResult) and result.status == "failed"
    assert result.error.startswith(f"{name}: ") and re.search(r"\(line \d+\)$", result.error), result.error
    assert library.index.courses() == before


VTT_GOOD = (
    b"WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nHello class.\n\n00:00:04.000 --> 00:00:06.000\nWe begin.\n"
)
SRT_GOOD = b"1\n00:00:01,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:03,000 --> 00:00:04,000\nWelcome.\n"


def test_refusals_name_the_reason(tmp_path):
    library = Library(tmp_path, embedder=FakeEmbedder())
    for name, data in (("back.vtt", BACKWARDS), ("bad.srt", BAD_SRT), ("image.vtt", BINARY)):
        (library.docs / name).write_bytes(data)
    errors = {result.file: result.error for result in library.indexer.sync().results}
    assert "(line 6)" in errors["back.vtt"]
    assert "(line 6)" in errors["bad.srt"]
    assert "(line 1)" in errors["image.vtt"]
    assert library.index.courses() == []


# -- Claude citations: timed at the cited sentence, and checked against the passage they name ----------------


def test_a_claude_citation_opens_the_video_at_its_sentence_and_a_wrong_quote_shows_no_marker(
    captioned, fake_claude
):
    config = make_config(
        captioned,
        captioned / "docs",
        CHROMA_PATH=str(captioned / "instance" / "chroma"),
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_claude.url,
        METRICS_ENABLED="true",
    )
    app = create_app(config)
    app.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
    search = {"query": "why the lectures are filmed", "course_name": "psyc", "lesson_number": 1}
    passages = app.extensions["services"].assistant.toolbox.search(**search).passages
    blocks = [search_result_block(passage) for passage in passages]
    block = blocks[0]
    cited = 2 if len(block["content"]) > 2 else 0  # a sentence inside the passage, not its first
    sentence = block["content"][cited]["text"]
    wrong = fake_claude.citation(block, 0)
    wrong["cited_text"] = "The lectures are filmed so the professor can sell them."
    fake_claude.enqueue_tool_use(SEARCH_TOOL, search)
    fake_claude.enqueue_cited(
        ("The course is filmed for open courseware.", [fake_claude.citation(block, 0, cited)]),
        " ",
        ("It is sold afterwards.", [wrong]),
    )
    client = app.test_client()
    before = _unverified(client)
    lines = _Lines()
    logging.getLogger("course_assistant.requests").addHandler(lines)
    try:
        response = client.post("/api/query", json={"query": "Why are the lectures filmed?"})
        body = response.get_json()
        response.close()
    finally:
        logging.getLogger("course_assistant.requests").removeHandler(lines)

    assert body["answer"] == "The course is filmed for open courseware.[^1] It is sold afterwards."
    citation = body["citations"][0]
    second = link_second(citation["link"])
    assert abs(said_at(sentence, cue_starts(CAPTIONS / LECTURE)) - second) <= 5
    assert citation["start_seconds"] == passages[0].start_seconds(sentence)
    assert _unverified(client) == before + 1
    [logged] = [line for line in lines.lines if line["path"] == "/api/query"]
    assert logged["unverified_citations"] == [wrong["cited_text"]]


class _Lines(logging.Handler):
    """Collect the request log's lines as parsed JSON."""

    def __init__(self):
        super().__init__()
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(record.getMessage()))


def _unverified(client) -> float:
    """The unverified-citations counter from /metrics."""
    body = client.get("/metrics").get_data(as_text=True)
    line = next(
        line for line in body.splitlines() if line.startswith("course_assistant_unverified_citations_total")
    )
    return float(line.split()[-1])
