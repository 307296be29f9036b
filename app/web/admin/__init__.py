"""The admin: sign in, upload courses, sync with live progress, remove and restore courses, MCP tokens."""

from app.web.admin import insights, playground, tokens, views  # noqa: F401  (their routes join the blueprint)
from app.web.admin.access import bp

__all__ = ["bp"]
