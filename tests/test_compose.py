"""The documented production layout: docker-compose.yml wires the app to chroma, redis and postgres by real
settings."""

from __future__ import annotations

from pathlib import Path

import yaml

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
GUNICORN_VARIABLES = {"BIND", "PORT", "WEB_CONCURRENCY"}


def compose() -> dict:
    """docker-compose.yml, parsed."""
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_the_app_is_wired_to_chroma_redis_and_postgres_and_waits_for_them():
    services = compose()["services"]
    assert set(services) == {"proxy", "app", "mcp", "chroma", "redis", "postgres"}
    app = services["app"]
    environment = app["environment"]
    assert environment["CHROMA_HOST"] == "chroma"
    assert environment["RATELIMIT_STORAGE_URI"] == "redis://redis:6379"
    assert set(app["depends_on"]) == {"chroma", "redis", "postgres"}
    # The replicas share one database, reached by the setting the app reads (with the driver it installs).
    database = Settings(database_url=environment["DATABASE_URL"]).resolved_database_url
    assert database.startswith("postgresql+psycopg://assistant:")
    assert database.endswith("@postgres:5432/assistant")
    assert "pg_isready" in services["postgres"]["healthcheck"]["test"]
    assert all(condition["condition"] == "service_healthy" for condition in app["depends_on"].values())


def test_every_variable_the_app_gets_is_a_setting_it_reads():
    environment = compose()["services"]["app"]["environment"]
    known = {name.upper() for name in Settings.model_fields} | GUNICORN_VARIABLES
    assert set(environment) <= known, set(environment) - known


def test_the_health_check_asks_readyz_and_secrets_stay_out_of_the_image():
    app = compose()["services"]["app"]
    assert "/readyz" in " ".join(app["healthcheck"]["test"])
    dockerfile = (ROOT / "Dockerfile").read_text()
    for secret in ("ANTHROPIC_API_KEY", "ADMIN_PASSWORD", "SECRET_KEY"):
        assert secret not in dockerfile
        assert app["environment"][secret] == f"${{{secret}:-}}"  # from the operator's environment or .env
    assert ".env" in (ROOT / ".dockerignore").read_text() or ".env" in (ROOT / ".gitignore").read_text()


def test_a_buffering_proxy_sits_in_front_and_the_app_port_is_not_published():
    services = compose()["services"]
    proxy, app = services["proxy"], services["app"]
    assert "ports" not in app, "only the proxy may be reachable from outside"
    assert app["environment"]["TRUSTED_PROXIES"] == "1"
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"
    [mount] = proxy["volumes"]
    config = (ROOT / mount.split(":")[0]).read_text()
    # Slow headers and bodies are timed out by nginx, which hands gunicorn whole requests only.
    for directive in ("client_header_timeout", "client_body_timeout", "proxy_request_buffering on"):
        assert directive in config
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in config  # replaced, never appended
    text = (ROOT / "docker-compose.yml").read_text()
    assert "REVERSE PROXY MUST SIT IN FRONT OF GUNICORN" in text
    assert "must sit in front of gunicorn" in (ROOT / "README.md").read_text()


def test_the_mcp_server_runs_beside_the_app_on_its_index_limits_and_database_behind_the_proxy():
    services = compose()["services"]
    mcp, app = services["mcp"], services["app"]
    assert mcp["command"][:4] == ["flask", "--app", "wsgi", "mcp"] and "--http" in mcp["command"]
    port = mcp["command"][mcp["command"].index("--port") + 1]
    assert "ports" not in mcp and mcp["expose"] == [port]
    for name in ("CHROMA_HOST", "RATELIMIT_STORAGE_URI", "DATABASE_URL", "SECRET_KEY"):
        assert mcp["environment"][name] == app["environment"][name], name
    known = {name.upper() for name in Settings.model_fields}
    assert set(mcp["environment"]) <= known
    assert set(mcp["volumes"]) == set(app["volumes"])
    assert mcp["depends_on"]["app"]["condition"] == "service_healthy", "the app migrates and indexes first"
    assert services["proxy"]["depends_on"]["mcp"]["condition"] == "service_healthy"
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    assert f"server mcp:{port};" in config and "location = /mcp {" in config
