"""An HTTP server on a free 127.0.0.1 port, served from a background thread: what the fake APIs run on."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class JsonHandler(BaseHTTPRequestHandler):
    """A request handler that answers JSON and keeps test output quiet."""

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        """Write a JSON response; a client that already gave up (timeout) is not an error."""
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Keep test output quiet."""


class _Server(ThreadingHTTPServer):
    """The HTTP server, with a listen backlog for a load test's hundreds of simultaneous calls (default 5)."""

    request_queue_size = 1024
    daemon_threads = True


class LoopbackServer:
    """Serves the handler class `handler()` builds; `start()` (or `with`) listens, `stop()` shuts down."""

    name = "loopback"

    def __init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class, bound to this server's script."""
        raise NotImplementedError

    def start(self) -> Self:
        """Listen on a free loopback port in a background thread."""
        self._server = _Server(("127.0.0.1", 0), self.handler())
        self._thread = threading.Thread(target=self._server.serve_forever, name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Shut the server down and wait for its thread."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            if self._thread is not None:
                self._thread.join()
            self._server = None

    @property
    def origin(self) -> str:
        """`http://127.0.0.1:port`."""
        assert self._server is not None, "not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
