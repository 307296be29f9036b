"""Clock labels, links that open a video at a second, and the stored form of sentence times."""

from __future__ import annotations

import pytest

from app.courses.timecodes import format_clock, pack_times, time_at, time_of, unpack_times, video_link_at


@pytest.mark.parametrize(
    ("seconds", "label"),
    [(0, "0:00"), (9.99, "0:09"), (754, "12:34"), (3599, "59:59"), (3723, "1:02:03"), (36000, "10:00:00")],
)
def test_format_clock(seconds, label):
    assert format_clock(seconds) == label


@pytest.mark.parametrize(
    ("url", "linked"),
    [
        ("https://www.youtube.com/watch?v=abc123", "https://www.youtube.com/watch?v=abc123&t=754s"),
        ("https://youtube.com/watch?v=abc&list=PL1&t=10s", "https://youtube.com/watch?v=abc&list=PL1&t=754s"),
        ("https://m.youtube.com/watch?v=abc#frag", "https://m.youtube.com/watch?v=abc&t=754s"),
        ("https://youtu.be/abc123", "https://youtu.be/abc123?t=754s"),
        ("https://youtu.be/abc123?si=xyz", "https://youtu.be/abc123?si=xyz&t=754s"),
        ("https://video.example/lecture3.mp4", "https://video.example/lecture3.mp4#t=754"),
        ("http://video.example/watch?id=3#t=5", "http://video.example/watch?id=3#t=754"),
        ("https://www.youtube.com/channel/UC1", "https://www.youtube.com/channel/UC1#t=754"),
        ("ftp://files.example/lecture.mp4", "ftp://files.example/lecture.mp4"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("lecture.mp4", "lecture.mp4"),
    ],
)
def test_video_link_at(url, linked):
    assert video_link_at(url, 754.9) == linked


def test_times_survive_their_stored_form():
    times = ((0, 12.211), (57, 15.0), (130, 3723.5))
    assert pack_times(times) == "0:12.211;57:15;130:3723.5"
    assert unpack_times(pack_times(times)) == times
    assert unpack_times("") == ()


def test_a_quote_maps_to_the_time_of_its_sentence():
    text = "First thing. Second thing here.  Third\nthing."
    times = ((0, 1.0), (13, 5.5), (33, 9.0))
    assert [time_at(times, offset) for offset in (0, 12, 13, 32, 40)] == [1.0, 1.0, 5.5, 5.5, 9.0]
    assert time_of(text, times, "thing here") == 5.5
    assert time_of(text, times, "THIRD thing.") == 9.0
    assert time_of(text, times, "not there") is None
    assert time_of(text, None, "First") is None
