"""Split lessons into sentence-aware chunks with a whole-sentence overlap and a context prefix."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.courses.models import Chunk, Course, Lesson, SentenceTimes

# Words that end with a period without ending a sentence. "etc." is left out: it usually ends one.
_ABBREVIATION_WORDS = "e.g i.e cf vs al approx dr mr mrs ms prof sr jr st fig figs eq vol pp inc ltd"
_ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())
# A sentence ends at . ! ? (or an ellipsis), maybe followed by closing quotes or brackets, then whitespace,
# then something that can start a sentence. A period inside a token ("3.14", "os.path") has no space after it.
_BOUNDARY = re.compile(r"(?<=[.!?…])([\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[^\s\"'“‘(\[a-z])")
_LIST_ITEM = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


@dataclass(frozen=True)
class _Unit:
    """A packable piece of text; only whole sentences may be carried over as overlap."""

    text: str
    whole: bool
    opens_chunk: bool = False
    start: float | None = None  # the second its sentence is said at, in a captioned lesson


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, keeping abbreviations, initials, decimals and dotted names intact."""
    sentences: list[str] = []
    for block in _blocks(text):
        sentences.extend(_split_block(block))
    return sentences


def _blocks(text: str) -> list[str]:
    """Break text into paragraphs and list items, each flattened onto one line."""
    blocks: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        current: list[str] = []
        for line in paragraph.split("\n"):
            stripped = line.strip()
            # A list item starts a new block even without a blank line before it.
            if _LIST_ITEM.match(stripped) and current:
                blocks.append(" ".join(current))
                current = []
            if stripped:
                current.append(stripped)
        if current:
            blocks.append(" ".join(current))
    return [re.sub(r"\s+", " ", block) for block in blocks]


def _split_block(block: str) -> list[str]:
    """Split one flattened paragraph at sentence boundaries that are not abbreviations."""
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(block):
        end = match.start() + len(match.group(1))
        if _is_abbreviation(block[start:end]):
            continue
        sentences.append(block[start:end].strip())
        start = match.end()
    tail = block[start:].strip()
    if tail:
        sentences.append(tail)
    return [sentence for sentence in sentences if sentence]


def _is_abbreviation(candidate: str) -> bool:
    """Whether the text before a period ends with an abbreviation or an initial ("J.")."""
    if not candidate.endswith("."):
        return False
    words = candidate[:-1].split()
    if not words:
        return False
    last = words[-1].lstrip("(\"'“‘").lower()
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def _split_long(sentence: str, size: int) -> list[str]:
    """Split an over-long sentence at word boundaries; a word longer than `size` is cut."""
    pieces: list[str] = []
    current = ""
    for word in sentence.split():
        while len(word) > size:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:size])
            word = word[size:]
        if not word:
            continue
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= size:
            current = candidate
        else:
            pieces.append(current)
            current = word
    if current:
        pieces.append(current)
    return pieces


def _units(sentences: list[tuple[str, float | None]], size: int) -> list[_Unit]:
    """Sentences that fit, and word-split pieces of those that do not, each with its sentence's time."""
    units: list[_Unit] = []
    for sentence, start in sentences:
        if len(sentence) <= size:
            units.append(_Unit(sentence, whole=True, start=start))
        else:
            # An over-long sentence opens a chunk, so where it is cut does not depend on what came before.
            pieces = _split_long(sentence, size)
            units.extend(
                _Unit(piece, whole=False, opens_chunk=n == 0, start=start) for n, piece in enumerate(pieces)
            )
    return units


def _length(units: list[_Unit]) -> int:
    """Length of the units joined by single spaces."""
    return sum(len(unit.text) for unit in units) + max(len(units) - 1, 0)


def _overlap(previous: list[_Unit], following: _Unit, size: int, overlap: int) -> list[_Unit]:
    """Trailing whole sentences of `previous` within `overlap` chars that still leave room for `following`."""
    carried: list[_Unit] = []
    for unit in reversed(previous):
        candidate = [unit, *carried]
        if not unit.whole or _length(candidate) > overlap or _length([*candidate, following]) > size:
            break
        carried = candidate
    return carried


def _pack(units: list[_Unit], size: int, overlap: int) -> list[list[_Unit]]:
    """Pack units into chunks of at most `size` chars, each starting with whole-sentence overlap."""
    chunks: list[tuple[list[_Unit], int]] = []  # units, and how many of them are carried overlap
    current: list[_Unit] = []
    carried = 0
    for unit in units:
        if current and (unit.opens_chunk or _length([*current, unit]) > size):
            chunks.append((current, carried))
            current = _overlap(current, unit, size, overlap)
            carried = len(current)
        current.append(unit)
    if current:
        chunks.append((current, carried))
    packed: list[list[_Unit]] = []
    for units_, carried in chunks:
        if packed and carried and _joined(units_) in _joined(packed[-1]):
            # Repeated sentences ("Yes. Yes.") can make overlap plus new text equal the chunk before;
            # drop the overlap so the chunk is only its new sentences.
            units_ = units_[carried:]
        packed.append(units_)
    return packed


def _joined(units: list[_Unit]) -> str:
    """A chunk's text: its units joined by single spaces."""
    return " ".join(unit.text for unit in units)


def pack_lesson(text: str, size: int, overlap: int) -> list[str]:
    """Pack a lesson's sentences into chunk texts of at most `size` chars with whole-sentence overlap."""
    units = _units([(sentence, None) for sentence in split_sentences(text)], size)
    return [_joined(chunk) for chunk in _pack(units, size, overlap)]


def _timed_sentences(lesson: Lesson) -> list[tuple[str, float | None]]:
    """A captioned lesson's sentences, cut from its text at the recorded offsets, with their times."""
    times = lesson.sentence_times or ()
    ends = [offset for offset, _ in times[1:]] + [len(lesson.text)]
    return [
        (lesson.text[offset:end].strip(), start) for (offset, start), end in zip(times, ends, strict=True)
    ]


def _timed_chunks(lesson: Lesson, size: int, overlap: int) -> list[tuple[str, SentenceTimes]]:
    """Pack a captioned lesson; each chunk text comes with the offset and time of each of its sentences."""
    chunks: list[tuple[str, SentenceTimes]] = []
    for units in _pack(_units(_timed_sentences(lesson), size), size, overlap):
        times: list[tuple[int, float]] = []
        offset = 0
        for unit in units:
            # One time per sentence: the pieces of a cut sentence share the time of its first piece.
            if unit.start is not None and (unit.whole or unit.opens_chunk or not times):
                times.append((offset, unit.start))
            offset += len(unit.text) + 1
        chunks.append((_joined(units), tuple(times)))
    return chunks


def lesson_context(course: Course, lesson: Lesson) -> str:
    """The prefix embedded with every chunk of a lesson."""
    return f"Course {course.title}, Lesson {lesson.number}: {lesson.title}"


def chunk_course(course: Course, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Chunk every lesson of a course the same way; chunk indexes restart at 0 per lesson."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError(f"need size > 0 and 0 <= overlap < size, got size={size}, overlap={overlap}")
    chunks: list[Chunk] = []
    for lesson in course.lessons:
        context = lesson_context(course, lesson)
        if lesson.sentence_times:
            packed = [(text, times or None) for text, times in _timed_chunks(lesson, size, overlap)]
        else:
            packed = [(text, None) for text in pack_lesson(lesson.text, size, overlap)]
        for index, (text, times) in enumerate(packed):
            chunks.append(
                Chunk(
                    course_id=course.id,
                    course_title=course.title,
                    lesson_number=lesson.number,
                    lesson_title=lesson.title,
                    lesson_link=lesson.link,
                    index=index,
                    text=text,
                    context=context,
                    sentence_times=times,
                )
            )
    return chunks
