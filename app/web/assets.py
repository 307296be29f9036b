"""Static files under fingerprinted URLs, cached for a year, and gzip for pages, styles and scripts.

`url_for('static', filename=...)` gets `?v=<hash of the file>`; a request carrying the current hash may be
cached for good (a changed file gets a new URL), any other keeps `no-cache`. HTML, CSS, JavaScript and SVG
are gzipped for clients that accept it; Server-Sent Events never are (a compressor would hold pieces back).
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request

ONE_YEAR = 365 * 24 * 3600
COMPRESSIBLE = {"text/html", "text/css", "text/javascript", "application/javascript", "image/svg+xml"}
# Below this a gzip header and the CPU cost outweigh what is saved.
MIN_COMPRESS_BYTES = 512
GZIP_LEVEL = 6

_hashes: dict[tuple[str, int, int], str] = {}


def register(app: Flask) -> None:
    """Fingerprint static URLs, and set cache and compression on every response."""
    app.url_defaults(add_fingerprint)
    app.after_request(finish_response)


def fingerprint(filename: str) -> str | None:
    """A short hash of a static file's content (None when there is no such file)."""
    folder = current_app.static_folder
    if folder is None:
        return None
    path = Path(folder) / filename
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _hashes:
        _hashes[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return _hashes[key]


def add_fingerprint(endpoint: str, values: dict[str, Any]) -> None:
    """Give a static file's URL its content hash, so a new version is a new URL."""
    if endpoint == "static" and "filename" in values and "v" not in values:
        version = fingerprint(values["filename"])
        if version:
            values["v"] = version


def finish_response(response: Response) -> Response:
    """Cache a fingerprinted static file for a year; gzip what compresses well."""
    if request.endpoint == "static" and response.status_code == 200:
        version = fingerprint(request.view_args.get("filename", "") if request.view_args else "")
        if version and request.args.get("v") == version:
            response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
    return compress(response)


def compress(response: Response) -> Response:
    """Gzip a whole (not streamed) HTML, CSS, JavaScript or SVG response for a client that accepts it."""
    if (
        response.status_code != 200
        or response.mimetype not in COMPRESSIBLE
        or response.is_streamed
        and not response.direct_passthrough
        or "Content-Encoding" in response.headers
        or not request.accept_encodings["gzip"]
    ):
        return response
    response.direct_passthrough = False  # a static file: read it to compress it
    data = response.get_data()
    if len(data) < MIN_COMPRESS_BYTES:
        return response
    response.set_data(gzip.compress(data, GZIP_LEVEL, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    etag, weak = response.get_etag()
    if etag and not weak:
        response.set_etag(etag, weak=True)  # the same content, another encoding
    return response
