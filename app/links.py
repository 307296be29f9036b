"""The one rule for links taken from course documents or the model: absolute http(s) or mailto, else none."""

from __future__ import annotations

from urllib.parse import urlsplit

from app.bidi import has_bidi

LINK_SCHEMES = ("http", "https", "mailto")


def safe_url(url: str | None) -> str | None:
    """The URL when it is an absolute http(s) or mailto link, else None (javascript:, data:, relative)."""
    if not url:
        return None
    url = url.strip()
    if has_bidi(url):  # a link whose text reads in another order than it goes is refused, not repaired
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in LINK_SCHEMES:
        return None
    if parts.scheme.lower() != "mailto" and not parts.netloc:
        return None
    return url
