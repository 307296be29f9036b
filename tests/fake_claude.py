"""A scripted Anthropic Messages API on 127.0.0.1 that the real SDK talks to over HTTP."""

from __future__ import annotations

import itertools
import json
import re
import select
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback import JsonHandler, LoopbackServer

DEFAULT_TEXT = "ok"

# Messages API error type per HTTP status, used when a test does not name one.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class Reply:
    """One scripted reply: a message body, an error, or a hold before answering."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    hold: float = 0.0
    # Streamed replies only: seconds between SSE events, and how many events to send before holding the
    # stream open (until release(), stop() or the client leaves) — a reply that is slow to finish.
    pace: float = 0.0
    stall_after: int | None = None
    # Streamed replies only: the error event sent at `stall_after` instead of holding (the stream then ends).
    stream_error: dict[str, Any] | None = None
    # Streamed replies only: close the connection after this many events, mid-answer (no message_stop).
    cut_after: int | None = None


class FakeClaude(LoopbackServer):
    """A Messages API server that answers from a queue of scripted replies and records every request."""

    name = "fake-claude"

    def __init__(self, usage: dict[str, int] | None = None, default_delay: float = 0.0):
        super().__init__()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.usage = usage or {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 80,
        }
        # Unscripted requests (a load test's) answer the default text after this many seconds.
        self.default_delay = default_delay
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._release = threading.Event()
        # Set when a streaming client closed its connection before the reply was complete.
        self.disconnected = threading.Event()
        self._ids = itertools.count(1)
        # Every Messages call, and the most in progress at once (a load test's figures; never reset).
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0

    # -- lifecycle -------------------------------------------------------------------------------------------

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """Serve this script."""
        return _handler_for(self)

    def stop(self) -> None:
        """Release held requests and shut the server down."""
        self._release.set()
        super().stop()

    @property
    def url(self) -> str:
        """The base URL to hand the SDK (`ANTHROPIC_BASE_URL`)."""
        return self.origin

    def release(self) -> None:
        """Let every held (hanging) request answer now."""
        self._release.set()

    # -- scripting -------------------------------------------------------------------------------------------

    def enqueue_text(self, text: str) -> None:
        """Reply once with a final text message (stop_reason "end_turn")."""
        self._queue_reply(Reply(body=self._message([{"type": "text", "text": text}], "end_turn")))

    def enqueue_tool_use(
        self, name: str, input: dict[str, Any], id: str | None = None, text: str = ""
    ) -> None:
        """Reply once with one tool_use block (stop_reason "tool_use")."""
        self.enqueue_tool_uses([(name, input, id)] if id else [(name, input)], text=text)

    def enqueue_tool_uses(self, calls: list[tuple], text: str = "") -> None:
        """Reply once with several tool_use blocks in one turn: `[(name, input), (name, input, id), ...]`."""
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for call in calls:
            name, input_ = call[0], call[1]
            tool_id = call[2] if len(call) > 2 else f"toolu_{next(self._ids):04d}"
            content.append({"type": "tool_use", "id": tool_id, "name": name, "input": input_})
        self._queue_reply(Reply(body=self._message(content, "tool_use")))

    def enqueue_message(
        self, content: list[dict[str, Any]], stop_reason: str = "end_turn", **timing: Any
    ) -> None:
        """Reply once with arbitrary content blocks and stop reason (`pace`, `stall_after`: see Reply)."""
        self._queue_reply(Reply(body=self._message(content, stop_reason), **timing))

    def enqueue_cited(self, *pieces: str | tuple[str, list[dict[str, Any]]], **timing: Any) -> None:
        """Reply once with text blocks, some cited: `"plain", ("claim", [citation(...)]), ...`."""
        content: list[dict[str, Any]] = []
        for piece in pieces:
            text, citations = (piece, None) if isinstance(piece, str) else piece
            content.append({"type": "text", "text": text, "citations": citations})
        self.enqueue_message(content, **timing)

    @staticmethod
    def citation(
        result: dict[str, Any], index: int, start: int = 0, end: int | None = None
    ) -> dict[str, Any]:
        """A search_result_location citation of `result`, the `index`-th search_result block sent."""
        end = start + 1 if end is None else end
        return {
            "type": "search_result_location",
            "source": result["source"],
            "title": result["title"],
            "cited_text": "".join(block["text"] for block in result["content"][start:end]),
            "search_result_index": index,
            "start_block_index": start,
            "end_block_index": end,
        }

    def enqueue_error(
        self,
        status: int,
        message: str = "Scripted error.",
        type: str | None = None,
        *,
        should_retry: bool | None = None,
        times: int = 1,
    ) -> None:
        """Reply `times` times with an API error; retries by the SDK are instant (retry-after-ms: 1)."""
        error_type = type or ERROR_TYPES.get(status, "api_error")
        # The SDK treats retry-after-ms 0 as "unspecified" and backs off exponentially; 1 ms keeps tests fast.
        headers = {"retry-after-ms": "1", "request-id": "req_fake"}
        if should_retry is not None:
            headers["x-should-retry"] = "true" if should_retry else "false"
        body = {"type": "error", "error": {"type": error_type, "message": message}}
        for _ in range(times):
            self._queue_reply(Reply(status=status, body=body, headers=headers))

    def enqueue_broken_stream(self, text: str, after: int, type: str = "overloaded_error") -> None:
        """Reply once with `text`, streamed, but send an error event instead of the `after`-th event."""
        body = self._message([{"type": "text", "text": text}], "end_turn")
        error = {"type": type, "message": "Scripted stream error."}
        self._queue_reply(Reply(body=body, stall_after=after, stream_error=error))

    def enqueue_cut_stream(self, text: str, after: int) -> None:
        """Reply once with `text`, streamed, closing the connection after `after` events (no message_stop)."""
        body = self._message([{"type": "text", "text": text}], "end_turn")
        self._queue_reply(Reply(body=body, cut_after=after))

    def enqueue_hang(self, seconds: float, text: str = DEFAULT_TEXT) -> None:
        """Hold the next request up to `seconds` (cut short by release() or stop()), then answer `text`."""
        reply = Reply(body=self._message([{"type": "text", "text": text}], "end_turn"), hold=seconds)
        self._queue_reply(reply)

    enqueue_delay = enqueue_hang

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    # -- internals -------------------------------------------------------------------------------------------

    def _queue_reply(self, reply: Reply) -> None:
        """Append a reply to the script."""
        with self._lock:
            self._queue.append(reply)

    def _next_reply(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """Record a request and pop its scripted reply (a default text when the script is empty)."""
        with self._lock:
            if not self.default_delay:  # a load test's thousands of requests are not kept
                self.requests.append(body)
                self.request_headers.append(headers)
            if self._queue:
                return self._queue.popleft()
        return Reply(
            body=self._message([{"type": "text", "text": DEFAULT_TEXT}], "end_turn"), hold=self.default_delay
        )

    def _message(self, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
        """A Messages API response body; the model is filled in from the request."""
        return {
            "id": f"msg_fake_{next(self._ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": None,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": dict(self.usage),
        }


def stream_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE events of a message: start, each block as start/deltas/stop, the stop reason, the end."""
    usage = dict(message["usage"])
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        events.extend(_block_events(index, block))
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    """One content block as the API streams it: text in word-sized deltas, citations first, input as JSON."""
    if block["type"] == "text":
        opening: dict[str, Any] = {"type": "text", "text": ""}
        if block.get("citations"):
            opening["citations"] = []
        deltas = [
            {"type": "citations_delta", "citation": citation} for citation in block.get("citations") or []
        ]
        deltas += [
            {"type": "text_delta", "text": word} for word in re.findall(r"\s*\S+\s*|\s+", block["text"])
        ]
    elif block["type"] == "tool_use":
        opening = {**block, "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
    else:
        opening, deltas = block, []
    return [
        {"type": "content_block_start", "index": index, "content_block": opening},
        *({"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def _handler_for(fake: FakeClaude) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one FakeClaude."""

    class Handler(JsonHandler):
        """Serve POST /v1/messages from the script; anything else is a 404 API error."""

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            """Answer a Messages API call."""
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if self.path.split("?")[0] != "/v1/messages":
                self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send(
                    400, {"type": "error", "error": {"type": "invalid_request_error", "message": "bad JSON"}}
                )
                return
            reply = fake._next_reply(body, {key.lower(): value for key, value in self.headers.items()})
            with fake._lock:
                fake.calls += 1
                fake.in_flight += 1
                fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            try:
                self._answer(body, reply)
            finally:
                with fake._lock:
                    fake.in_flight -= 1

        def _answer(self, body: dict[str, Any], reply: Reply) -> None:
            """Send the scripted reply, after its hold (the per-call delay of a load test)."""
            if reply.hold:
                fake._release.wait(reply.hold)
            payload = dict(reply.body)
            if payload.get("type") == "message":
                payload["model"] = body.get("model", "claude-fake")
                if body.get("stream"):
                    self._stream(payload, reply)
                    return
            self._send(reply.status, payload, reply.headers)

        def _stream(self, message: dict[str, Any], reply: Reply) -> None:
            """Send a message as the API streams it (SSE); note a client that leaves before the end."""
            try:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for number, event in enumerate(stream_events(message)):
                    if number == reply.cut_after:
                        break  # the connection closes mid-answer: no message_stop
                    if number == reply.stall_after and reply.stream_error:
                        event = {"type": "error", "error": reply.stream_error}
                        self.wfile.write(f"event: error\ndata: {json.dumps(event)}\n\n".encode())
                        break
                    if number == reply.stall_after:
                        self._hold_until_gone()
                    if reply.pace and self._client_gone(reply.pace):
                        raise ConnectionResetError
                    data = json.dumps(event)
                    self.wfile.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                fake.disconnected.set()
            self.close_connection = True

        def _hold_until_gone(self) -> None:
            """Keep the stream open until release() or the client closes it."""
            while not fake._release.is_set():
                if self._client_gone(0.05):
                    raise ConnectionResetError

        def _client_gone(self, wait: float) -> bool:
            """Whether the client closed its end, waiting up to `wait` seconds to find out."""
            # poll, not select: a long test session's descriptors outgrow select's limit of 1024.
            poller = select.poll()
            poller.register(self.connection, select.POLLIN | select.POLLHUP)
            if not poller.poll(wait * 1000):
                return False
            try:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

    return Handler
