"""Course Assistant: the application factory."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from app.config import Settings, load_settings
from app.extensions import csrf, limiter
from app.services import Services

# Offline by design, each where it takes effect: the embedder sets HF_HUB_OFFLINE before it imports the
# model libraries, and the store opens ChromaDB with anonymized_telemetry=False.


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app: settings (defaults, environment, then `config`), services, blueprints."""
    settings = load_settings(config)
    app = Flask(__name__, template_folder="../templates", static_folder="../static")
    app.config.update(
        SECRET_KEY=settings.ensure_secret_key(),
        MAX_CONTENT_LENGTH=settings.max_upload_bytes,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.session_cookie_secure,
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        RATELIMIT_STORAGE_URI=settings.ratelimit_storage_uri,
        RATELIMIT_ENABLED=settings.ratelimit_enabled,
        RATELIMIT_HEADERS_ENABLED=True,
        # Redis down: count in this process's memory (a logged warning, a metric, /readyz says so) and never
        # fail the request for it.
        RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True,
        RATELIMIT_SWALLOW_ERRORS=True,
        WTF_CSRF_TIME_LIMIT=None,
    )
    app.extensions["services"] = Services(settings)
    if settings.trusted_proxies:
        # Only behind that many proxies: their X-Forwarded-* headers name the client the rate limits key on.
        hops = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]

    csrf.init_app(app)
    limiter.init_app(app)
    _register_blueprints(app)

    from app.cli import register_cli

    register_cli(app)
    return app


def _register_blueprints(app: Flask) -> None:
    """Attach the blueprints, the template helpers, the error handler and the security headers."""
    from app.web import admin, api, assets, chat, errors, observability, security, signin, staff, templating

    app.register_blueprint(chat.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(admin.bp)
    signin.register(app, app.extensions["services"].settings)
    app.register_blueprint(staff.bp)
    templating.register(app)
    errors.register(app)
    security.register(app)
    observability.register(app)
    assets.register(app)


__all__ = ["create_app", "Settings"]
