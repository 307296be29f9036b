"""Caption parsing: a 3-hour lecture's captions to timed sentences and chunks, plain and rolling.

The lecture is the development set's Game Theory lectures laid end to end (shifted in time) until they pass
three hours; the rolling version rewrites the same cues the way YouTube's automatic captions do.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from app.courses.caption_course import parse_caption_bytes
from app.courses.captions import caption_sentences, parse_captions
from app.courses.chunking import chunk_course

# The development set sits next to the repository (../shared/devset); DEVSET_DIR points elsewhere.
DEVSET = Path(os.environ.get("DEVSET_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "devset"))
CAPTIONS = DEVSET / "captions" / "yale-econ159"
THREE_HOURS = 3 * 3600.0
REPEATS = 5


def _stamp(seconds: float) -> str:
    """A WebVTT timestamp."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{int(hours):02d}:{int(minutes):02d}:{secs:06.3f}"


def long_lecture() -> list[tuple[float, float, str]]:
    """Cues (start, end, raw text line) of lectures laid end to end until they pass three hours."""
    cues: list[tuple[float, float, str]] = []
    shift = 0.0
    for path in sorted(CAPTIONS.glob("*.vtt")):
        parsed = parse_captions(path.read_bytes(), path.name)
        cues.extend((shift + cue.start, shift + cue.end, cue.text) for cue in parsed)
        shift = cues[-1][1] + 5
        if shift > THREE_HOURS:
            break
    return cues


def plain_vtt(cues: list[tuple[float, float, str]]) -> bytes:
    """The cues as an ordinary WebVTT file with numbered cues and voice tags."""
    blocks = [
        f"{n}\n{_stamp(start)} --> {_stamp(end)}\n<v Speaker 1>{text}</v>"
        for n, (start, end, text) in enumerate(cues, 1)
    ]
    return ("WEBVTT\n\n" + "\n\n".join(blocks) + "\n").encode()


def rolling_vtt(cues: list[tuple[float, float, str]]) -> bytes:
    """The cues as automatic captions: each line repeated in the next cue, inline word timings, 10 ms cues."""
    blocks: list[str] = []
    previous = ""
    for start, end, text in cues:
        words = text.split()
        step = (end - start) / max(len(words), 1)
        inline = (f"<{_stamp(start + i * step)}><c> {word}</c>" for i, word in enumerate(words[1:], 1))
        timed = words[0] + "".join(inline)
        position = "align:start position:0%"
        blocks.append(f"{_stamp(start)} --> {_stamp(end)} {position}\n{previous or ' '}\n{timed}")
        blocks.append(f"{_stamp(end)} --> {_stamp(end + 0.01)} {position}\n{text}\n ")
        previous = text
    return ("WEBVTT\nKind: captions\nLanguage: en\n\n" + "\n\n".join(blocks) + "\n").encode()


def median_seconds(action, repeats: int = REPEATS) -> float:
    """The median wall time of `action` over a few runs."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Print parse and chunk times for a 3-hour lecture, plain and rolling."""
    if not CAPTIONS.is_dir():
        print(f"caption parsing: skipped, no development set captions at {CAPTIONS} (set DEVSET_DIR)")
        return
    cues = long_lecture()
    hours = cues[-1][1] / 3600
    print(f"caption parsing: one lecture of {hours:.2f} h, {len(cues):,} cues (median of {REPEATS})")
    print(f"{'captions':<10} {'MB':>6} {'sentences':>10} {'parse s':>8} {'parse+chunk s':>14}")
    for label, data in (("plain", plain_vtt(cues)), ("rolling", rolling_vtt(cues))):
        sentences, _ = caption_sentences(data, "lecture.vtt")
        parse = median_seconds(lambda data=data: caption_sentences(data, "lecture.vtt"))
        whole = median_seconds(lambda data=data: chunk_course(parse_caption_bytes(data, "lecture.vtt")))
        print(f"{label:<10} {len(data) / 2**20:>6.2f} {len(sentences):>10,} {parse:>8.3f} {whole:>14.3f}")


if __name__ == "__main__":
    main()
