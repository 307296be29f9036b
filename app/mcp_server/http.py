"""The MCP server over streamable HTTP: an ASGI app at /mcp, in its own process beside gunicorn.

The SDK's HTTP transport is ASGI (Starlette, with a lifespan that runs its session manager), while the web
app is WSGI under gunicorn. Rather than bridge one into the other (a lifespan that WSGI never runs, an event
loop inside threaded workers, the SDK's memory in every worker), the server runs as its own uvicorn process,
`flask mcp --http`, on the same settings, index and database; a reverse proxy sends /mcp to it. It is
stateless with JSON responses (no server-held sessions), so several such processes can stand behind a proxy.
"""

from __future__ import annotations

from flask import Flask
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp

from app.mcp_server.access import StoreTokenVerifier, TokenRateLimit
from app.mcp_server.library import CourseLibrary
from app.mcp_server.server import build_server

MCP_PATH = "/mcp"


def http_app(app: Flask, public_url: str) -> ASGIApp:
    """The ASGI app: /mcp for token holders (rate limited per token), /healthz for anyone."""
    library = CourseLibrary(app)
    # The tokens are this app's own, made on the admin page: it is their issuer, and no OAuth flow is offered.
    auth = AuthSettings(issuer_url=public_url, resource_server_url=None)  # type: ignore[arg-type]
    server = build_server(library, token_verifier=StoreTokenVerifier(library), auth=auth)

    @server.custom_route("/healthz", methods=["GET"])
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    asgi = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        # A browser page cannot send the bearer token every request needs, so DNS rebinding gains it nothing;
        # and a proxy in front forwards its own Host, which a loopback-only host check would refuse.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    settings = library.services.settings
    if not settings.ratelimit_enabled:
        return asgi
    return TokenRateLimit(asgi, settings.ratelimit_mcp, settings.ratelimit_storage_uri)


def serve_http(app: Flask, host: str, port: int) -> None:
    """Serve the MCP server over HTTP with uvicorn until interrupted."""
    import uvicorn

    CourseLibrary(app).warm_up()
    address = f"[{host}]" if ":" in host else host  # an IPv6 address is bracketed in a URL
    uvicorn.run(http_app(app, f"http://{address}:{port}"), host=host, port=port, log_level="info")
