"""gunicorn keeps an idle connection longer than the proxy in front does, so a request sent on a reused
connection never meets a socket the server has just closed (a reset while posting a question)."""

from __future__ import annotations

import http.client
import json
import re
import runpy
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import TEST_COURSES
from tests.test_deploy import Gunicorn, app_env

ROOT = Path(__file__).resolve().parents[1]
# gunicorn's own default keep-alive, the window in which the resets happened.
GUNICORN_DEFAULT_KEEPALIVE = 2


def nginx_seconds(directive: str, block: str) -> int:
    """A directive's seconds inside a named block of deploy/nginx.conf."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    body = re.search(rf"{block}\s*\{{(.*?)\}}", conf, re.S)
    assert body, f"no {block} block in nginx.conf"
    value = re.search(rf"^\s*{directive}\s+(\d+)s;", body[1], re.M)
    assert value, f"no {directive} in nginx.conf's {block} block"
    return int(value[1])


def test_gunicorn_outlasts_the_proxys_idle_upstream_connections():
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    # nginx closes an idle upstream connection first; gunicorn never closes one nginx is about to reuse.
    assert conf["keepalive"] > nginx_seconds("keepalive_timeout", "upstream app")


@pytest.mark.slow
def test_a_question_posted_on_a_connection_idle_past_gunicorns_default_is_answered(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(TEST_COURSES, docs)
    server = Gunicorn(app_env(tmp_path, docs), tmp_path / "gunicorn-logs", workers=1)
    try:
        server.wait_serving()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        connection.request("GET", "/healthz")
        assert connection.getresponse().read() == b'{"status":"ok"}\n'

        time.sleep(GUNICORN_DEFAULT_KEEPALIVE + 1.5)  # idle, as a pooled connection between two asks
        body = json.dumps({"query": "What is a fixture?"})
        connection.request("POST", "/api/query", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()

        assert response.status == 200 and json.loads(response.read())["answer"]
        connection.close()
    finally:
        server.stop()
