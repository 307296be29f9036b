"""`flask --app wsgi mcp`: the MCP server over stdio, or over HTTP with `--http`."""

from __future__ import annotations

import sys

import click
from flask import current_app
from flask.cli import with_appcontext

from app.services import services
from app.store.soft import describe

DEFAULT_PORT = 8001


@click.command("mcp")
@with_appcontext
@click.option("--http", "over_http", is_flag=True, help="Serve streamable HTTP at /mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on (--http).")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The port (--http).",
)
def mcp_command(over_http: bool, host: str, port: int) -> None:
    """Offer the course library to MCP clients: search, outlines, the course list and each lesson's text."""
    # The SDK (Starlette, uvicorn) loads only for this command, never in a web worker.
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # the app itself, for other threads
    if over_http:
        _require_current_schema()
        from app.mcp_server.http import serve_http

        serve_http(app, host, port)
        return
    from app.mcp_server.library import CourseLibrary
    from app.mcp_server.server import build_server

    library = CourseLibrary(app)
    library.warm_up()
    build_server(library).run("stdio")


def _require_current_schema() -> None:
    """Exit 1 in one line unless the database holds the token table: every HTTP request reads it."""
    try:
        current = services().store.is_current()
    except Exception as exc:  # any driver error: the database cannot be reached
        click.echo(f"Error: the database cannot be reached: {describe(exc)}", err=True)
        sys.exit(1)
    if not current:
        click.echo(
            "Error: the database is not at the newest schema; run `flask --app wsgi db upgrade`.", err=True
        )
        sys.exit(1)
