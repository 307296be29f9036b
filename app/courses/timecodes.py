"""Times in a lesson's video: clock labels, links that open the video at a second, and compact storage."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# (character offset, second) per sentence of a timed text.
Times = tuple[tuple[int, float], ...]
_YOUTUBE_HOSTS = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"})


def format_clock(seconds: float) -> str:
    """Label a time as "m:ss", or "h:mm:ss" from one hour on (754 -> "12:34")."""
    total = max(int(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _is_youtube(host: str, path: str) -> bool:
    """Whether a link is a YouTube video page (youtube.com/watch or youtu.be/<id>)."""
    host = host.lower()
    if host in {"youtu.be", "www.youtu.be"}:
        return len(path.strip("/")) > 0
    return host in _YOUTUBE_HOSTS and path.rstrip("/") == "/watch"


def video_link_at(url: str, seconds: float) -> str:
    """Link a video at a second: YouTube gets `t=<s>s`, other http(s) links a `#t=<s>` media fragment."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc:
        return url
    second = max(int(seconds), 0)
    if _is_youtube(parts.hostname or "", parts.path):
        # Replace a start time the link already has rather than send two.
        query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "t"]
        query.append(("t", f"{second}s"))
        return urlunsplit(parts._replace(query=urlencode(query), fragment=""))
    return urlunsplit(parts._replace(fragment=f"t={second}"))


def pack_times(times: tuple[tuple[int, float], ...]) -> str:
    """Store (offset, seconds) pairs as one short string, for index metadata ("0:12.5;83:20")."""
    return ";".join(f"{offset}:{seconds:g}" for offset, seconds in times)


def unpack_times(packed: str) -> tuple[tuple[int, float], ...]:
    """Read the pairs `pack_times` stored; an empty string is no pairs."""
    pairs = (item.split(":") for item in packed.split(";") if item)
    return tuple((int(offset), float(seconds)) for offset, seconds in pairs)


def time_at(times: tuple[tuple[int, float], ...], offset: int) -> float | None:
    """The start time of the sentence that holds character `offset` of a text timed by `times`."""
    found: float | None = None
    for start, seconds in times:
        if start > offset:
            break
        found = seconds
    return found if found is not None else (times[0][1] if times else None)


def start_of(
    text: str, times: tuple[tuple[int, float], ...] | None, quote: str | None = None
) -> float | None:
    """When `quote` (or, without one, the whole text) starts being said; None for an untimed text."""
    if not times:
        return None
    return times[0][1] if quote is None else time_of(text, times, quote)


def time_of(text: str, times: tuple[tuple[int, float], ...] | None, quote: str) -> float | None:
    """The start time of the sentence where `quote` begins inside `text`, or None if untimed or absent."""
    if not times:
        return None
    position = text.find(quote.strip())
    if position == -1:
        # Quotes come back with their whitespace and case changed; compare them normalized.
        position = _find_loose(text, quote)
    return None if position == -1 else time_at(times, position)


def _find_loose(text: str, quote: str) -> int:
    """Find `quote` in `text` ignoring case and runs of whitespace; return its offset in `text` or -1."""
    words = quote.lower().split()
    if not words:
        return -1
    # Map each character of the squeezed text back to its offset in the original.
    squeezed: list[str] = []
    origin: list[int] = []
    previous_space = True
    for index, char in enumerate(text.lower()):
        if char.isspace():
            if not previous_space:
                squeezed.append(" ")
                origin.append(index)
            previous_space = True
            continue
        squeezed.append(char)
        origin.append(index)
        previous_space = False
    found = "".join(squeezed).find(" ".join(words))
    return -1 if found == -1 else origin[found]
