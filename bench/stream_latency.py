"""Streamed answers via the Flask test client with a scripted model: time to the question, to the first
streamed byte and word, to the end, and what streaming adds over the plain form POST of the same answer."""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time

from bench import ROOT, bench_app

N = 100
WARMUP = 5
HX = {"HX-Request": "true"}
# About 3,000 characters in 200 pieces, as a long model answer arrives.
PIECES = ["Fixtures set up **what a test needs** and tear it down. "[i % 8 :][:15] for i in range(200)]


def _ms(start: float) -> float:
    """Milliseconds since `start`."""
    return (time.perf_counter() - start) * 1000


def streamed(client) -> dict[str, float]:
    """One question as the page asks it with JavaScript: post, read the stream, commit; milliseconds each."""
    start = time.perf_counter()
    pending = client.post("/ask", data={"question": "What are fixtures?"}, headers=HX)
    times = {"question shown": _ms(start)}
    url = re.search(r'sse-connect="([^"]+)"', pending.get_data(as_text=True)).group(1).replace("&amp;", "&")
    response = client.get(url, buffered=False)
    body = b""
    for chunk in response.response:
        if not body:
            times["first byte"] = _ms(start)
        # The answer's text travels in block, a<n> and r<n> messages (app/web/chat/live.py).
        if re.search(rb"^event: (?:block|[ar]\d+)$", chunk, re.M) and "first word" not in times:
            times["first word"] = _ms(start)
        body += chunk
    response.close()
    times["last byte"] = _ms(start)
    token = re.search(rb"hx-vals='\{\"token\": \"([^\"]+)\"\}'", body)
    if token is None:
        raise SystemExit(f"the stream ended without a commit: {body[-300:]!r}")
    committed = client.post("/ask/commit", data={"token": token.group(1).decode()}, headers=HX)
    if committed.status_code != 200:
        raise SystemExit(f"commit failed ({committed.status_code})")
    times["committed"] = _ms(start)
    return times


def plain(client) -> float:
    """Milliseconds for the same answer without JavaScript (answer, store, 303)."""
    start = time.perf_counter()
    response = client.post("/ask", data={"question": "What are fixtures?"})
    if response.status_code != 303:
        raise SystemExit(f"POST /ask failed ({response.status_code})")
    return _ms(start)


def main(count: int = N) -> None:
    """Index the sample docs into a temp folder, then time streamed and plain answers of a scripted model."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))  # tests.scripted_answerer is the stand-in model the tests use
    from app.assistant.base import Answer, DoneEvent, TextEvent
    from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer

    events = [TextEvent(piece) for piece in PIECES]
    events.append(DoneEvent(Answer(markdown="".join(PIECES), sources=[FIXTURES_SOURCE])))
    with tempfile.TemporaryDirectory() as tmp:
        app = bench_app(tmp)
        use_answerer(app, ScriptedAnswerer(events))
        client = app.test_client()
        for _ in range(WARMUP):
            streamed(client)
            plain(client)
        runs = [streamed(client) for _ in range(count)]
        plains = [plain(client) for _ in range(count)]

    base = statistics.median(plains)
    print(f"Streamed answer (200 pieces, 3,000 chars, zero-delay model) via Flask test client, N={count}")
    print(f"{'from submitting to':<22} {'median ms':>10} {'min ms':>8} {'x plain POST':>13}")
    for name in ("question shown", "first byte", "first word", "last byte", "committed"):
        values = [run[name] for run in runs]
        median = statistics.median(values)
        print(f"{name:<22} {median:>10.1f} {min(values):>8.1f} {median / base:>13.2f}")
    print(f"{'plain POST (no JS)¹':<22} {base:>10.1f} {min(plains):>8.1f} {1.0:>13.2f}")
    added = statistics.median([run["committed"] for run in runs]) - base
    print(f"server's added cost per streamed answer: {added:.1f} ms (median committed - median plain POST)")
    print("¹ answers and stores, then redirects: the page it lands on renders the answer in its own request")


if __name__ == "__main__":
    main()
