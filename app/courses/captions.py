"""Read WebVTT and SRT caption files into timed cues, and join the cues into timed sentences.

Cue markup (`<v Speaker>`, `<c>`, `<i>`, inline word timestamps, entities) is stripped, the timing line's
positioning settings are ignored, and NOTE/STYLE/REGION blocks and cue identifiers are skipped. Automatic
(rolling) captions repeat each line in the next cue or two; those repeats are dropped. A sentence's time is
the start of the cue in which its first word is said.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from dataclasses import dataclass

from app.courses.chunking import split_sentences
from app.courses.reading import ParseError, decode_text

# A sentence longer than this is cut at cue boundaries, so that unpunctuated automatic captions still give
# a time every few lines instead of one time for minutes of speech.
MAX_TIMED_SENTENCE = 240
_TIMESTAMP = re.compile(r"^(?:(\d+):)?([0-5]\d):([0-5]\d)[.,](\d{3})$")
_TIMING = re.compile(r"^(\S+)[ \t]+-->[ \t]+(\S+)(?:[ \t].*)?$")
_VTT_SIGNATURE = re.compile(r"^WEBVTT(?:[ \t].*)?$")
_VTT_HEADER_FIELDS = frozenset({"kind", "language", "x-timestamp-map"})
_SKIPPED_BLOCKS = re.compile(r"^(?:NOTE|STYLE|REGION)(?:[ \t].*)?$")
_RUBY_TEXT = re.compile(r"<rt>.*?</rt>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_SRT_OVERRIDE = re.compile(r"\{\\[^}]*\}")
# Something like a time in a line that should have been a cue's timing (a broken arrow, say).
_TIME_LIKE = re.compile(r"\d:\d\d")
# Rolling captions are told apart from ordinary ones by how often a cue starts with the last cue's line.
_ROLLING_SHARE = 0.3


@dataclass(frozen=True)
class Cue:
    """One caption cue: when it is shown, and its text lines with the markup stripped."""

    start: float
    end: float
    lines: tuple[str, ...]
    line_number: int

    @property
    def text(self) -> str:
        """The cue's lines joined into one line of text."""
        return " ".join(self.lines)


@dataclass(frozen=True)
class TimedSentence:
    """A sentence of a lecture and the second at which it starts."""

    start: float
    text: str


def parse_captions(data: bytes, name: str) -> list[Cue]:
    """Read a `.vtt` or `.srt` file into its cues, in order, refusing a bad file with its line number."""
    try:
        text = decode_text(data, name)
    except ParseError as exc:
        raise ParseError(name, exc.reason, line=exc.line or 1) from exc
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if _VTT_SIGNATURE.match(lines[0]):
        first = _skip_vtt_header(lines, name)
    elif name.lower().endswith(".vtt"):
        raise ParseError(name, "not a WebVTT file: the first line must be 'WEBVTT'", line=1)
    else:
        first = 0
    cues = [cue for cue in _read_cues(lines, first, name) if cue.lines]
    if not cues:
        raise ParseError(name, "no caption cues with text in the file", line=len(lines))
    return cues


def _skip_vtt_header(lines: list[str], name: str) -> int:
    """Check the header lines after WEBVTT; return the index of the first line after the header."""
    index = 1
    while index < len(lines) and lines[index].strip() and "-->" not in lines[index]:
        field = lines[index].split(":", 1)[0].strip()
        if ":" not in lines[index] or field.lower() not in _VTT_HEADER_FIELDS:
            raise ParseError(name, f"unknown header field '{field[:40]}'", line=index + 1)
        index += 1
    return index


def _read_cues(lines: list[str], index: int, name: str) -> list[Cue]:
    """Read the blocks after the header: skip notes and styles, parse each cue's timing and text."""
    cues: list[Cue] = []
    previous_start = 0.0
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        if _SKIPPED_BLOCKS.match(lines[index]):
            index = _block_end(lines, index)
            continue
        timing = index if "-->" in lines[index] else index + 1  # else the first line is a cue identifier
        if timing >= len(lines) or "-->" not in lines[timing]:
            raise ParseError(
                name,
                "expected a cue timing line like '00:01:02.500 --> 00:01:05.000'",
                _missing_timing_line(lines, index),
            )
        start, end = _parse_timing(lines[timing], name, timing + 1)
        if start < previous_start:
            reason = f"timings go backwards: {start:.3f}s comes after {previous_start:.3f}s"
            raise ParseError(name, reason, line=timing + 1)
        previous_start = start
        text_lines, index = _cue_text(lines, timing + 1, name)
        cues.append(Cue(start, end, tuple(text_lines), timing + 1))
    return cues


def _missing_timing_line(lines: list[str], index: int) -> int:
    """The line number to refuse a block without a timing at: the line after a cue identifier when that
    line looks like a broken timing (SRT's "2" then "00:00:03,000 -> ..."), else the block's first line."""
    after = index + 1
    if not _TIME_LIKE.search(lines[index]) and after < len(lines) and _TIME_LIKE.search(lines[after]):
        return after + 1
    return index + 1


def _block_end(lines: list[str], index: int) -> int:
    """The index of the blank line that ends the block starting at `index`."""
    while index < len(lines) and lines[index].strip():
        index += 1
    return index


def _parse_timing(line: str, name: str, number: int) -> tuple[float, float]:
    """Read `start --> end [settings]` into seconds; the settings (position, align) are ignored."""
    match = _TIMING.match(line.strip())
    if not match:
        raise ParseError(name, f"the cue timing line does not parse: '{line.strip()[:60]}'", line=number)
    start, end = (_seconds(stamp, name, number) for stamp in match.groups()[:2])
    if end < start:
        raise ParseError(name, f"the cue ends ({end:.3f}s) before it starts ({start:.3f}s)", line=number)
    return start, end


def _seconds(stamp: str, name: str, number: int) -> float:
    """Read `hh:mm:ss.mmm` (or `mm:ss.mmm`, or SRT's comma) into seconds."""
    match = _TIMESTAMP.match(stamp)
    if not match:
        raise ParseError(name, f"the timestamp '{stamp[:30]}' does not parse", line=number)
    hours, minutes, seconds, millis = match.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000


def _cue_text(lines: list[str], index: int, name: str) -> tuple[list[str], int]:
    """Collect a cue's text lines up to the blank line that ends it; return them and the next index."""
    # Automatic captions put a line holding one space right after the timing: it does not end the cue.
    while index < len(lines) and lines[index] and not lines[index].strip():
        index += 1
    text: list[str] = []
    while index < len(lines) and lines[index].strip():
        if "-->" in lines[index]:
            raise ParseError(name, "a cue timing line must follow a blank line", line=index + 1)
        cleaned = clean_cue_line(lines[index])
        if cleaned:
            text.append(cleaned)
        index += 1
    return text, index


def clean_cue_line(line: str) -> str:
    """Strip cue markup (voice, class, style tags, inline timestamps) and entities from one line."""
    line = _TAG.sub("", _RUBY_TEXT.sub("", line))
    line = html.unescape(_SRT_OVERRIDE.sub("", line))
    return " ".join(line.replace("\u200e", "").replace("\u200f", "").split())


def drop_rolling_repeats(cues: list[Cue]) -> list[Cue]:
    """Drop the lines automatic captions repeat from the cue or two before; leave ordinary captions be."""
    repeats = sum(1 for before, cue in zip(cues, cues[1:], strict=False) if cue.lines[0] == before.lines[-1])
    if repeats < max(2, _ROLLING_SHARE * (len(cues) - 1)):
        return cues
    kept: list[Cue] = []
    recent: list[tuple[str, ...]] = []
    for cue in cues:
        seen = {line for lines in recent for line in lines}
        new_lines = tuple(line for line in cue.lines if line not in seen)
        recent = [*recent[-1:], cue.lines]
        if new_lines:
            kept.append(Cue(cue.start, cue.end, new_lines, cue.line_number))
    return kept


def timed_sentences(cues: list[Cue]) -> list[TimedSentence]:
    """Join cues into sentences, each timed at the start of the cue where its first word is said."""
    offsets: list[int] = []
    parts: list[str] = []
    length = 0
    for cue in cues:
        offsets.append(length)
        parts.append(cue.text)
        length += len(cue.text) + 1
    text = " ".join(parts)
    sentences: list[TimedSentence] = []
    position = 0
    for sentence in split_sentences(text):
        position = text.find(sentence, position)
        for start, end in _pieces(offsets, position, position + len(sentence)):
            sentences.append(
                TimedSentence(cues[bisect_right(offsets, start) - 1].start, text[start:end].strip())
            )
        position += len(sentence)
    return [sentence for sentence in sentences if sentence.text]


def _pieces(offsets: list[int], start: int, end: int) -> list[tuple[int, int]]:
    """Cut the span [start, end) at cue boundaries into pieces of about MAX_TIMED_SENTENCE characters."""
    pieces: list[tuple[int, int]] = []
    piece = start
    for boundary in offsets[bisect_right(offsets, start) : bisect_right(offsets, end - 1)]:
        if boundary - piece >= MAX_TIMED_SENTENCE:
            pieces.append((piece, boundary))
            piece = boundary
    pieces.append((piece, end))
    return pieces


def caption_sentences(data: bytes, name: str) -> tuple[list[TimedSentence], float]:
    """Read a caption file into its timed sentences and the lecture's length in seconds."""
    cues = drop_rolling_repeats(parse_captions(data, name))
    return timed_sentences(cues), max(cue.end for cue in cues)
