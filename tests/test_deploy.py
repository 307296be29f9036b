"""The real deployment path: `flask index` and `gunicorn -c gunicorn.conf.py wsgi:app` as processes."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import TEST_COURSES
from tests.servers import BIN, ROOT, ServerProcess, answers, free_port, http_get, start_chroma, start_redis

pytestmark = pytest.mark.slow

COURSE_TITLES = [
    "Python Testing with Pytest",
    "Retrieval-Augmented Generation in Practice",
    "Vector Databases from Scratch",
]
NEW_TITLE = "Beekeeping for Programmers"
NEW_COURSE = f"""Course Title: {NEW_TITLE}
Course Link: https://example.com/courses/bees
Course Instructor: Karl von Frisch

Lesson 1: The Waggle Dance
Lesson Link: https://example.com/courses/bees/lesson-1
A forager honeybee that found nectar returns to the hive and performs the waggle dance on the comb. The angle
of the waggle run against gravity tells her sisters the direction of the flowers relative to the sun, and the
length of the run tells them the distance. Beekeepers read the dance to learn where their colony forages.

Lesson 2: Swarming
Lesson Link: https://example.com/courses/bees/lesson-2
In late spring a strong colony raises a new queen and the old queen leaves with half of the workers. The swarm
hangs from a branch while scout bees search for a hollow tree, then the scouts dance for their favourite site.
"""
PHRASE = "the waggle dance of a forager honeybee"
# Fresh connections, so either worker may accept each one; at least this many, more until both answered.
MIN_QUERIES = 8
MAX_QUERIES = 80
# Requests sent at once: one at a time, a worker that is already awake can take every connection.
BURST = 4
# The worker's pid (%(p)s is "<pid>"), the status and the request line with its query string.
ACCESS_FORMAT = "%(p)s %(s)s %(m)s %(U)s?%(q)s"
SEARCH_LINE = re.compile(r"^<(\d+)> 200 GET /api/search\?(\S*)$", re.MULTILINE)
BOOTED = re.compile(r"Booting worker with pid: (\d+)")
WARM = re.compile(r"Worker (\d+) is warm and takes requests")
EMBEDDED_WARNING = "workers on the embedded ChromaDB folder"
TORCH_LIBRARY = "libtorch"
ONNX_LIBRARY = "onnxruntime"
PARSER_LIBRARY = "/lxml/"


def app_env(tmp: Path, docs: Path, **extra: str) -> dict[str, str]:
    """The environment of every app process: tmp folders, offline, extractive, and no .env read."""
    env = {
        **os.environ,
        "DOCS_DIR": str(docs),
        "INSTANCE_PATH": str(tmp / "instance"),
        "SECRET_KEY": "deploy-test-secret",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        # Set but empty: neither the settings nor the `flask` command read a dotenv file.
        "COURSE_ASSISTANT_ENV_FILE": "",
        "FLASK_SKIP_DOTENV": "1",
        **extra,
    }
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def flask_index(env: dict[str, str]) -> str:
    """Run `flask --app wsgi index` in its own process; return its stdout, failing on a non-zero exit."""
    result = subprocess.run(
        [str(BIN / "flask"), "--app", "wsgi", "index"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, (
        f"flask index exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    )
    return result.stdout


class Gunicorn(ServerProcess):
    """`gunicorn -c gunicorn.conf.py wsgi:app` from the repository root on a free loopback port."""

    def __init__(self, env: dict[str, str], logs: Path, workers: int):
        self.port = free_port()
        self.workers = workers
        env = {**env, "WEB_CONCURRENCY": str(workers), "PORT": str(self.port)}
        # gunicorn.conf.py prefers BIND to PORT: a BIND from the caller would send it elsewhere.
        env.pop("BIND", None)
        super().__init__(
            [
                str(BIN / "gunicorn"),
                "-c",
                "gunicorn.conf.py",
                "--access-logfile",
                "-",
                "--access-logformat",
                ACCESS_FORMAT,
                "wsgi:app",
            ],
            logs,
            env=env,
        )

    def url(self, path: str) -> str:
        """The full URL of `path` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def get_json(self, path: str) -> tuple[int, dict]:
        """GET `path` over a fresh connection; the status and the JSON body."""
        status, body = http_get(self.url(path))
        return status, json.loads(body)

    def post_json(self, path: str, payload: dict) -> tuple[int, dict]:
        """POST `payload` as JSON to `path`; the status and the JSON body."""
        request = urllib.request.Request(
            self.url(path),
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())

    def worker_pids(self) -> set[int]:
        """The pids of the workers the master booted, from its log."""
        return {int(pid) for pid in BOOTED.findall(self.stderr())}

    def warm_pids(self) -> set[int]:
        """The pids of the workers that logged they are warm and take requests."""
        return {int(pid) for pid in WARM.findall(self.stderr())}

    def searches(self) -> dict[str, int]:
        """The query string of each /api/search the access log shows answered 200, with the worker's pid."""
        return {query: int(pid) for pid, query in SEARCH_LINE.findall(self.stdout())}

    def wait_serving(self, ready: bool = True) -> None:
        """Wait until every worker booted (and is warm when `ready`) and /healthz (and /readyz) answer 200."""
        self.wait_until(lambda: len(self.worker_pids()) == self.workers, f"{self.workers} workers booted")
        if ready:
            # A worker accepts connections only once warm: /readyz from one worker says nothing of the other.
            self.wait_until(lambda: self.warm_pids() == self.worker_pids(), f"{self.workers} workers warm")
        for path in ("/healthz", "/readyz") if ready else ("/healthz",):
            self.wait_until(lambda path=path: answers(self.url(path)), f"{path} answering 200")


def maps(pid: int) -> str:
    """The memory map of process `pid`: every shared library it has loaded."""
    return Path(f"/proc/{pid}/maps").read_text()


def parent_pid(pid: int) -> int:
    """The parent of process `pid`."""
    # The command name in parentheses may hold spaces: the fields after its closing parenthesis are fixed.
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    """A `chroma run` server, the test courses indexed into it by `flask index`, and 2 gunicorn workers."""
    tmp = tmp_path_factory.mktemp("deploy")
    docs = tmp / "docs"
    shutil.copytree(TEST_COURSES, docs)
    chroma = start_chroma(tmp)
    server = None
    try:
        env = app_env(tmp, docs, CHROMA_HOST="127.0.0.1", CHROMA_PORT=str(chroma.port))
        summary = flask_index(env)
        assert "3 added" in summary, summary
        server = Gunicorn(env, tmp / "gunicorn-logs", workers=2)
        server.wait_serving()
        yield env, docs, server
    finally:
        if server is not None:
            server.stop()
        chroma.stop()


def tag(attempt: int) -> str:
    """A search for the new course's phrase, told apart by `attempt` (which the API ignores)."""
    return urllib.parse.urlencode({"q": PHRASE, "attempt": attempt})


def search(server: Gunicorn, attempt: int) -> dict:
    """Search for the new course's phrase; the access log names the worker that answered `attempt`."""
    status, body = server.get_json(f"/api/search?{tag(attempt)}")
    assert status == 200, body
    return body


def in_bursts(server: Gunicorn, send, answered: re.Pattern[str], minimum: int) -> list:
    """Call `send(n)` in bursts of a few at once until both workers answered (and `minimum` calls were made).

    One at a time, a worker that is already awake can take every connection; a burst keeps both busy.
    """
    results: list = []
    with ThreadPoolExecutor(max_workers=BURST) as pool:
        while len(results) < MAX_QUERIES:
            results += pool.map(send, range(len(results), len(results) + BURST))
            answered_by = {int(match.group(1)) for match in answered.finditer(server.stdout())}
            if len(results) >= minimum and answered_by == server.worker_pids():
                break
    return results


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads Linux /proc/<pid>/maps")
def test_every_worker_loads_the_model_before_it_takes_traffic(deployment):
    # Runs first on the fresh deployment: nothing has searched yet, only /healthz and /readyz answered.
    _, _, server = deployment
    assert not server.searches()
    for worker in server.worker_pids():
        assert ONNX_LIBRARY in maps(worker), f"worker {worker} was not warmed up by post_worker_init"
    assert ONNX_LIBRARY not in maps(server.pid), "the gunicorn master loaded the model"


def test_every_worker_sees_a_sync_made_by_another_process(deployment):
    env, docs, server = deployment
    assert EMBEDDED_WARNING not in server.stderr(), "CHROMA_HOST is set: no warning"
    status, catalog = server.get_json("/api/courses")
    assert status == 200
    assert catalog["course_titles"] == COURSE_TITLES
    assert NEW_TITLE not in {hit["course_title"] for hit in search(server, attempt=-1)["results"]}

    (docs / "beekeeping.txt").write_text(NEW_COURSE)
    summary = flask_index(env)
    assert f"added    beekeeping.txt ({NEW_TITLE}" in summary, summary

    answered = dict(in_bursts(server, lambda n: (n, search(server, n)), SEARCH_LINE, minimum=MIN_QUERIES))
    for attempt, body in answered.items():
        assert body["results"], f"attempt {attempt}: no results"
        assert body["results"][0]["course_title"] == NEW_TITLE, f"attempt {attempt}: {body['results'][0]}"
        assert body["results"][0]["lesson_title"] == "The Waggle Dance"

    # Each answer is in the access log with the pid of the worker that gave it: both workers answered.
    tags = {tag(attempt) for attempt in answered}
    server.wait_until(lambda: tags <= server.searches().keys(), "every search in the access log", seconds=10)
    workers = {server.searches()[tag] for tag in tags}
    assert workers == server.worker_pids(), f"{len(answered)} searches answered by {workers} only"

    status, catalog = server.get_json("/api/courses")
    assert status == 200
    assert catalog["course_titles"] == sorted([*COURSE_TITLES, NEW_TITLE])
    status, reply = server.post_json("/api/query", {"query": "What does the waggle dance tell other bees?"})
    assert status == 200
    assert reply["answer"].strip()
    assert reply["sources"] and reply["sources"][0].startswith(NEW_TITLE)
    assert {citation["course"] for citation in reply["citations"]} == {NEW_TITLE}
    assert reply["citations"][0]["link"].startswith("https://example.com/courses/bees")


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads Linux /proc/<pid>/maps")
def test_a_worker_that_searched_runs_the_model_without_torch_and_the_master_loads_neither(deployment):
    _, _, server = deployment
    search(server, attempt=1000)
    server.wait_until(lambda: tag(1000) in server.searches(), "the search in the access log", seconds=10)
    worker = server.searches()[tag(1000)]

    assert parent_pid(worker) == server.pid
    assert ONNX_LIBRARY in maps(worker), "the worker that searched embedded the query with onnxruntime"
    assert TORCH_LIBRARY not in maps(worker), "a serving worker loaded torch"
    # The document parsers load only when a file is parsed: python-docx brings lxml, pypdf brings Pillow.
    assert PARSER_LIBRARY not in maps(worker), "a serving worker loaded the document parsers"
    assert not {ONNX_LIBRARY, TORCH_LIBRARY} & set(re.findall(r"onnxruntime|libtorch", maps(server.pid)))


def test_several_workers_on_the_embedded_folder_warn_at_start(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(TEST_COURSES, docs)
    server = Gunicorn(app_env(tmp_path, docs), tmp_path / "gunicorn-logs", workers=2)
    try:
        server.wait_serving(ready=False)
        warnings = [line for line in server.stderr().splitlines() if EMBEDDED_WARNING in line]
        assert len(warnings) == 1, server.stderr()
        assert "[WARNING]" in warnings[0]
        assert "2 workers" in warnings[0] and "CHROMA_HOST" in warnings[0]
        assert str(tmp_path / "instance" / "chroma") in warnings[0]
        assert server.get_json("/healthz") == (200, {"status": "ok"})
    finally:
        server.stop()


QUERY_LINE = re.compile(r"^<(\d+)> (\d{3}) POST /api/query\?$", re.MULTILINE)
SHARED_BUDGET = 5


@pytest.fixture(scope="module")
def shared_limits(tmp_path_factory):
    """2 gunicorn workers on a `chroma run` server with their rate limits in a real redis-server."""
    tmp = tmp_path_factory.mktemp("limits")
    docs = tmp / "docs"
    shutil.copytree(TEST_COURSES, docs)
    chroma, redis = start_chroma(tmp), start_redis(tmp)
    server = None
    try:
        env = app_env(
            tmp,
            docs,
            CHROMA_HOST="127.0.0.1",
            CHROMA_PORT=str(chroma.port),
            RATELIMIT_STORAGE_URI=redis.url,
            RATELIMIT_ASK=f"{SHARED_BUDGET} per hour",
            ADMIN_PASSWORD="deploy-admin-password",
        )
        flask_index(env)
        server = Gunicorn(env, tmp / "gunicorn-logs", workers=2)
        server.wait_serving()
        yield server
    finally:
        if server is not None:
            server.stop()
        redis.stop()
        chroma.stop()


def test_two_workers_share_one_rate_limit_budget_in_redis(shared_limits):
    server = shared_limits

    def ask(attempt: int) -> int:
        try:
            return server.post_json("/api/query", {"query": f"What is a fixture? ({attempt})"})[0]
        except urllib.error.HTTPError as error:
            return error.code

    statuses = in_bursts(server, ask, QUERY_LINE, minimum=2 * SHARED_BUDGET)
    answered_by = {int(pid) for pid, _ in QUERY_LINE.findall(server.stdout())}
    assert answered_by == server.worker_pids(), "both workers must have answered to test a shared budget"
    # With a budget per worker, each would have let its first five through: more than five in all.
    assert statuses.count(200) == SHARED_BUDGET, statuses
    assert statuses.count(429) == len(statuses) - SHARED_BUDGET, statuses


STATUS_LINE = re.compile(r"^<(\d+)> 200 GET /admin/sync/status\?$", re.MULTILINE)


def admin_opener(server: Gunicorn):
    """A urllib opener with a cookie jar (a fresh connection per request), signed in through the form."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    form = opener.open(server.url("/admin/login"), timeout=30).read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode({"password": "deploy-admin-password", "csrf_token": token}).encode()
    opener.open(server.url("/admin/login"), data=data, timeout=30)
    page = opener.open(server.url("/admin"), timeout=30).read().decode()
    return opener, re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_a_sync_started_on_one_worker_is_visible_on_every_worker(shared_limits):
    server = shared_limits
    opener, token = admin_opener(server)
    request = urllib.request.Request(
        server.url("/admin/rebuild"),
        data=urllib.parse.urlencode({"csrf_token": token}).encode(),
        headers={"Accept": "application/json"},
    )
    started = json.loads(opener.open(request, timeout=30).read())

    def status(_: int) -> dict:
        request = urllib.request.Request(
            server.url("/admin/sync/status"), headers={"Accept": "application/json"}
        )
        return json.loads(opener.open(request, timeout=30).read())

    jobs = in_bursts(server, status, STATUS_LINE, minimum=4)
    # Every status request answered with the job another worker started; the access log says both answered.
    assert all(job["id"] == started["id"] and job["rebuild"] is True for job in jobs), jobs
    answered_by = {int(pid) for pid in STATUS_LINE.findall(server.stdout())}
    assert answered_by == server.worker_pids(), f"status answered by {answered_by} only"
