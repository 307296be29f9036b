"""Caption files as courses: cue parsing, markup, rolling repeats, sentence times, refusals, course shapes."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from app.courses.caption_course import MAX_ARCHIVE_MEMBERS, parse_caption_course
from app.courses.captions import caption_sentences, clean_cue_line, drop_rolling_repeats, parse_captions
from app.courses.chunking import chunk_course
from app.courses.parsing import SUPPORTED_EXTENSIONS, ParseError, parse_bytes, parse_file

DATA = Path(__file__).resolve().parent / "data"
CAPTIONS = DATA / "captions"
MIT = CAPTIONS / "06-QYwESy6isuc.vtt"  # real: <v Speaker 1> tags, CRLF, cue numbers
YALE = CAPTIONS / "00-P3FKHH2RzjI.vtt"  # real: <v N> tags at speaker changes
ROLLING = CAPTIONS / "youtube_rolling.vtt"  # written for these tests in YouTube's automatic-caption form
SRT = CAPTIONS / "lecture.srt"

COURSE_TXT = """Course Title: Psychology and Vision
Course Link: https://courses.example/psych
Course Instructor: Paul Bloom

Lesson 1: Introduction
Lesson Link: https://www.youtube.com/watch?v=P3FKHH2RzjI
Lesson Captions: 00-P3FKHH2RzjI.vtt

Lesson 2: Image Classification
Lesson Link: https://video.example/lecture2.mp4
Lesson Captions: 06-QYwESy6isuc.vtt
"""


def sentences_of(path: Path) -> list[tuple[float, str]]:
    """The (start, text) of every sentence of a caption file."""
    sentences, _ = caption_sentences(path.read_bytes(), path.name)
    return [(sentence.start, sentence.text) for sentence in sentences]


def start_of(path: Path, text: str) -> float:
    """The start time of the one sentence containing `text`."""
    found = [start for start, sentence in sentences_of(path) if text in sentence]
    assert len(found) == 1, found
    return found[0]


def refusal(data: bytes | str, name: str) -> ParseError:
    """Parse a caption file that must be refused; return the error."""
    with pytest.raises(ParseError) as caught:
        parse_bytes(data.encode() if isinstance(data, str) else data, name)
    return caught.value


# --- cues and markup ------------------------------------------------------------------------------


def test_voice_tags_and_cue_numbers_are_stripped_from_real_captions():
    text = " ".join(sentence for _, sentence in sentences_of(MIT))
    assert text.startswith("Thanks for having me here. Yeah. So I'm, uh, I'm based in the Cambridge office")
    assert "<" not in text and "Speaker" not in text and "-->" not in text
    yale = " ".join(sentence for _, sentence in sentences_of(YALE))
    assert "The syllabus is also available on this website." in yale and "<v" not in yale


def test_markup_inline_timestamps_entities_and_settings_are_stripped():
    line = "<v Prof. Ada><c.yellow>Heat</c><00:00:01.500><c> &amp; time</c></v> <i>matter</i>&nbsp;here"
    assert clean_cue_line(line) == "Heat & time matter here"
    vtt = (
        "WEBVTT - lecture\nKind: captions\nLanguage: en\n\nSTYLE\n::cue { color: red }\n\n"
        "NOTE written by hand\nacross two lines\n\nREGION\nid:left width:40%\n\n"
        "intro-cue\n00:01.000 --> 00:04.000 position:10% line:0 align:start size:35%\n<v 1>Hello there.</v>\n"
    )
    cues = parse_captions(vtt.encode(), "short.vtt")
    assert [(cue.start, cue.end, cue.text) for cue in cues] == [(1.0, 4.0, "Hello there.")]


def test_srt_cues_keep_their_times_and_lose_their_tags():
    assert sentences_of(SRT) == [
        (1.0, "Good morning."),
        (1.0, "Today's topic is the Maillard reaction."),
        (4.5, "It browns the crust of bread & the sear on a steak."),
        (62.25, "Sugar caramelises at higher heat."),
    ]


# --- rolling captions -----------------------------------------------------------------------------


def test_rolling_repeats_of_automatic_captions_are_removed():
    text = " ".join(sentence for _, sentence in sentences_of(ROLLING))
    assert text == (
        "welcome back everyone today we talk about sourdough starters. "
        "A starter is flour and water that wild yeast ferments. Feed it every day and keep it warm. Yes. Yes."
    )


def test_rolling_sentences_are_timed_at_the_cue_that_first_says_them():
    assert start_of(ROLLING, "A starter is flour") == 5.12
    assert start_of(ROLLING, "Feed it every day") == 11.64


def test_ordinary_captions_that_repeat_a_line_once_keep_it():
    vtt = "WEBVTT\n\n" + "".join(
        f"00:0{n}.000 --> 00:0{n}.900\n{word}\n\n" for n, word in enumerate(("Yes.", "Yes.", "No."), 1)
    )
    cues = parse_captions(vtt.encode(), "answers.vtt")
    for _ in range(20):
        cues += parse_captions(f"WEBVTT\n\n00:09.000 --> 00:09.500\nLine {_}.\n".encode(), "more.vtt")
    assert [cue.text for cue in drop_rolling_repeats(cues)][:3] == ["Yes.", "Yes.", "No."]


# --- sentence times -------------------------------------------------------------------------------


def test_a_sentence_is_timed_at_the_cue_where_its_first_word_is_said():
    # Cue 5 (00:00:12.211) says "learning." and then starts "We've got a large group in Google brain".
    assert start_of(MIT, "We've got a large group in Google brain") == 12.211
    assert start_of(YALE, "My name is Dr. Paul Bloom and I'm a professor for this course") == 17.18


def test_every_chunk_of_a_captioned_lesson_knows_its_sentence_times():
    course = parse_file(MIT)
    chunks = chunk_course(course, size=300, overlap=60)
    assert len(chunks) > 20
    for chunk in chunks:
        assert chunk.sentence_times and chunk.sentence_times[0][0] == 0
        offsets = [offset for offset, _ in chunk.sentence_times]
        assert offsets == sorted(offsets) and all(chunk.text[offset - 1] == " " for offset in offsets[1:])
    quoted = next(chunk for chunk in chunks if "We've got a large group" in chunk.text)
    assert quoted.start_seconds("we've got a LARGE   group in Google brain") == 12.211
    assert quoted.start_seconds() == quoted.sentence_times[0][1] <= 12.211
    assert quoted.start_seconds("words that are not in this chunk") is None


def test_long_unpunctuated_speech_gets_a_time_every_few_cues():
    cues = "".join(
        f"00:{n // 60:02d}:{n % 60:02d}.000 --> 00:{n // 60:02d}:{n % 60:02d}.900\nno full stop here {n}\n\n"
        for n in range(0, 400, 2)
    )
    sentences, _ = caption_sentences(f"WEBVTT\n\n{cues}".encode(), "ramble.vtt")
    assert len(sentences) > 10
    assert all(len(sentence.text) < 300 for sentence in sentences)
    assert [sentence.start for sentence in sentences] == sorted(sentence.start for sentence in sentences)


# --- refusals -------------------------------------------------------------------------------------


def test_timings_that_go_backwards_are_refused_with_the_line():
    vtt = "WEBVTT\n\n1\n00:00:05.000 --> 00:00:06.000\nLater.\n\n2\n00:00:01.000 --> 00:00:02.000\nEarlier.\n"
    error = refusal(vtt, "back.vtt")
    assert (error.file, error.line) == ("back.vtt", 8) and "backwards" in error.reason


def test_a_cue_that_ends_before_it_starts_is_refused():
    error = refusal("WEBVTT\n\n00:00:05.000 --> 00:00:04.000\nOops.\n", "reverse.vtt")
    assert error.line == 3 and "before it starts" in error.reason


def test_an_srt_timing_line_that_does_not_parse_is_refused_with_the_line():
    srt = "1\n00:00:01,000 --> 00:00:02,000\nFine.\n\n2\n00:00:03,000 -> 00:00:04,000\nBroken.\n"
    error = refusal(srt, "broken.srt")
    # The timing line itself (line 6), not the cue number above it.
    assert (error.file, error.line) == ("broken.srt", 6) and "timing" in error.reason
    error = refusal("1\n00:00:01,000 --> 00:61:02,000\nBad minute.\n", "minute.srt")
    assert error.line == 2 and "00:61:02,000" in error.reason


def test_a_binary_file_named_vtt_is_refused_with_a_line():
    error = refusal(b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "slides.vtt")
    assert error.line == 1 and "PNG" in error.reason
    error = refusal(b"WEBVTT\n\n00:01.000 --> 00:02.000\nok\x00\x01\x02\n", "nul.vtt")
    assert error.line == 4


def test_captions_without_cues_are_refused():
    error = refusal("WEBVTT\n\nNOTE nothing to say\n", "empty.vtt")
    assert "no caption cues" in error.reason and error.line == 4
    assert refusal(b"", "zero.srt").line == 1


def test_an_unknown_header_field_is_refused():
    error = refusal("WEBVTT\nKind: captions\nAuthor: someone\n\n00:01.000 --> 00:02.000\nHi.\n", "h.vtt")
    assert (error.line, error.reason) == (3, "unknown header field 'Author'")


def test_a_vtt_without_its_signature_and_a_block_without_timing_are_refused():
    assert refusal("00:01.000 --> 00:02.000\nHi.\n", "plain.vtt").line == 1
    error = refusal("WEBVTT\n\n00:01.000 --> 00:02.000\nHi.\n\njust some words\nand more\n", "stray.vtt")
    assert error.line == 6 and "timing line" in error.reason


# --- course shapes --------------------------------------------------------------------------------


def make_folder(tmp_path: Path, header: str = COURSE_TXT) -> Path:
    """A captioned course folder holding course.txt and the two real caption files."""
    folder = tmp_path / "psych-course"
    folder.mkdir()
    (folder / "course.txt").write_text(header)
    for path in (YALE, MIT):
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


def zip_of(members: dict[str, bytes | str]) -> bytes:
    """A ZIP archive holding the given members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_a_single_caption_file_is_one_course_of_one_lesson():
    course = parse_file(SRT)
    assert course.title == "Lecture" and course.captioned
    assert [(lesson.number, lesson.title, lesson.duration) for lesson in course.lessons] == [
        (1, "Lecture", 65.0)
    ]
    assert course.content_hash == hashlib.sha256(SRT.read_bytes()).hexdigest()


def test_a_course_folder_reads_its_header_and_caption_files(tmp_path):
    course = parse_file(make_folder(tmp_path))
    assert (course.title, course.instructor, course.link) == (
        "Psychology and Vision",
        "Paul Bloom",
        "https://courses.example/psych",
    )
    assert [(lesson.number, lesson.title, lesson.link) for lesson in course.lessons] == [
        (1, "Introduction", "https://www.youtube.com/watch?v=P3FKHH2RzjI"),
        (2, "Image Classification", "https://video.example/lecture2.mp4"),
    ]
    assert all(lesson.duration and lesson.duration > 600 for lesson in course.lessons)
    assert "Thanks for having me here." in course.lessons[1].text
    chunk = next(c for c in chunk_course(course) if "Google brain" in c.text)
    assert (chunk.lesson_number, chunk.start_seconds("We've got a large group")) == (2, 12.211)


def test_a_folder_changes_its_hash_when_a_caption_file_changes(tmp_path):
    folder = make_folder(tmp_path)
    before = parse_caption_course(folder).content_hash
    (folder / MIT.name).write_bytes(MIT.read_bytes().replace(b"Thanks for having", b"Thank you for having"))
    assert parse_caption_course(folder).content_hash != before


def test_a_folder_missing_a_named_caption_file_is_refused_at_its_line(tmp_path):
    folder = make_folder(tmp_path, COURSE_TXT.replace("06-QYwESy6isuc.vtt", "Lecture 2: vision.vtt"))
    with pytest.raises(ParseError) as caught:
        parse_file(folder)
    assert (caught.value.file, caught.value.line) == ("psych-course/course.txt", 9)
    assert "'Lecture 2: vision.vtt' is not in the folder" in caught.value.reason
    (folder / "Lecture 2: vision.vtt").write_bytes(MIT.read_bytes())
    assert len(parse_file(folder).lessons) == 2


def test_a_zip_of_the_folder_is_the_same_course(tmp_path):
    folder = make_folder(tmp_path)
    members = {f"psych-course/{path.name}": path.read_bytes() for path in folder.iterdir()}
    course = parse_bytes(zip_of(members), "psych.zip")
    assert course.model_dump(exclude={"content_hash", "source_file"}) == parse_file(folder).model_dump(
        exclude={"content_hash", "source_file"}
    )
    assert course.source_file == "psych.zip"


def test_caption_errors_inside_a_course_name_the_member_and_line(tmp_path):
    bad = "WEBVTT\n\n00:00:05.000 --> 00:00:06.000\nLater.\n\n00:00:01.000 --> 00:00:02.000\nEarlier.\n"
    header = "Lesson 1: Only\nLesson Captions: one.vtt\n"
    with pytest.raises(ParseError) as caught:
        parse_bytes(zip_of({"course.txt": header, "one.vtt": bad}), "course.zip")
    assert (caught.value.file, caught.value.line) == ("course.zip/one.vtt", 6)


@pytest.mark.parametrize(
    ("header", "line", "reason"),
    [
        ("Course Title: X\nCourse Level: easy\n", 2, "unknown header field 'Course Level'"),
        ("Lesson 1: A\nLesson Captions: one.vtt\nSome words\n", 3, "not a header field line"),
        ("Lesson 1: A\nLesson Captions: one.vtt\nLesson 1: B\n", 3, "duplicate lesson number 1"),
        ("Lesson 1: A\nLesson Link: https://v.example\n", 1, "lesson 1 has no 'Lesson Captions:' line"),
        ("Lesson 1: A\nLesson Captions: ../secret.vtt\n", 2, "is not a caption file name inside the course"),
        (
            "Lesson 1: A\nLesson Captions: missing.vtt\n",
            1,
            "caption file 'missing.vtt' is not in the archive",
        ),
        ("Course Title: Only a title\n", 2, "no lessons"),
    ],
)
def test_a_bad_course_header_is_refused_with_its_line(header, line, reason):
    with pytest.raises(ParseError) as caught:
        parse_bytes(
            zip_of({"course.txt": header, "one.vtt": "WEBVTT\n\n00:01.000 --> 00:02.000\nHi.\n"}), "c.zip"
        )
    assert caught.value.file == "c.zip/course.txt" and caught.value.line == line
    assert reason in caught.value.reason


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        ({"course.txt": "x", "../escape.vtt": "x"}, "leaves the course folder"),
        ({"course.txt": "x", "/etc/passwd": "x"}, "leaves the course folder"),
        ({"course.txt": "x", "C:/Windows/evil.vtt": "x"}, "leaves the course folder"),
        ({"course.txt": "x", "a\\..\\..\\evil.vtt": "x"}, "leaves the course folder"),
        ({f"{n}.vtt": "" for n in range(MAX_ARCHIVE_MEMBERS + 1)}, "limit"),
        ({"one.vtt": "WEBVTT\n"}, "no course.txt"),
    ],
)
def test_unsafe_or_incomplete_archives_are_refused(members, reason):
    with pytest.raises(ParseError) as caught:
        parse_bytes(zip_of(members), "bad.zip")
    assert reason in caught.value.reason


def test_a_zip_bomb_is_refused_from_its_directory():
    bomb = zip_of({"course.txt": "Lesson 1: A\nLesson Captions: a.vtt\n", "a.vtt": b"\0" * (101 * 2**20)})
    assert len(bomb) < 2**20
    with pytest.raises(ParseError) as caught:
        parse_bytes(bomb, "bomb.zip")
    assert "unpacks to 101 MB" in caught.value.reason


def test_caption_types_are_registered_with_the_parsers():
    assert {".vtt", ".srt", ".zip"} <= set(SUPPORTED_EXTENSIONS)
    assert parse_bytes(ROLLING.read_bytes(), "Sourdough_Basics.vtt").title == "Sourdough Basics"
