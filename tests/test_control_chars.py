"""Control characters are dropped from course files' text (titles, lessons, captions) as they are read."""

from __future__ import annotations

from app.control_chars import drop_control_chars, has_control_chars
from app.courses.parsing import parse_bytes

ESCAPE = "\x1b[2J\x1b[31m"


def test_only_control_characters_go_and_page_breaks_become_line_breaks():
    text = "tab\there\nline\r\nnul\x00 bell\x07 del\x7f c1\x85\x9b end\x0cnext"
    assert drop_control_chars(text) == "tab\there\nline\r\nnul bell del c1 end\nnext"
    assert has_control_chars(text) and not has_control_chars("plain\ttext\n")
    assert drop_control_chars("café ☕ – עברית") == "café ☕ – עברית"


def test_a_txt_course_is_read_without_its_control_characters():
    data = (
        f"Course Title: Sour{ESCAPE}dough\x07\nCourse Instructor: Ann\x08ie\n\n"
        f"Lesson 1: Starter{ESCAPE}\nFeed the starter\x1b]0;pwned\x07 twice a day.\n"
    ).encode()
    course = parse_bytes(data, "sourdough.txt")
    assert (course.title, course.instructor) == ("Sour[2J[31mdough", "Annie")
    [lesson] = course.lessons
    assert lesson.title == "Starter[2J[31m" and lesson.text == "Feed the starter]0;pwned twice a day."


def test_a_caption_file_is_read_without_its_control_characters():
    data = b"WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nThe crust\x1b[5m browns\x07 slowly.\n"
    course = parse_bytes(data, "crust.vtt")
    assert course.lessons[0].text == "The crust[5m browns slowly."
    assert not has_control_chars(course.title)
