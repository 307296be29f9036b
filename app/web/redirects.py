"""One check for every redirect target taken from a request: a path on this site, or the fallback."""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit


def safe_local_path(target: str | None, fallback: str, prefix: str = "/") -> str:
    """`target` when it is a local path under `prefix`, else `fallback` (no open redirects)."""
    if not isinstance(target, str) or not target.startswith("/") or target.startswith("//"):
        return fallback
    # Browsers drop tabs and newlines inside URLs and read "\" as "/", so "/\t/evil.com" and "/\\evil.com"
    # become "//evil.com"; refuse any control character or backslash rather than guess how they normalise.
    if "\\" in target or any(unicodedata.category(char) == "Cc" for char in target):
        return fallback
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return fallback
    base = prefix.rstrip("/")
    if base and parts.path != base and not parts.path.startswith(base + "/"):
        return fallback
    return target
