"""Time from an admin upload of one new course until it is searchable, next to the embed-one-query floor."""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench import DOCS, bench_app

UPLOAD = DOCS / "flask_htmx.docx"
PASSWORD = "bench-password"
ROUNDS = 5


def upload_once(app, client) -> tuple[float, float, int]:
    """Upload the course, wait for its sync; return (answer ms, until searchable ms, chunks)."""
    start = time.perf_counter()
    with UPLOAD.open("rb") as handle:
        response = client.post("/admin/upload", data={"files": (handle, UPLOAD.name)})
    answered = time.perf_counter()
    if response.status_code >= 400:
        raise SystemExit(f"upload failed ({response.status_code}): {response.get_data(as_text=True)[:300]}")
    app.extensions["services"].jobs.wait(300)
    query = {"q": "hx-swap beforeend", "course": "flask htmx"}
    hits = client.get("/api/search", query_string=query).get_json()
    done = time.perf_counter()
    if not hits.get("results"):
        raise SystemExit(f"the uploaded course is not searchable: {hits}")
    record = next(c for c in app.extensions["services"].index.courses() if c.source_file == UPLOAD.name)
    return (answered - start) * 1000, (done - start) * 1000, record.chunk_count


def remove(app, client) -> None:
    """Delete the uploaded course again (its file goes to the trash)."""
    record = next(c for c in app.extensions["services"].index.courses() if c.source_file == UPLOAD.name)
    response = client.post(f"/admin/courses/{record.id}/delete")
    if response.status_code >= 400:
        raise SystemExit(f"delete failed ({response.status_code})")


def main(rounds: int = ROUNDS) -> None:
    """Index three sample courses, then upload the fourth (DOCX) several times, deleting it in between."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for path in DOCS.iterdir():
            if path.name != UPLOAD.name and path.suffix != ".md":
                shutil.copy(path, docs / path.name)
        app = bench_app(tmp, docs, ADMIN_PASSWORD=PASSWORD)
        services = app.extensions["services"]
        services.indexer.sync()
        client = app.test_client()
        client.post("/admin/login", data={"password": PASSWORD})

        floor = []
        for _ in range(20):
            start = time.perf_counter()
            services.index.embedder.embed_documents(["hx-swap beforeend"])  # uncached, unlike embed_query
            floor.append((time.perf_counter() - start) * 1000)
        rows = []
        for number in range(rounds):
            rows.append(upload_once(app, client))
            if number < rounds - 1:
                remove(app, client)

    answer = statistics.median(row[0] for row in rows)
    searchable = statistics.median(row[1] for row in rows)
    embed_one = statistics.median(floor)
    print(f"Admin upload of {UPLOAD.name} ({rows[0][2]} chunks) until searchable, model loaded, N={rounds}")
    print(f"{'step':<34} {'median ms':>10} {'x embed one query':>18}")
    print(f"{'embed one query (the floor)':<34} {embed_one:>10.1f} {1.0:>18.1f}")
    print(f"{'POST /admin/upload answers':<34} {answer:>10.1f} {answer / embed_one:>18.1f}")
    print(f"{'upload until searchable':<34} {searchable:>10.1f} {searchable / embed_one:>18.1f}")


if __name__ == "__main__":
    main()
