"""A scripted OpenAI-compatible chat completions API on 127.0.0.1 that the real `openai` SDK talks to.

It speaks the protocol as Ollama and vLLM do: POST /v1/chat/completions, a JSON completion, or with
`stream: true` Server-Sent Events of `chat.completion.chunk` objects (text deltas, tool_calls deltas with
their arguments in pieces, a finish_reason) ending in `data: [DONE]`; errors as `{"error": {...}}`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback import JsonHandler, LoopbackServer

DEFAULT_TEXT = "ok"


@dataclass
class Reply:
    """One scripted reply: text and tool calls, or an error; how it is delivered."""

    text: str = ""
    # (name, arguments): a dict is sent as JSON, a str as it is (malformed arguments).
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    finish_reason: str | None = None
    status: int = 200
    error: str = ""
    hold: float = 0.0  # seconds before answering (a slow server)
    cut_after: int | None = None  # streamed: close the connection after this many chunks
    pace: float = 0.0  # streamed: seconds between chunks


class FakeOpenAI(LoopbackServer):
    """A chat completions server answering from a queue of scripted replies, recording every request."""

    name = "fake-openai"

    def __init__(self, chunk_chars: int = 3):
        super().__init__()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        # Text and arguments stream in pieces this long, so markers and JSON arrive split.
        self.chunk_chars = chunk_chars
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        # Set when a streaming client closed its connection before the reply was complete.
        self.disconnected = threading.Event()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """Serve this script."""
        return _handler_for(self)

    @property
    def url(self) -> str:
        """The base URL to hand the SDK (`OPENAI_BASE_URL`), ending in /v1 as Ollama's and vLLM's do."""
        return f"{self.origin}/v1"

    # -- scripting -------------------------------------------------------------------------------------------

    def enqueue(self, reply: Reply, times: int = 1) -> None:
        """Answer the next `times` requests with `reply`."""
        with self._lock:
            self._queue.extend([reply] * times)

    def enqueue_text(self, text: str, finish_reason: str = "stop", **delivery: Any) -> None:
        """Reply once with text."""
        self.enqueue(Reply(text=text, finish_reason=finish_reason, **delivery))

    def enqueue_tool_calls(self, *calls: tuple[str, dict[str, Any] | str], text: str = "") -> None:
        """Reply once with tool calls (and optional text before them), finish_reason "tool_calls"."""
        self.enqueue(Reply(text=text, tool_calls=list(calls), finish_reason="tool_calls"))

    def enqueue_error(self, status: int, message: str, times: int = 1) -> None:
        """Reply with an HTTP error `times` times (the SDK retries 408, 409, 429 and 5xx)."""
        self.enqueue(Reply(status=status, error=message), times)

    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._queue)

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """Record a request and take the next reply (the default text when none is queued)."""
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            return self._queue.popleft() if self._queue else Reply(text=DEFAULT_TEXT, finish_reason="stop")

    # -- the protocol ---------------------------------------------------------------------------------------

    def chunks(self, reply: Reply, model: str) -> list[dict[str, Any]]:
        """A reply as the stream of chat.completion.chunk objects a server sends."""
        ident = f"chatcmpl-{next(self._ids)}"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
            }

        size = self.chunk_chars
        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"content": reply.text[i : i + size]}) for i in range(0, len(reply.text), size)]
        for index, (name, arguments) in enumerate(reply.tool_calls):
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            opening = {"index": index, "id": f"call_{next(self._ids)}", "type": "function"}
            out.append(chunk({"tool_calls": [{**opening, "function": {"name": name, "arguments": ""}}]}))
            for i in range(0, len(text), size * 4):
                out.append(
                    chunk(
                        {"tool_calls": [{"index": index, "function": {"arguments": text[i : i + size * 4]}}]}
                    )
                )
        out.append(chunk({}, reply.finish_reason))
        return out

    def completion(self, reply: Reply, model: str) -> dict[str, Any]:
        """A reply as one (non-streamed) chat.completion object."""
        calls = [
            {
                "id": f"call_{next(self._ids)}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for name, args in reply.tool_calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one FakeOpenAI."""

    class Handler(JsonHandler):
        """Serve POST /v1/chat/completions from the script; anything else is a 404 error."""

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            """Answer a chat completions call."""
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.split("?")[0] != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            body = json.loads(raw or b"{}")
            reply = fake._next(body, {key.lower(): value for key, value in self.headers.items()})
            if reply.hold:
                time.sleep(reply.hold)
            if reply.status != 200:
                self._send(
                    reply.status, {"error": {"message": reply.error, "type": "api_error", "code": None}}
                )
            elif body.get("stream"):
                self._stream(fake.chunks(reply, body.get("model", "fake")), reply)
            else:
                self._send(200, fake.completion(reply, body.get("model", "fake")))

        def _stream(self, chunks: list[dict[str, Any]], reply: Reply) -> None:
            """Send chunks as SSE, then [DONE]; a cut stream stops early with neither."""
            try:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for number, chunk in enumerate(chunks):
                    if number == reply.cut_after:
                        return
                    time.sleep(reply.pace)
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                fake.disconnected.set()
            finally:
                self.close_connection = True

    return Handler
