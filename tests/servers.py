"""Real server processes on 127.0.0.1 for tests: free ports, bounded polling, clean shutdown."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CHROMA = BIN / "chroma"
REDIS = "redis-server"
# Debian's postgresql package installs its server programs here, off PATH, one folder per major version.
POSTGRES_BINS = "/usr/lib/postgresql/*/bin"
POSTGRES_USER = "postgres"
STARTUP_SECONDS = 60
STOP_SECONDS = 15
POLL_SECONDS = 0.1


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_get(url: str, timeout: float = 30) -> tuple[int, bytes]:
    """GET `url` over a fresh connection; return the status and body, error statuses included."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def answers(url: str) -> bool:
    """True when `url` answers 200 within a couple of seconds."""
    try:
        return http_get(url, timeout=2)[0] == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


class ServerProcess:
    """A process in its own process group, stdout and stderr logged to files, always stopped whole."""

    def __init__(
        self,
        args: list[str],
        logs: Path,
        env: dict[str, str] | None = None,
        cwd: Path = ROOT,
        user: str | None = None,
    ):
        logs.mkdir(parents=True, exist_ok=True)
        self.stdout_log = logs / "stdout.log"
        self.stderr_log = logs / "stderr.log"
        self._files = [self.stdout_log.open("wb"), self.stderr_log.open("wb")]
        # Its own session, so stop() can reach children (gunicorn's workers) even if the parent is killed.
        self.process = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdout=self._files[0],
            stderr=self._files[1],
            start_new_session=True,
            user=user,
        )

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    def stdout(self) -> str:
        """Everything the process wrote to stdout so far."""
        return self.stdout_log.read_text(errors="replace")

    def stderr(self) -> str:
        """Everything the process wrote to stderr so far."""
        return self.stderr_log.read_text(errors="replace")

    def output(self) -> str:
        """The tail of both logs, for failure messages."""
        return f"--- stdout ---\n{self.stdout()[-3000:]}\n--- stderr ---\n{self.stderr()[-3000:]}"

    def wait_until(self, check: Callable[[], bool], what: str, seconds: float = STARTUP_SECONDS) -> None:
        """Poll `check` until it holds; fail with the logs if the process exits or `seconds` pass."""
        deadline = time.monotonic() + seconds
        pause = threading.Event()
        while not check():
            if self.process.poll() is not None:
                pytest.fail(f"{what}: the process exited with {self.process.returncode}\n{self.output()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {seconds} s\n{self.output()}")
            pause.wait(POLL_SECONDS)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL the whole process group after a bounded wait."""
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_SECONDS)
        # Children left behind (a worker whose master died) go too; the group is ours alone.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for file in self._files:
            file.close()


class ChromaServer(ServerProcess):
    """A `chroma run` process on a free loopback port, with its data in a temp folder."""

    def __init__(self, data: Path, logs: Path):
        self.port = free_port()
        super().__init__(
            [str(CHROMA), "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(self.port)],
            logs,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )

    def heartbeat(self) -> bool:
        """True when the server answers its heartbeat."""
        return answers(f"http://127.0.0.1:{self.port}/api/v2/heartbeat")

    def wait_ready(self) -> None:
        """Wait for the heartbeat."""
        self.wait_until(self.heartbeat, "chroma run answering its heartbeat")


def start_chroma(tmp_path: Path) -> ChromaServer:
    """A ready ChromaDB server with its data and logs under `tmp_path`; the caller stops it."""
    if not CHROMA.exists():
        pytest.fail(f"{CHROMA} is missing: the chromadb package installs it")
    server = ChromaServer(tmp_path / "server-data", tmp_path / "chroma-logs")
    try:
        server.wait_ready()
    except BaseException:
        server.stop()
        raise
    return server


class RedisServer(ServerProcess):
    """A `redis-server` on a free loopback port, in memory only (no snapshot, no append-only file)."""

    def __init__(self, data: Path, logs: Path):
        self.port = free_port()
        data.mkdir(parents=True, exist_ok=True)
        super().__init__(
            [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            logs,
            cwd=data,
        )

    @property
    def url(self) -> str:
        """The redis:// URL of this server."""
        return f"redis://127.0.0.1:{self.port}"

    def ping(self) -> bool:
        """True when the server answers PING."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def start_redis(tmp_path: Path) -> RedisServer:
    """A ready redis-server with its logs under `tmp_path`; the caller stops it."""
    if shutil.which(REDIS) is None:
        pytest.fail("redis-server is missing: `make test` installs it (apt-get install redis-server)")
    server = RedisServer(tmp_path / "redis-data", tmp_path / "redis-logs")
    try:
        server.wait_until(server.ping, "redis-server answering PING")
    except BaseException:
        server.stop()
        raise
    return server


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's server programs, or fail saying how to install them."""
    found = sorted(Path("/").glob(POSTGRES_BINS.lstrip("/")), key=lambda path: int(path.parent.name))
    if not found or not (found[-1] / "initdb").exists():
        pytest.fail("PostgreSQL is missing: `make test` installs it (apt-get install postgresql)")
    return found[-1]


def postgres_user() -> str | None:
    """The user to run the server as: postgres refuses to run as root, so root hands it to `postgres`."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(POSTGRES_USER)
    except KeyError:
        pytest.fail("no `postgres` user to run the server as: the postgresql package creates it")
    return POSTGRES_USER


class PostgresServer(ServerProcess):
    """A throwaway PostgreSQL cluster on a free loopback port, trusting local connections, no unix socket."""

    def __init__(self, logs: Path, durable: bool = False):
        self.port = free_port()
        user = postgres_user()
        # Outside pytest's 0700 tmp folders, so the `postgres` user can reach it.
        self.data = Path(tempfile.mkdtemp(prefix="course-assistant-pg-"))
        if user is not None:
            shutil.chown(self.data, user)
        bin_dir = postgres_bin()
        initdb = [str(bin_dir / "initdb"), "-D", str(self.data / "cluster"), "-U", "postgres"]
        subprocess.run(
            [*initdb, "--auth=trust", "--no-sync", "-E", "UTF8"],
            check=True,
            capture_output=True,
            user=user,
            cwd=self.data,
            timeout=STARTUP_SECONDS,
        )
        # Tests need no durability; the benchmark (durable=True) measures the server's defaults.
        speed = [] if durable else ["-c", "fsync=off", "-c", "full_page_writes=off"]
        args = [str(bin_dir / "postgres"), "-D", str(self.data / "cluster"), "-p", str(self.port)]
        args += ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", *speed]
        super().__init__(args, logs, cwd=self.data, user=user)

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of `database` on this server."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def accepts(self) -> bool:
        """True when the server accepts a connection and a query."""
        import psycopg

        try:
            with psycopg.connect(self._dsn("postgres"), connect_timeout=2) as connection:
                connection.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def create_database(self, name: str) -> str:
        """Create an empty database called `name`; return its URL."""
        import psycopg

        with psycopg.connect(self._dsn("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def _dsn(self, database: str) -> str:
        """The libpq connection string of `database`."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database}"

    def stop(self) -> None:
        """Fast shutdown (SIGINT: sessions are cut, not waited for), then the usual stop, then the files."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_SECONDS)
        super().stop()
        shutil.rmtree(self.data, ignore_errors=True)


def start_postgres(tmp_path: Path, durable: bool = False) -> PostgresServer:
    """A ready PostgreSQL server with its logs under `tmp_path`; the caller stops it."""
    server = PostgresServer(tmp_path / "postgres-logs", durable=durable)
    try:
        server.wait_until(server.accepts, "postgres accepting connections")
    except BaseException:
        server.stop()
        raise
    return server


def flask_command(tmp_path: Path, docs_dir: Path, *args: str, stdin: str = "", **env: str):
    """Run `flask --app wsgi ...` in a fresh process, over the test's index, and return the result."""
    environment = {
        **os.environ,
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "CHROMA_PATH": str(tmp_path / "instance" / "chroma"),
        "DOCS_DIR": str(docs_dir),
        "SECRET_KEY": "test-secret-key",
        **env,
    }
    flask = Path(sys.executable).parent / "flask"
    return subprocess.run(
        [str(flask), "--app", "wsgi", *args],
        cwd=ROOT,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=240,
    )
