"""The JSON API (query, courses, search) and the health checks."""

from app.web.api.views import bp

__all__ = ["bp"]
