"""Course files' bytes as text, shared by every format's reader: the parse error, the content hash, strict
decoding and the title a file name gives."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from app.control_chars import drop_control_chars
from app.errors import AppError

# Signatures of common binary formats, so a renamed file gets a precise reason instead of "not UTF-8".
_SIGNATURES = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"MZ\x90\x00", "a Windows executable"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
)


class ParseError(AppError):
    """A course file that cannot be read; names the file, the reason and, when known, the line."""

    status = 422
    title = "Could not read the course file"

    def __init__(self, file: str, reason: str, line: int | None = None):
        self.file = file
        self.reason = reason
        self.line = line
        message = f"{file}: {reason}" + (f" (line {line})" if line is not None else "")
        super().__init__(message)


def content_hash(data: bytes) -> str:
    """Return the sha256 hex digest of a file's bytes."""
    return hashlib.sha256(data).hexdigest()


def title_from_filename(name: str) -> str:
    """Turn "intro_to_sql.txt" into "Intro To Sql", keeping words that are already capitalised."""
    words = re.split(r"[\s_\-.]+", Path(name).stem)
    return " ".join(word[:1].upper() + word[1:] for word in words if word) or "Untitled Course"


def sniff(data: bytes) -> str | None:
    """Name the binary format whose signature `data` starts with, if any."""
    return next((label for magic, label in _SIGNATURES if data.startswith(magic)), None)


def decode_text(data: bytes, name: str) -> str:
    """Decode a text file strictly (UTF-8, a BOM is fine, no NUL bytes, not a known binary format), without
    its other control characters."""
    kind = sniff(data)
    if kind:
        raise ParseError(name, f"the file is {kind}, not plain text")
    nul = data.find(b"\x00")
    if nul != -1:
        raise ParseError(name, "not a text file (contains NUL bytes)", line=data[:nul].count(b"\n") + 1)
    try:
        return drop_control_chars(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(name, f"not valid UTF-8 text (byte {exc.start})", line=line) from exc
